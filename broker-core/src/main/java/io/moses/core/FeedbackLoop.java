package io.moses.core;

import io.moses.adaptation.OutcomeLog;
import io.moses.core.engine.CompletedRequest;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.KnowledgeBaseException;
import io.moses.model.ConcreteService;
import io.moses.model.Observation;
import io.moses.model.Plan;
import io.moses.model.ServiceClass;
import io.moses.model.SlaEvent;
import io.moses.model.User;
import io.moses.monitor.ClassMonitor;
import io.moses.monitor.DriftDetector;
import io.moses.monitor.PathAnalyzer;
import io.moses.monitor.QosMonitor;
import io.moses.monitor.Replanner;
import io.moses.monitor.WsMonitor;
import io.moses.optimizer.OptimizationEngine;
import io.moses.optimizer.PlanResult;
import io.moses.optimizer.PlanningInput;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MAPE-K loop of one replica: the monitors observe (Monitor), the event-condition-action
 * rules decide that the plan no longer fits (Analyze), the Optimization Engine solves a new
 * one (Plan), the knowledge base publishes it and the Adaptation Manager binds by it
 * (Execute). Runs off the request path, on Camel timer routes.
 */
final class FeedbackLoop implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(FeedbackLoop.class);

    private final KnowledgeBase kb;
    private final Knowledge knowledge;
    private final OutcomeLog outcomes;
    private final Adaptation settings;
    private final OptimizationEngine optimizer;
    // a short window: the plan must follow a service that changes within seconds
    private final QosMonitor qos = new QosMonitor(500, 5_000);
    private final ClassMonitor classes = new ClassMonitor(500);
    private final PathAnalyzer paths = new PathAnalyzer(500);
    private final WsMonitor ws;
    private final Replanner replanner;
    private final DriftDetector<String> responseTimeDrift;
    private final DriftDetector<String> availabilityDrift;
    private final DriftDetector<String> visitsDrift;
    private final DriftDetector<String> slaBreaks;
    /** What the plan in force assumed: r and a per service, visits per class/task. */
    private final Map<String, Double> assumedResponseTime = new ConcurrentHashMap<>();
    private final Map<String, Double> assumedAvailability = new ConcurrentHashMap<>();
    private final Map<String, Double> assumedVisits = new ConcurrentHashMap<>();
    /** Concrete services the operator took out: planned as down until put back in. */
    private final java.util.Set<String> heldOut = ConcurrentHashMap.newKeySet();
    private volatile String lastChange = "none yet";

    FeedbackLoop(KnowledgeBase kb, Knowledge knowledge, OutcomeLog outcomes, Adaptation settings) {
        this.kb = kb;
        this.knowledge = knowledge;
        this.outcomes = outcomes;
        this.settings = settings;
        this.optimizer = settings.optimizer() ? new OptimizationEngine(OptimizationEngine.SolverChoice.parse(settings.solver())) : null;
        this.replanner = new Replanner(this::solve);
        this.responseTimeDrift = new DriftDetector<>(settings.responseTimeDrift(), 0.001, settings.holdMillis());
        this.availabilityDrift = new DriftDetector<>(settings.availabilityDrift(), 0.01, settings.holdMillis());
        this.visitsDrift = new DriftDetector<>(settings.visitsDrift(), 0.1, settings.holdMillis());
        // an SLA break (observed R above R_max, or A below A_min) is a drift of 0 from 0
        this.slaBreaks = new DriftDetector<>(0, 1, settings.holdMillis());
        this.ws = new WsMonitor(Duration.ofMillis(Math.max(200, settings.probeMillis() / 2)), 2, 2,
                (service, up) -> {
                    // back up: its failures while down no longer describe it
                    if (up) qos.forget(service);
                    replanner.request("concrete service " + service + (up ? " is back up" : " is down"));
                });
    }

    /** Solves a first plan when the knowledge base has none, so the broker starts adaptive. */
    void start() {
        if (optimizer != null && knowledge.planVersion() == 0) replanner.request("broker start: no plan yet");
        rememberAssumptions(Map.of());
    }

    /** Every finished composite request (on its thread: cheap). */
    void completed(CompletedRequest r) {
        if (r.serviceClass() == null) return;
        classes.record(r.serviceClass(), r.nanos() / 1e9, r.succeeded());
        if (settings.pathAnalyzer() && r.succeeded()) paths.record(r.serviceClass(), r.composite(), r.invokes());
    }

    /** The QoS Monitor's period: drain outcomes, write observations, run the rules. */
    void monitorTick() {
        long now = System.nanoTime();
        if (settings.qosMonitor()) {
            outcomes.drain(qos::record);
            Map<String, QosMonitor.ServiceStats> stats = qos.snapshot();
            Map<String, Double> r = new HashMap<>();
            Map<String, Double> a = new HashMap<>();
            stats.forEach((name, s) -> {
                if (s.samples() < settings.minSamples()) return;
                if (s.successes() > 0) r.put(name, s.responseTime());
                a.put(name, s.availability());
            });
            for (var d : responseTimeDrift.check(r, assumedResponseTime, now))
                replanner.request(String.format("concrete service %s: response time %.3f s, plan assumed %.3f s", d.key(), d.observed(), d.baseline()));
            for (var d : availabilityDrift.check(a, assumedAvailability, now))
                replanner.request(String.format("concrete service %s: availability %.4f, plan assumed %.4f", d.key(), d.observed(), d.baseline()));
            writeObservations(stats);
        }
        if (settings.pathAnalyzer()) {
            Map<String, Double> v = new HashMap<>();
            paths.visits().forEach((cls, visits) -> {
                if (visits.requests() >= settings.minSamples())
                    visits.perTask().forEach((task, n) -> v.put(cls + " " + task, n));
            });
            for (var d : visitsDrift.check(v, assumedVisits, now))
                replanner.request(String.format("visits of %s: %.2f per request, plan assumed %.2f", d.key(), d.observed(), d.baseline()));
        }
        checkSlas(now);
    }

    private void checkSlas(long now) {
        Map<String, Double> broken = new HashMap<>();
        Map<String, String> why = new HashMap<>();
        try {
            for (ServiceClass k : knowledge.classes()) {
                ClassMonitor.ClassStats s = classes.snapshot().get(k.name());
                if (s == null || s.requests() < settings.minSamples()) continue;
                boolean breaks = s.responseTime() > k.maxResponseTime() || s.availability() < k.minAvailability();
                broken.put(k.name(), breaks ? 1.0 : 0.0);
                why.put(k.name(), String.format("observed R %.3f s (max %.3f), A %.4f (min %.4f)", s.responseTime(),
                        k.maxResponseTime(), s.availability(), k.minAvailability()));
            }
        } catch (RuntimeException e) {
            return;
        }
        Map<String, Double> zero = new HashMap<>();
        broken.keySet().forEach(k -> zero.put(k, 0.0));
        for (var d : slaBreaks.check(broken, zero, now)) {
            String detail = why.get(d.key());
            try {
                kb.recordSlaEvent(new SlaEvent(Instant.now(), SlaEvent.Kind.VIOLATION, d.key(), null, detail));
            } catch (KnowledgeBaseException ignored) {
                // the event is in the log line below
            }
            replanner.request("class " + d.key() + " breaks its SLA: " + detail);
        }
    }

    private void writeObservations(Map<String, QosMonitor.ServiceStats> stats) {
        Instant at = Instant.now();
        try {
            for (QosMonitor.ServiceStats s : stats.values())
                if (s.successes() > 0)
                    kb.putServiceQos(new Observation.ServiceQos(s.service(), s.responseTime(), Math.max(1e-6, s.availability()), s.samples(), at));
        } catch (KnowledgeBaseException e) {
            // the database is away: the next period writes again
        }
    }

    /** The WS Monitor's period. */
    void probeTick() {
        if (!settings.wsMonitor()) return;
        Map<String, URI> endpoints = new HashMap<>();
        for (ConcreteService s : knowledge.services()) endpoints.put(s.name(), s.endpoint());
        ws.probe(endpoints);
    }

    /** Builds the program from what is known now, solves it and publishes the plan. */
    private void solve(String why) {
        if (optimizer == null) return;
        Plan before = knowledge.plan();
        PlanningInput.Builder in = PlanningInput.builder();
        Map<String, Double> load = new HashMap<>();
        for (User u : kb.users()) load.merge(u.serviceClass(), u.rate(), Double::sum);
        for (ServiceClass k : kb.serviceClasses()) in.serviceClass(k, load.getOrDefault(k.name(), 0.0));
        kb.compositeServices().forEach(in::composite);
        List<ConcreteService> services = kb.concreteServices();
        in.services(services);
        heldOut.forEach(in::down);
        ws.down().forEach(in::down);
        Map<String, QosMonitor.ServiceStats> stats = settings.qosMonitor() ? qos.snapshot() : Map.of();
        Instant now = Instant.now();
        stats.forEach((name, s) -> {
            if (s.successes() == 0) return;
            in.observed(new Observation.ServiceQos(name, s.responseTime(), Math.max(1e-6, s.availability()), s.samples(), now));
            in.successSamples(name, s.successLatencies());
        });
        Map<String, PathAnalyzer.Visits> visits = settings.pathAnalyzer() ? paths.visits() : Map.of();
        visits.forEach((cls, v) -> {
            if (v.requests() >= settings.minSamples()) in.visits(cls, v.perTask());
        });
        PlanningInput.Settings d = PlanningInput.Settings.defaults();
        in.settings(new PlanningInput.Settings(d.weightResponseTime(), d.weightAvailability(), d.weightCost(), d.margin(),
                d.objective(), d.maxParallel(), d.maxAlternate(), d.defaultFailureDetection(), settings.minSamples(),
                d.empiricalMinSamples(), d.timeoutSeconds()));
        PlanResult result = optimizer.plan(in.build(), why);
        if (!result.hasPlan()) {
            log.warn("no new plan ({}): {}; plan {} stays", why, result.message(), knowledge.planVersion());
            return;
        }
        Plan published = kb.publish(result.plan());
        knowledge.refresh();
        rememberAssumptions(stats);
        lastChange = why;
        log.info("plan {} ({}): objective {} -> {}, {} by {} in {} ms{}", published.version(), why,
                before == null ? "none" : String.format("%.4f", before.objective()), String.format("%.4f", published.objective()),
                result.status(), published.solver(), String.format("%.1f", published.solveMillis()),
                published.atRisk().isEmpty() ? "" : ", classes at risk " + published.atRisk().stream().map(Plan.ClassAtRisk::serviceClass).toList());
    }

    /** After a new plan, what it assumed becomes the baseline of the drift rules. */
    private void rememberAssumptions(Map<String, QosMonitor.ServiceStats> observed) {
        for (ConcreteService s : knowledge.services()) {
            QosMonitor.ServiceStats o = observed.get(s.name());
            boolean useObserved = o != null && o.samples() >= settings.minSamples() && o.successes() > 0;
            assumedResponseTime.put(s.name(), useObserved ? o.responseTime() : s.sla().responseTime());
            assumedAvailability.put(s.name(), useObserved ? o.availability() : s.sla().availability());
        }
        paths.visits().forEach((cls, v) -> v.perTask().forEach((task, n) -> assumedVisits.put(cls + " " + task, n)));
        responseTimeDrift.reset();
        availabilityDrift.reset();
        visitsDrift.reset();
    }

    Map<String, Object> status() {
        return Map.of("qosMonitor", settings.qosMonitor(), "wsMonitor", settings.wsMonitor(), "pathAnalyzer", settings.pathAnalyzer(),
                "optimizer", optimizer == null ? "off" : optimizer.solverName(), "solves", replanner.solves(),
                "down", ws.down(), "lastChange", lastChange);
    }

    /** A re-plan for a reason outside the monitors (this replica took over the optimizer lease). */
    void replan(String why) {
        if (optimizer != null) replanner.request(why);
    }

    long solves() {
        return replanner.solves();
    }

    /**
     * The operator takes a concrete service out of the plans (it is planned as down until put
     * back in) or puts it back, and asks for a new plan. False when nothing changed.
     */
    boolean holdOut(String service, boolean out) {
        boolean changed = out ? heldOut.add(service) : heldOut.remove(service);
        if (changed) replan("operator " + (out ? "took concrete service " + service + " out" : "put concrete service " + service + " back in"));
        return changed;
    }

    /** What the monitors see now, for the admin API and the gauges; read-only. */
    LiveView live() {
        Map<String, LiveView.Service> services = new java.util.TreeMap<>();
        qos.snapshot().forEach((name, s) -> services.put(name,
                new LiveView.Service(s.successes() > 0 ? s.responseTime() : Double.NaN, s.availability(), s.samples())));
        Map<String, LiveView.ServiceClass> classes = new java.util.TreeMap<>();
        this.classes.snapshot().forEach((name, c) -> classes.put(name,
                new LiveView.ServiceClass(c.responseTime(), c.availability(), c.requests())));
        return new LiveView(services, classes, java.util.Set.copyOf(ws.down()), java.util.Set.copyOf(heldOut), optimizer != null);
    }

    @Override
    public void close() {
        replanner.close();
    }
}
