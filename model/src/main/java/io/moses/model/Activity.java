package io.moses.model;

import java.util.List;

/**
 * The activity tree of a composite service (docs/model.md, "Workflow and visits"): only the structure that
 * matters for response time, availability, cost and visits. Every node carries a stable
 * {@code id} (its path in the BPEL document) so that measured branch probabilities and loop
 * iterations can be attached to it.
 */
public sealed interface Activity {

    String id();

    /** An {@code <invoke>} of a task. */
    record Invoke(String id, TaskRef task) implements Activity {}

    /** Children run one after the other. */
    record Sequence(String id, List<Activity> children) implements Activity {
        public Sequence { children = List.copyOf(children); }
    }

    /** Branches run concurrently; the flow ends when all have ended. */
    record Flow(String id, List<Activity> branches) implements Activity {
        public Flow { branches = List.copyOf(branches); }
    }

    /**
     * Exactly one branch runs: an {@code if} (an {@code if} without {@code else} has an
     * empty branch) or a {@code pick}. Branch i has probability p_i per class.
     */
    record Choice(String id, Kind kind, List<Activity> branches) implements Activity {
        public enum Kind { IF, PICK }
        public Choice { branches = List.copyOf(branches); }
    }

    /**
     * A body repeated n times in sequence: {@code while} (n >= 0), {@code repeatUntil}
     * (n >= 1), sequential {@code forEach}.
     */
    record Loop(String id, Kind kind, Activity body) implements Activity {
        public enum Kind { WHILE, REPEAT_UNTIL, FOR_EACH }
    }

    /** A parallel {@code forEach}: N copies of the body run concurrently. */
    record ParallelForEach(String id, Activity body) implements Activity {}

    /**
     * Anything that invokes nothing on the request's path (assign, empty, receive, reply,
     * wait, ...). Fault, compensation and event handlers also count as this.
     */
    record NoOp(String id, String kind) implements Activity {}
}
