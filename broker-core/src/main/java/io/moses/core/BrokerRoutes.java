package io.moses.core;

import io.moses.core.cluster.LeaderRequests;
import io.moses.core.cluster.OptimizerLease;
import io.moses.core.cluster.ReplicaPresence;
import io.moses.core.frontend.ClassWorth;
import io.moses.core.frontend.RatePolicing;
import io.moses.core.loop.Adaptation;
import io.moses.core.loop.FeedbackLoop;
import io.moses.core.loop.KnowledgeCache;
import io.moses.core.operations.OperatorActions;
import io.moses.core.processes.Processes;
import io.moses.mdal.KnowledgeBaseException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replica's background work, each on a Camel timer route off the request path: the optimizer
 * lease, the knowledge refresh, the rate policing's shares, the cluster's process units, the
 * leader's answers to plan requests, the operator's switches, and the monitors (routes an
 * operator may stop and start: {@code qos-monitor}, {@code ws-monitor}).
 */
final class BrokerRoutes extends RouteBuilder {
    private static final Logger log = LoggerFactory.getLogger(BrokerRoutes.class);
    /** While the knowledge base is away, each route says so once a minute, one line, no stack trace. */
    private static final long OUTAGE_LOG_NANOS = 60_000_000_000L;
    private final Map<String, Long> lastOutageLog = new ConcurrentHashMap<>();
    private final BrokerConfig config;
    private final OptimizerLease lease;
    private final KnowledgeCache knowledge;
    private final ClassWorth classWorth;
    private final RatePolicing policing;
    private final ReplicaPresence presence;
    private final Processes processes;
    private final OperatorActions operatorActions;
    private final LeaderRequests leaderRequests;
    private final FeedbackLoop loop;
    private final io.moses.core.cluster.DurableTakeovers takeovers;

    BrokerRoutes(BrokerConfig config, OptimizerLease lease, KnowledgeCache knowledge, ClassWorth classWorth, RatePolicing policing,
                 ReplicaPresence presence, Processes processes, OperatorActions operatorActions, LeaderRequests leaderRequests,
                 FeedbackLoop loop, io.moses.core.cluster.DurableTakeovers takeovers) {
        this.config = config;
        this.lease = lease;
        this.knowledge = knowledge;
        this.classWorth = classWorth;
        this.policing = policing;
        this.presence = presence;
        this.processes = processes;
        this.operatorActions = operatorActions;
        this.leaderRequests = leaderRequests;
        this.loop = loop;
        this.takeovers = takeovers;
    }

    @Override
    public void configure() {
        // an unavailable knowledge base is an expected condition (an outage, a Galera quorum loss): the next tick tries again
        onException(KnowledgeBaseException.class).handled(true).process(this::outage);
        from("timer:optimizer-lease?period=" + lease.renewPeriod().toMillis() + "&delay=" + lease.renewPeriod().toMillis())
                .routeId("optimizer-lease").process(e -> lease.renew());
        from("timer:knowledge-refresh?period=" + config.refreshMillis() + "&delay=" + config.refreshMillis())
                .routeId("knowledge-refresh").process(e -> {
                    knowledge.refresh();
                    classWorth.update(knowledge.classes());
                });
        from("timer:rate-policing?period=" + lease.renewPeriod().toMillis() + "&delay=" + lease.renewPeriod().toMillis())
                .routeId("rate-policing").process(e -> {
                    policing.overRates(knowledge.overRates());
                    // always: the presence also tells the leader which replicas are gone (their durable instances move)
                    int live = presence.beat();
                    policing.update(knowledge.users(), live);
                });
        from("timer:durable-takeover?period=" + lease.renewPeriod().toMillis() + "&delay=" + lease.renewPeriod().toMillis())
                .routeId("durable-takeover").process(e -> takeovers.poll());
        from("timer:process-sync?period=" + config.refreshMillis() + "&delay=" + config.refreshMillis())
                .routeId("process-sync").process(e -> processes.poll());
        // the leader answers the other replicas' plan requests (no database read elsewhere)
        // the leader applies the operator's switches before it answers (a service put back in is planned with)
        from("timer:leader-requests?period=200&delay=200").routeId("leader-requests").process(e -> {
            if (lease.leads()) operatorActions.poll();
            leaderRequests.serve();
        });
        from("timer:operator-sync?period=500&delay=500").routeId("operator-sync").process(e -> operatorActions.poll());
        Adaptation a = config.adaptation();
        if (a.qosMonitor() || a.pathAnalyzer())
            from("timer:qos-monitor?period=" + a.monitorMillis() + "&delay=" + a.monitorMillis())
                    .routeId("qos-monitor").process(e -> loop.monitorTick());
        if (a.wsMonitor())
            from("timer:ws-monitor?period=" + a.probeMillis() + "&delay=" + a.probeMillis())
                    .routeId("ws-monitor").process(e -> loop.probeTick());
    }

    private void outage(Exchange e) {
        Throwable t = e.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        String route = e.getFromRouteId();
        long now = System.nanoTime();
        Long last = lastOutageLog.get(route);
        if (last != null && now - last < OUTAGE_LOG_NANOS) return;
        lastOutageLog.put(route, now);
        log.warn("{}: knowledge base unavailable, retried at its next tick (said once a minute while it lasts): {}", route,
                t == null ? "?" : t.getMessage());
    }
}
