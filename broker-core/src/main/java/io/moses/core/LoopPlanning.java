package io.moses.core;

import io.moses.model.Plan;
import io.moses.optimizer.PlanResult;
import io.moses.optimizer.PlanningInput;
import io.moses.sla.Planning;
import java.util.Set;

/** The managers' view of this replica's feedback loop: its planning input and a re-plan now. */
final class LoopPlanning implements Planning {
    private final FeedbackLoop loop;
    private final KnowledgeCache knowledge;

    LoopPlanning(FeedbackLoop loop, KnowledgeCache knowledge) {
        this.loop = loop;
        this.knowledge = knowledge;
    }

    @Override
    public PlanningInput input() {
        return loop.planningInput();
    }

    @Override
    public Replanned replan(String why, Set<String> without) {
        PlanResult r = loop.solveNow(why, without);
        if (r != null && r.hasPlan()) return new Replanned(true, r.plan(), r.message());
        // no new plan: still pick up the users and services just stored (the plan version did not move)
        knowledge.load();
        return new Replanned(false, knowledge.plan(), r == null ? "the optimizer is off" : r.message());
    }

    @Override
    public Plan current() {
        return knowledge.plan();
    }
}
