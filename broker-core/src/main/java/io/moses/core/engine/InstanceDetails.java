package io.moses.core.engine;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One durable instance in full: its summary, each variable's current value as XML text (a
 * variable of a nested scope named {@code scope/variable}), what it waits for, and the fault it
 * ended with (null unless it did).
 */
public record InstanceDetails(InstanceSummary summary, Map<String, String> variables, List<Wait> waitsFor, Fault fault) {
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

    /** The fault an instance ended with: its name, ODE's explanation (may be null) and the line of the process it was thrown at. */
    public record Fault(String name, String explanation, int line) {}
}
