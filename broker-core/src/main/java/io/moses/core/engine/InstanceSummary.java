package io.moses.core.engine;

import java.time.Instant;
import java.util.Map;

/**
 * One durable process instance as an operator sees it in a list.
 *
 * @param process     the process type, {@code {namespace}name}
 * @param version     the version of its unit the instance runs on
 * @param state       new, ready, active, suspended, completed, faulted or terminated
 * @param lastActive  when it last ran (null: never since it started)
 * @param correlation each correlation set's property values: set name, property's local name, value
 * @param owner       the replica that runs its jobs or holds its conversation, or null (none: finished)
 */
public record InstanceSummary(long id, String process, long version, String state, Instant started, Instant lastActive,
                              Map<String, Map<String, String>> correlation, String owner) {
    public InstanceSummary {
        correlation = Map.copyOf(correlation);
    }
}
