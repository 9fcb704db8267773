package io.moses.core.loop;

import java.util.Map;
import java.util.Set;

/**
 * What the monitors of this replica see now: each concrete service's response time and
 * availability over the QoS Monitor's window, each class's over the class monitor's, which
 * services the WS Monitor finds down and which the operator took out. Read by the admin API and
 * the gauges of /metrics; never by the request path.
 */
public record LiveView(Map<String, Service> services, Map<String, ServiceClass> classes, Set<String> down, Set<String> heldOut,
                boolean optimizer) {

    /** @param responseTime mean of successful calls in seconds, NaN without one */
    public record Service(double responseTime, double availability, int samples) {}

    public record ServiceClass(double responseTime, double availability, int requests) {}

    public static final LiveView EMPTY = new LiveView(Map.of(), Map.of(), Set.of(), Set.of(), false);
}
