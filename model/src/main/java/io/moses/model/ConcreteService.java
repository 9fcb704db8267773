package io.moses.model;

import java.net.URI;
import java.util.Objects;

/**
 * A concrete service s_ij: an endpoint that implements one task, with its provider SLA.
 * Capacity (l) is one limit per endpoint: records that share an endpoint share it.
 *
 * @param name     unique name
 * @param task     the task it implements
 * @param endpoint the SOAP endpoint address
 * @param sla      the provider's SLA
 * @param mapping  how the abstract request and reply differ from this service's interface;
 *                 {@link PayloadMapping#IDENTITY} when they do not
 */
public record ConcreteService(String name, TaskRef task, URI endpoint, ProviderSla sla, PayloadMapping mapping) {
    public ConcreteService {
        Domain.name("name", name);
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(sla, "sla");
        mapping = mapping == null ? PayloadMapping.IDENTITY : mapping;
    }
}
