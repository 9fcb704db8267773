package io.moses.model;

/**
 * A service class k: a level of service the broker sells (docs/model.md, "Entities").
 *
 * @param name            unique name
 * @param maxResponseTime R_max [s], &gt; 0
 * @param minAvailability A_min in (0, 1)
 * @param maxCost         C_max per request, &gt; 0
 * @param price           P per request, &gt;= 0
 */
public record ServiceClass(String name, double maxResponseTime, double minAvailability, double maxCost, double price) {
    public ServiceClass {
        Domain.name("name", name);
        Domain.positive("maxResponseTime", maxResponseTime);
        Domain.openUnit("minAvailability", minAvailability);
        Domain.positive("maxCost", maxCost);
        Domain.nonNegative("price", price);
    }
}
