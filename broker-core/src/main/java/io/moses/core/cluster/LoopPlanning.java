package io.moses.core.cluster;

import io.moses.core.loop.FeedbackLoop;
import io.moses.core.loop.KnowledgeCache;
import io.moses.model.Plan;
import io.moses.optimizer.PlanningInput;
import io.moses.sla.Planning;
import java.util.Set;

/** The managers' view of this replica's feedback loop: its planning input and a re-plan now. */
final class LoopPlanning implements Planning {
    private final FeedbackLoop loop;
    private final KnowledgeCache knowledge;
    private final LeaderRequests leader;

    LoopPlanning(FeedbackLoop loop, KnowledgeCache knowledge, LeaderRequests leader) {
        this.loop = loop;
        this.knowledge = knowledge;
        this.leader = leader;
    }

    @Override
    public PlanningInput input() {
        return loop.planningInput();
    }

    @Override
    public Replanned replan(String why, Set<String> without) {
        return leader.replan(why, without); // made by the optimizer leader, whichever replica asks
    }

    @Override
    public Plan current() {
        return knowledge.plan();
    }
}
