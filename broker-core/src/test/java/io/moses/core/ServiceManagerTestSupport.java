package io.moses.core;

import io.moses.model.Plan;
import io.moses.model.TaskRef;

final class ServiceManagerTestSupport {
    private ServiceManagerTestSupport() {}

    /** A left.echo service the plan in force sends traffic to. */
    static String usedLeft(Broker broker) {
        Plan plan = broker.knowledgeBase().latestPlan().orElseThrow();
        for (Plan.Share s : plan.shares("gold", TaskRef.of("EchoPair", "left", "echo")))
            if (s.fraction() > 0) return s.implementation().members().get(0);
        throw new AssertionError("no left service used by " + plan);
    }
}
