package io.moses.core.engine;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One durable instance in full: its summary, each variable's current value as XML text (a
 * variable of a nested scope named {@code scope/variable}), and what it waits for.
 */
public record InstanceDetails(InstanceSummary summary, Map<String, String> variables, List<Wait> waitsFor) {
    public InstanceDetails {
        variables = Map.copyOf(variables);
        waitsFor = List.copyOf(waitsFor);
    }

    /**
     * A message route the instance has open ({@code kind} "message": {@code what} is the
     * correlator, partner link and operation, {@code key} the correlation key it waits for) or a
     * job it has scheduled ({@code kind} "timer" and others, ODE's job types in lower case, due at {@code due}).
     */
    public record Wait(String kind, String what, String key, Instant due) {}
}
