package io.moses.core.cluster;

import io.moses.core.loop.FeedbackLoop;
import io.moses.core.loop.KnowledgeCache;
import io.moses.core.loop.Replicas;
import io.moses.mdal.ReplanRequests;
import io.moses.optimizer.PlanResult;
import io.moses.sla.Planning;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decisions are the leader's: the plan that serves a change an SLA or Service Manager
 * has just stored is made by the optimizer leader, whichever replica took the change. A replica
 * that leads solves at once; any other asks the leader through the knowledge base and waits,
 * bounded, for the plan version that serves its request. The leader answers every pending request
 * with one solve ({@link #serve}, on a timer route).
 */
public final class LeaderRequests {
    private static final Logger log = LoggerFactory.getLogger(LeaderRequests.class);
    private static final long POLL_MILLIS = 50;

    private final ReplanRequests requests;
    private final Replicas replicas;
    private final FeedbackLoop loop;
    private final KnowledgeCache knowledge;
    private final String replica;
    private final Duration wait;

    /** @param wait how long an asking replica waits for the leader's answer (a lease takeover included) */
    public LeaderRequests(ReplanRequests requests, Replicas replicas, FeedbackLoop loop, KnowledgeCache knowledge, String replica, Duration wait) {
        this.requests = requests;
        this.replicas = replicas;
        this.loop = loop;
        this.knowledge = knowledge;
        this.replica = replica;
        this.wait = wait;
    }

    /** The plan that serves a stored change: this replica's own solve when it leads, else the leader's. */
    public Planning.Replanned replan(String why, Set<String> without) {
        if (replicas.leads()) return answer(loop.solveNow(why, without));
        String id = requests.ask(why, without, replica);
        long deadline = System.nanoTime() + wait.toNanos();
        while (System.nanoTime() < deadline) {
            Optional<ReplanRequests.Request> r = requests.request(id);
            if (r.isPresent() && r.get().answered()) {
                knowledge.refresh(); // the leader's plan, in force here before the reply
                long v = r.get().planVersion();
                return new Planning.Replanned(v > 0, knowledge.plan(), "planned by the optimizer leader: " + r.get().answer());
            }
            if (replicas.leads()) serve(); // this replica took the lease meanwhile: it answers itself
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        log.warn("no optimizer leader answered the plan request '{}' within {} ms: the change is stored, the next leader plans it",
                why, wait.toMillis());
        knowledge.load();
        return new Planning.Replanned(false, knowledge.plan(), "stored; no optimizer leader answered within " + wait.toSeconds()
                + " s: the next leader plans it");
    }

    /** The managers' view of this replica's feedback loop: its planning input, and re-plans made by the leader. */
    public Planning planning() {
        return new LoopPlanning(loop, knowledge, this);
    }

    /** On the leader: one solve for every request pending, each answered with the plan version that serves it. */
    public synchronized void serve() {
        if (!replicas.leads()) return;
        List<ReplanRequests.Request> pending = requests.pending();
        if (pending.isEmpty()) return;
        Set<String> reasons = new LinkedHashSet<>(), without = new TreeSet<>(), askers = new TreeSet<>();
        List<String> ids = new ArrayList<>();
        for (ReplanRequests.Request r : pending) {
            ids.add(r.id());
            reasons.add(r.reason());
            without.addAll(r.without());
            askers.add(r.requestedBy());
        }
        PlanResult result = loop.solveNow(String.join("; ", reasons) + " (asked by " + String.join(", ", askers) + ")", without);
        Planning.Replanned a = answer(result);
        requests.answer(ids, a.solved() && a.plan() != null ? a.plan().version() : 0, a.message());
    }

    private Planning.Replanned answer(PlanResult r) {
        if (r != null && r.hasPlan()) return new Planning.Replanned(true, r.plan(), r.message());
        // no new plan: still pick up the users and services just stored (the plan version did not move)
        knowledge.load();
        return new Planning.Replanned(false, knowledge.plan(), r == null ? "the optimizer is off" : r.message());
    }
}
