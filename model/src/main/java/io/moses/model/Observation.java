package io.moses.model;

import java.time.Instant;

/** Monitored parameters kept in the knowledge base (docs/model.md, "Entities" and "What triggers a new plan"). */
public final class Observation {
    private Observation() {}

    /** Observed mean response time of successful replies and availability of a concrete service. */
    public record ServiceQos(String service, double responseTime, double availability, long samples, Instant at) {}

    /** Observed visits V^k_i of a task by class-k requests. */
    public record TaskVisits(String serviceClass, TaskRef task, double visits, long samples, Instant at) {}
}
