package io.moses.core.operations;

import io.moses.core.cluster.OptimizerLease;
import io.moses.core.engine.BpelEngine;
import io.moses.core.loop.FeedbackLoop;
import io.moses.core.loop.KnowledgeCache;
import io.moses.core.processes.Processes;
import io.moses.mdal.KnowledgeBase;
import jakarta.servlet.http.HttpServlet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What a load balancer and an operator read of one replica: {@code /health} (readiness) and
 * {@code /health/live} (liveness).
 */
public final class Health {
    /** Readiness: STARTING until every unit is served and the plan loaded, DRAINING from close(). */
    public enum State { STARTING, READY, DRAINING, STOPPED }

    private final Supplier<State> state;
    private final String replica;
    private final boolean staticBinding;
    private final BpelEngine engine;
    private final KnowledgeBase kb;
    private final KnowledgeCache knowledge;
    private final OptimizerLease lease;
    private final FeedbackLoop loop;
    private final Processes processes;

    public Health(Supplier<State> state, String replica, boolean staticBinding, BpelEngine engine, KnowledgeBase kb,
                  KnowledgeCache knowledge, OptimizerLease lease, FeedbackLoop loop, Processes processes) {
        this.state = state;
        this.replica = replica;
        this.staticBinding = staticBinding;
        this.engine = engine;
        this.kb = kb;
        this.knowledge = knowledge;
        this.lease = lease;
        this.loop = loop;
        this.processes = processes;
    }

    /** Whether {@code /health} answers UP: what the balancer sends traffic on (/metrics's moses_replica_ready). */
    public boolean ready() {
        return "UP".equals(status(engine != null && engine.isRunning(), unitsFailed()));
    }

    private List<String> unitsFailed() {
        return processes == null ? List.of() : processes.failedHere();
    }

    private String status(boolean engineUp, List<String> unitsFailed) {
        State st = state.get();
        String status = !engineUp && st == State.READY ? "DOWN" : st == State.READY ? "UP" : st == State.STOPPED ? "DOWN" : st.name();
        // a stored unit this replica could not apply: not the cluster's service, out of the balancer until fixed
        return "UP".equals(status) && !unitsFailed.isEmpty() ? "DEGRADED" : status;
    }

    /** GET /health: the readiness below. */
    public HttpServlet readiness() {
        return new HealthServlet(this::health);
    }

    /** GET /health/live: the process answers and its engine runs, whether or not it takes traffic. */
    public HttpServlet liveness() {
        return new HealthServlet(() -> Map.of("status", engine.isRunning() ? "UP" : "DOWN", "readiness", state.get().name()));
    }

    /**
     * The readiness a balancer checks: UP (200) only when every unit is served, the plan loaded
     * and the replica not stopping; STARTING, DRAINING or DOWN (503) otherwise. The database is
     * not part of it: replicas serve through an outage with the plan they have.
     */
    Map<String, Object> health() {
        Map<String, Object> h = new LinkedHashMap<>();
        boolean up = engine != null && engine.isRunning();
        List<String> unitsFailed = unitsFailed();
        h.put("status", status(up, unitsFailed));
        if (!unitsFailed.isEmpty()) h.put("unitsFailed", unitsFailed);
        h.put("replica", replica);
        if (lease != null) {
            var seen = lease.lastSeen();
            h.put("optimizerLeader", lease.leads());
            h.put("lease", seen == null ? "unknown" : seen.holder() + " (term " + seen.term() + ")");
        }
        h.put("engine", up ? "running" : "stopped");
        // up or down only: /health answers anyone, and the database's address is not theirs to know
        h.put("database", kb == null ? "none" : knowledge.databaseUp() ? "up" : "down");
        h.put("planVersion", knowledge == null ? 0 : knowledge.planVersion());
        h.put("binding", staticBinding ? "static" : "adaptive");
        if (loop != null) h.put("adaptation", loop.status());
        // the composite services provided here (the JSON field keeps its name)
        h.put("services", processes.providedServices().stream().map(s -> Map.of("composite", s.composite(),
                "path", "/services" + s.path(), "operations", s.operations())).toList());
        h.put("composites", processes.composites().stream().map(c -> Map.of("name", c.name(),
                "tasks", c.tasks().stream().map(t -> t.name()).toList())).toList());
        return h;
    }
}
