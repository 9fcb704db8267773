package io.moses.model;

/**
 * What a concrete service's provider promises (docs/model.md, "Entities").
 *
 * @param responseTime mean response time r [s], &gt; 0
 * @param availability a in (0, 1]
 * @param cost         cost per invocation c, &gt;= 0
 * @param maxRate      l, the highest request rate [req/s] the broker may send, &gt; 0
 */
public record ProviderSla(double responseTime, double availability, double cost, double maxRate) {
    public ProviderSla {
        Domain.positive("responseTime", responseTime);
        Domain.availability("availability", availability);
        Domain.nonNegative("cost", cost);
        Domain.positive("maxRate", maxRate);
    }
}
