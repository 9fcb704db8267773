package io.moses.core.operations;

import io.moses.core.cluster.LeaderRequests;
import io.moses.core.loop.FeedbackLoop;
import io.moses.mdal.KnowledgeBaseException;
import io.moses.mdal.OperatorSwitches;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.camel.CamelContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's actions are the cluster's. A monitor switched off or on and a
 * concrete service taken out or put back are stored in the knowledge base and applied here at
 * once; every replica polls the switches' version ({@link #poll}, about twice a second) and applies
 * what changed, so each replica's monitors and plans, and its /admin/status and console, show the
 * same state; a replica that starts applies them before it is ready. The plan that follows a
 * service taken out, and a forced re-plan, are the optimizer leader's ({@link LeaderRequests}).
 */
public final class OperatorActions {
    private static final Logger log = LoggerFactory.getLogger(OperatorActions.class);
    /** The monitors an operator may switch off and on: their Camel timer routes. */
    static final List<String> MONITOR_ROUTES = List.of("qos-monitor", "ws-monitor");

    private final OperatorSwitches switches;
    private final Supplier<CamelContext> camel;
    private final FeedbackLoop loop;
    private final LeaderRequests leader;
    private long seen = -1;

    public OperatorActions(OperatorSwitches switches, Supplier<CamelContext> camel, FeedbackLoop loop, LeaderRequests leader) {
        this.switches = switches;
        this.camel = camel;
        this.loop = loop;
        this.leader = leader;
    }

    /** Each monitor route of this replica and whether it runs. */
    Map<String, Boolean> monitors() {
        Map<String, Boolean> m = new LinkedHashMap<>();
        CamelContext c = camel.get();
        if (c == null) return m;
        for (String id : MONITOR_ROUTES) {
            var status = c.getRouteController().getRouteStatus(id);
            if (status != null) m.put(id, status.isStarted());
        }
        return m;
    }

    /** Switches a monitor on or off on every replica; IllegalArgumentException for one this replica does not have. */
    synchronized void monitor(String name, boolean on, String operator) {
        CamelContext c = camel.get();
        if (c == null || !MONITOR_ROUTES.contains(name) || c.getRoute(name) == null)
            throw new IllegalArgumentException("no monitor " + name + " on this broker (monitors: " + monitors().keySet() + ")");
        switches.switchMonitor(name, on, operator);
        run(c, name, on);
    }

    /**
     * Takes a concrete service out of every replica's plans or puts it back, then has the leader
     * re-plan; false when it already was so. IllegalStateException when this replica's optimizer is off.
     */
    boolean holdOut(String service, boolean out, String operator) {
        // without an optimizer no new plan would follow: the service would keep its traffic
        if (!loop.live().optimizer()) throw new IllegalStateException("taking a service out needs the optimizer, which is off on this broker");
        boolean changed;
        synchronized (this) {
            changed = switches.holdOut(service, out, operator);
            Set<String> now = new java.util.HashSet<>(loop.live().heldOut());
            if (out) now.add(service);
            else now.remove(service);
            loop.heldOut(now);
        }
        // the leader applies the switch before it answers (see poll's caller); an out service is also named
        if (changed) leader.replan("operator " + (out ? "took concrete service " + service + " out" : "put concrete service " + service + " back in"),
                out ? Set.of(service) : Set.of());
        return changed;
    }

    /** A new plan now, made by the optimizer leader; its answer. IllegalStateException when this replica's optimizer is off. */
    String replan(String why) {
        if (!loop.live().optimizer()) throw new IllegalStateException("the optimizer is off on this broker (--optimizer off)");
        return leader.replan(why, Set.of()).message();
    }

    /** Applies the switches stored since the last poll; one cheap read when nothing changed. */
    public synchronized void poll() {
        try {
            if (switches.version() == seen) return;
            OperatorSwitches.State s = switches.state();
            boolean applied = false;
            CamelContext c = camel.get();
            if (c != null)
                for (String id : MONITOR_ROUTES) {
                    var status = c.getRouteController().getRouteStatus(id);
                    boolean on = !s.monitorsOff().contains(id);
                    if (status == null || status.isStarted() == on) continue;
                    applied = true;
                    try {
                        run(c, id, on);
                    } catch (IllegalStateException e) {
                        log.warn("{}", e.getMessage());
                    }
                }
            if (!s.servicesOut().equals(loop.live().heldOut())) {
                loop.heldOut(s.servicesOut());
                applied = true;
            }
            // one line where a change arrives from another replica (or at start); the replica that took it has logged it
            if (applied) log.info("operator switches applied (version {}): monitors off {}, concrete services out {}", s.version(),
                    new java.util.TreeSet<>(s.monitorsOff()), new java.util.TreeSet<>(s.servicesOut()));
            seen = s.version();
        } catch (KnowledgeBaseException e) {
            log.debug("operator switches not polled: {}", e.getMessage()); // the knowledge refresh reports outages
        }
    }

    private static void run(CamelContext c, String route, boolean on) {
        try {
            if (on) c.getRouteController().startRoute(route);
            else c.getRouteController().stopRoute(route, 5, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("monitor " + route + " did not " + (on ? "start" : "stop") + ": " + e.getMessage(), e);
        }
    }
}
