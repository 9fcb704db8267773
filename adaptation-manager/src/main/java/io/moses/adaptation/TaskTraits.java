package io.moses.adaptation;

import io.moses.model.Callback;
import io.moses.model.TaskRef;
import java.util.Map;
import java.util.Set;

/**
 * What the binding must know of the tasks besides the plan (docs/model.md): which are idempotent
 * (a second call is safe), which are stateful (a conversation stays with its provider), and which
 * are asynchronous (answered by a callback, within its timeout). A task named nowhere is none of
 * these.
 */
public record TaskTraits(Set<TaskRef> idempotent, Set<TaskRef> stateful, Map<TaskRef, Callback> asynchronous) {
    public static final TaskTraits NONE = new TaskTraits(Set.of(), Set.of(), Map.of());

    public TaskTraits {
        idempotent = Set.copyOf(idempotent);
        stateful = Set.copyOf(stateful);
        asynchronous = Map.copyOf(asynchronous);
    }

    /** Only these tasks idempotent. */
    public static TaskTraits idempotent(Set<TaskRef> tasks) {
        return new TaskTraits(tasks, Set.of(), Map.of());
    }
}
