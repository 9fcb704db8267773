/**
 * What the broker measures and serves at {@code /metrics} (Prometheus text): the request path's
 * timers (composite requests, concrete-service invokes), the JVM's meters, and gauges of the plan,
 * the classes against their SLAs and the concrete services as the monitors see them. The rest of
 * the broker reaches it only through {@link io.moses.core.metrics.BrokerMetrics}. Names:
 * docs/metrics.md.
 */
package io.moses.core.metrics;
