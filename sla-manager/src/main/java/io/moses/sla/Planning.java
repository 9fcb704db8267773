package io.moses.sla;

import io.moses.model.Plan;
import io.moses.optimizer.PlanningInput;
import java.util.Set;

/**
 * What the managers need from the broker's feedback loop: the optimizer's view of the world
 * now, and a re-plan that is published and in force on this replica before it returns.
 */
public interface Planning {

    /** What the optimizer plans with now: the knowledge base plus what the monitors observed. */
    PlanningInput input();

    /**
     * Solves a plan from what is known now, leaving out the concrete services in
     * {@code without}, publishes it and applies it on this replica before returning.
     */
    Replanned replan(String why, Set<String> without);

    /** The plan in force on this replica (null before the first). */
    Plan current();

    /**
     * The outcome of a re-plan.
     *
     * @param solved  whether a new plan was published (false: the optimizer is off, or found no plan)
     * @param plan    the plan in force after the call (new or not; null if there is none)
     * @param message one line: what the optimizer said
     */
    record Replanned(boolean solved, Plan plan, String message) {
        public long version() {
            return plan == null ? 0 : plan.version();
        }

        /** What the change did to the plan, for the caller's reply. */
        String note() {
            return solved ? "re-planned: plan " + version() : "plan " + version() + " unchanged (" + message + ")";
        }
    }
}
