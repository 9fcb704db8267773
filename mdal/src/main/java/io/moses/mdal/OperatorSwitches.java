package io.moses.mdal;

import java.util.Set;

/**
 * The operator's switches, which every replica applies: monitors switched off and
 * concrete services taken out of the plans. Every change takes the next {@link #version()}, the
 * one cheap number a replica polls. A switch nobody moved is at its default: a monitor runs, a
 * service is in. Errors as in {@link KnowledgeBase}.
 */
public interface OperatorSwitches {

    /** The switches as they stand at {@code version}. */
    record State(long version, Set<String> monitorsOff, Set<String> servicesOut) {
        public State {
            monitorsOff = Set.copyOf(monitorsOff);
            servicesOut = Set.copyOf(servicesOut);
        }
    }

    long version();

    State state();

    /** Switches monitor {@code name} on or off; true when that changed the state (the version moved). */
    boolean switchMonitor(String name, boolean on, String operator);

    /**
     * Takes concrete service {@code name} out of the plans or puts it back in; true when that
     * changed the state. CONFLICT when every other service of its task is out: the last one in stays in.
     */
    boolean holdOut(String name, boolean out, String operator);
}
