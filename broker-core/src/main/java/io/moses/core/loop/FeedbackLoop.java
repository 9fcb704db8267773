package io.moses.core.loop;

import io.moses.adaptation.AdaptiveBinding;
import io.moses.adaptation.ServiceCallLog;
import io.moses.core.engine.CompletedRequest;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.KnowledgeBaseException;
import io.moses.model.ConcreteService;
import io.moses.model.Observation;
import io.moses.model.Plan;
import io.moses.model.SlaEvent;
import io.moses.monitor.ClassMonitor;
import io.moses.monitor.PathAnalyzer;
import io.moses.monitor.QosMonitor;
import io.moses.monitor.Replanner;
import io.moses.monitor.WsMonitor;
import io.moses.optimizer.OptimizationEngine;
import io.moses.optimizer.PlanResult;
import io.moses.optimizer.PlanningInput;
import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MAPE-K loop of one replica: the monitors observe (Monitor), the event-condition-action
 * rules decide that the plan no longer fits (Analyze), the Optimization Engine solves a new
 * one (Plan), the knowledge base publishes it and the Adaptation Manager binds by it
 * (Execute). Runs off the request path, on Camel timer routes.
 */
public final class FeedbackLoop implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(FeedbackLoop.class);

    private final KnowledgeBase kb;
    private final KnowledgeCache knowledge;
    private final ServiceCallLog outcomes;
    private final Adaptation settings;
    /** Monitor periods run since the start ({@code /admin/status}'s monitorPeriods). */
    private final java.util.concurrent.atomic.AtomicLong monitorPeriods = new java.util.concurrent.atomic.AtomicLong();
    private final OptimizationEngine optimizer;
    private final java.util.function.Supplier<OptimizationEngine> whatIfEngines;
    private OptimizationEngine whatIfOptimizer; // made on the first what-if
    private OptimizationEngine whatIfAdmission; // its admission questions: their plans are not the what-if's starting point
    private final Object whatIfLock = new Object();

    private final QosMonitor qos;
    private final AdaptiveBinding binding;
    private final ClassMonitor classes;
    private final PathAnalyzer paths;
    private final WsMonitor ws;
    private final Replanner replanner;
    /** The broker's wall clock, which observations and SLA events are stamped on. */
    private final Clock wall;
    private final ServiceEstimates estimates;
    private final ServiceQosRules serviceRules;
    private final ClassRules classRules;
    private final PlanningInputs inputs;
    private final ViolationPredictions predictions;
    /** Concrete services the operator took out: planned as down until put back in. */
    private final java.util.Set<String> heldOut = ConcurrentHashMap.newKeySet();
    private volatile String lastChange = "none yet";
    private final Replicas replicas;
    private final java.util.function.Supplier<java.util.Collection<io.moses.model.CompositeService>> deployed;

    /**
     * @param replicas      the cluster: only its leader re-plans, on the merged windows of all
     * @param deployed      the composites deployed on this broker (null: every composite the knowledge
     *                      base holds): only they are planned for
     * @param optimizer     the engine that solves the plans (null: this replica does not solve)
     * @param whatIfEngines makes the what-ifs' own engine, on the first what-if
     * @param monitors      what the loop observes with; its QoS Monitor on {@code nanos}
     * @param replanner     coalesces the re-plans; the loop gives it its solve
     * @param wall          the wall clock observations and SLA events are stamped on
     * @param nanos         the monotonic clock of the rules, the same the binding stamps its calls on
     */
    public FeedbackLoop(KnowledgeBase kb, KnowledgeCache knowledge, ServiceCallLog outcomes, Adaptation settings, Replicas replicas,
                 java.util.function.Supplier<java.util.Collection<io.moses.model.CompositeService>> deployed,
                 OptimizationEngine optimizer, java.util.function.Supplier<OptimizationEngine> whatIfEngines, Monitors monitors,
                 Replanner replanner, Clock wall, LongSupplier nanos) {
        this.replicas = replicas;
        this.deployed = deployed;
        this.kb = kb;
        this.knowledge = knowledge;
        this.outcomes = outcomes;
        this.settings = settings;
        this.optimizer = optimizer;
        this.whatIfEngines = whatIfEngines;
        this.qos = monitors.qos();
        this.classes = monitors.classes();
        this.paths = monitors.paths();
        this.ws = monitors.ws();
        this.wall = wall;
        this.binding = knowledge.binding();
        this.replanner = replanner;
        this.estimates = new ServiceEstimates(settings.minSamples());
        this.serviceRules = new ServiceQosRules(settings, qos, estimates, nanos);
        this.classRules = new ClassRules(settings, nanos);
        this.inputs = new PlanningInputs(kb, settings, estimates, wall, deployed);
        this.predictions = new ViolationPredictions(settings, nanos);
        ws.onChange((service, up) -> {
            if (up) {
                // back up: its failures while down no longer describe it
                qos.forget(service);
                inputs.forget(service);
                predictions.forget(service);
                binding.reinstate(service, "the WS Monitor finds it back up");
            } else {
                binding.eject(service, "the WS Monitor finds it down");
            }
            replanner.request("concrete service " + service + (up ? " is back up" : " is down"));
        });
        replanner.solveWith(this::solve);
        // services the plan does not use get a call now and then, so a recovered one is seen
        if (settings.qosMonitor()) binding.explore(java.time.Duration.ofMillis(2 * settings.monitorMillis()));
        // consecutive failures on the request path: a plan without it at once, not after the probes
        binding.onEjected((service, why) -> replanner.request("concrete service " + service + " ejected (" + why + ")"));
        // back after its trial call: a plan that may use it again
        binding.onReinstatedByTrial((service, why) -> replanner.request("concrete service " + service + " back in selection (" + why + ")"));
    }

    /**
     * Solves at start whenever the plan in force was not made by the optimizer for the services
     * now registered (no plan, a seed's hand-written plan, a plan naming services that are gone
     * or leaving a registered task unbound), so the broker starts on an optimal plan.
     */
    public void start() {
        String why = optimizer == null ? null : startReason(knowledge.plan(), knowledge.services());
        if (why != null) replanner.request("broker start: " + why);
        rememberAssumptions(Map.of());
    }

    /** Why the plan in force needs a solve at start, or null if the optimizer made it for these services. */
    static String startReason(Plan plan, List<ConcreteService> services) {
        if (plan == null) return "no plan yet";
        // every solver the optimizer uses names itself; "seed" and "static" plans are hand-made
        if (java.util.Set.of("seed", "static", "manual", "").contains(plan.solver()))
            return "plan " + plan.version() + " was not made by the optimizer (" + (plan.solver().isEmpty() ? "no solver" : plan.solver()) + ")";
        java.util.Set<String> registered = new java.util.HashSet<>();
        java.util.Set<io.moses.model.TaskRef> tasks = new java.util.HashSet<>();
        for (ConcreteService s : services) {
            registered.add(s.name());
            tasks.add(s.task());
        }
        java.util.Set<io.moses.model.TaskRef> bound = new java.util.HashSet<>();
        for (var e : plan.bindings().entrySet()) {
            bound.add(e.getKey().task());
            for (Plan.Share share : e.getValue())
                for (String m : share.implementation().members())
                    if (!registered.contains(m)) return "plan " + plan.version() + " names " + m + ", which is not registered";
        }
        for (io.moses.model.TaskRef t : tasks)
            if (!bound.contains(t)) return "plan " + plan.version() + " binds no class to " + t;
        return null;
    }

    /**
     * Every finished composite request (on its thread: cheap). Best-effort excess is left out of
     * the class's figures (the SLA check, the console): its class never promised it anything.
     */
    public void completed(CompletedRequest r) {
        if (r.serviceClass() == null) return;
        if (!r.bestEffort()) classes.record(r.serviceClass(), r.nanos() / 1e9, r.succeeded());
        if (settings.pathAnalyzer() && r.succeeded()) paths.record(r.serviceClass(), r.composite(), r.invokes());
    }

    /** The QoS Monitor's period: drain outcomes, write observations, run the rules. */
    public void monitorTick() {
        monitorPeriods.incrementAndGet();
        if (settings.qosMonitor()) {
            qos.recordAll(outcomes);
            Map<String, double[]> slow = slowInFlight();
            Map<String, QosMonitor.ServiceStats> local = qos.snapshot(slow);
            local.forEach((name, o) -> binding.expect(name, o.p99(), o.successes()));
            replicas.publish(local);
            Map<String, QosMonitor.ServiceStats> stats = replicas.merged(local);
            Map<String, QosMonitor.ServiceStats> latest = qos.latest(slow, settings.monitorMillis());
            Map<String, ConcreteService> services = new HashMap<>();
            for (ConcreteService s : knowledge.services()) services.put(s.name(), s);
            if (settings.forecast()) predictions.observe(latest);
            serviceRules.check(stats, latest, services).forEach(replanner::request);
            serviceRules.checkExplored(knowledge.plan()).forEach(replanner::request);
            writeObservations(stats, services);
        }
        if (settings.pathAnalyzer()) classRules.checkVisits(paths.visits()).forEach(replanner::request);
        checkSlas();
        if (settings.forecast() && settings.qosMonitor() && optimizer != null && replicas.leads()) predict();
    }

    /**
     * The proactive rule: a class predicted to cross its R_max is an SLA event and asks for a plan
     * made with its providers' forecast, as does a plan in force that the forecast breaks while
     * the prediction is open; a prediction whose time came is judged.
     */
    private void predict() {
        if (!predictions.anyWork()) return; // no provider rises: no input to build
        PlanningInput now;
        List<io.moses.model.ServiceClass> classList;
        Map<String, ClassMonitor.ClassStats> observed = classes.snapshot();
        try {
            now = planningInput();
            classList = knowledge.classes();
        } catch (RuntimeException e) {
            return; // the database is away: the next period predicts again
        }
        for (ViolationPredictions.Verdict v : predictions.judge(now, observed))
            if (!v.cameTrue()) record(SlaEvent.Kind.PREDICTION_MISSED, v.prediction().serviceClass(), v.detail());
        for (ViolationPredictions.Predicted p : predictions.check(knowledge.plan(), now, classList, observed)) {
            record(SlaEvent.Kind.PREDICTED_VIOLATION, p.serviceClass(), p.detail());
            replanner.request("class " + p.serviceClass() + " is predicted to break its SLA: " + p.detail());
        }
        for (String why : predictions.replansAhead(knowledge.plan(), now)) replanner.request("re-plan ahead, " + why);
    }

    private void record(SlaEvent.Kind kind, String serviceClass, String detail) {
        try {
            kb.recordSlaEvent(new SlaEvent(wall.instant(), kind, serviceClass, null, detail));
        } catch (KnowledgeBaseException ignored) {
            // the event is in the plan's reason or the counters
        }
    }

    /** Violations predicted, predictions that came true, and those that did not (/metrics). */
    public long predictedViolations() {
        return predictions.predicted();
    }

    public long predictionsConfirmed() {
        return predictions.confirmed();
    }

    public long predictionsMissed() {
        return predictions.missed();
    }

    private void checkSlas() {
        List<ClassRules.SlaBreak> breaks;
        try {
            breaks = classRules.checkSlas(knowledge.classes(), classes.snapshot());
        } catch (RuntimeException e) {
            return;
        }
        for (ClassRules.SlaBreak b : breaks) {
            try {
                kb.recordSlaEvent(new SlaEvent(wall.instant(), SlaEvent.Kind.VIOLATION, b.serviceClass(), null, b.detail()));
            } catch (KnowledgeBaseException ignored) {
                // the event is in the log line below
            }
            replanner.request("class " + b.serviceClass() + " breaks its SLA: " + b.detail());
        }
    }

    /** Calls in flight longer than the plan assumed, as censored samples ({@link ServiceQosRules#slowInFlight}). */
    private Map<String, double[]> slowInFlight() {
        return serviceRules.slowInFlight(binding.inFlight());
    }

    private void writeObservations(Map<String, QosMonitor.ServiceStats> stats, Map<String, ConcreteService> services) {
        Instant at = wall.instant();
        List<Observation.ServiceQos> observed = new java.util.ArrayList<>(stats.size());
        for (QosMonitor.ServiceStats s : stats.values()) {
            ConcreteService cs = services.get(s.service());
            if (s.successes() > 0 && cs != null)
                observed.add(new Observation.ServiceQos(s.service(), s.responseTime(),
                        Math.max(1e-6, ServiceEstimates.availability(cs.sla().availability(), s)), s.samples(), at));
        }
        try {
            kb.putServiceQos(observed); // one transaction a period
        } catch (KnowledgeBaseException e) {
            // the database is away: the next period writes again
        }
    }

    /** The WS Monitor's period. */
    public void probeTick() {
        if (!settings.wsMonitor()) return;
        Map<String, URI> endpoints = new HashMap<>();
        for (ConcreteService s : knowledge.services()) endpoints.put(s.name(), s.endpoint());
        ws.probe(endpoints);
        // a service the WS Monitor ejected that answered its probe is back in selection (and in
        // the plan); one ejected for failed calls waits for its trial call (the binding refuses)
        java.util.Set<String> answering = ws.answering();
        for (String s : binding.ejected())
            if (answering.contains(s) && !ws.down().contains(s) && binding.reinstate(s, "it answered a probe"))
                replanner.request("concrete service " + s + " answered a probe after its ejection");
    }

    /** Builds the program from what is known now, solves it and publishes the plan. */
    private void solve(String why) {
        if (!replicas.leads()) return; // in a cluster only the optimizer leader re-plans on the monitors' rules
        solveNow(why, java.util.Set.of());
    }

    /** What the optimizer plans with now: the knowledge base plus what the monitors observed. */
    public PlanningInput planningInput() {
        return input(observedStats(), java.util.Set.of());
    }

    /**
     * The plan the optimizer would make from {@code change} of what it plans with now, with an
     * engine of its own (the loop's remembers the plan in force as its next starting point):
     * nothing is published. Throws IllegalStateException when the optimizer is off. What-ifs go
     * one at a time on a lock of their own: with the admissible rates an answer takes many solves,
     * and the loop's re-plans must not wait for them.
     */
    public <T> T whatIf(java.util.function.Function<PlanningInput, T> change) {
        if (optimizer == null) throw new IllegalStateException("the optimizer is off: no what-if");
        synchronized (whatIfLock) {
            if (whatIfOptimizer == null) whatIfOptimizer = whatIfEngines.get();
            if (whatIfAdmission == null) whatIfAdmission = whatIfEngines.get();
            return change.apply(planningInput());
        }
    }

    /** The rate {@code serviceClass} can still admit on {@code in}, by the SLA Manager's rule; call inside {@link #whatIf}. */
    public double admissibleRate(PlanningInput in, String serviceClass) {
        return io.moses.sla.AdmissibleRate.of(whatIfAdmission, in, serviceClass);
    }

    /** The what-if engine's plan for {@code in}; call inside {@link #whatIf}. */
    public PlanResult planOnly(PlanningInput in) {
        return whatIfOptimizer.plan(in, "what-if");
    }

    private Map<String, QosMonitor.ServiceStats> observedStats() {
        return settings.qosMonitor() ? replicas.merged(qos.snapshot(slowInFlight())) : Map.of();
    }

    /**
     * Solves and publishes a plan on the caller's thread (the SLA and Service Managers: the
     * change is planned before they reply), leaving out the services in {@code without}.
     * One solve at a time, with the Replanner's. Null when the optimizer is off.
     */
    public synchronized PlanResult solveNow(String why, java.util.Set<String> without) {
        if (optimizer == null) return null;
        Plan before = knowledge.plan();
        Map<String, QosMonitor.ServiceStats> stats = observedStats();
        PlanResult result = optimizer.plan(planInput(stats, without), why);
        if (!result.hasPlan()) {
            // a broker whose processes have no managed services has nothing to plan: no warning
            if (result.message() != null && result.message().startsWith("nothing to plan"))
                log.info("no new plan ({}): {}; plan {} stays", why, result.message(), knowledge.planVersion());
            else log.warn("no new plan ({}): {}; plan {} stays", why, result.message(), knowledge.planVersion());
            return result;
        }
        Plan published = kb.publish(keepUnplanned(result, before));
        knowledge.refresh();
        rememberAssumptions(stats);
        lastChange = why;
        log.info("plan {} ({}): objective {} -> {}, {} by {} in {} ms{}", published.version(), why,
                before == null ? "none" : String.format("%.4f", before.objective()), String.format("%.4f", published.objective()),
                result.status(), published.solver(), String.format("%.1f", published.solveMillis()),
                published.atRisk().isEmpty() ? "" : ", classes at risk " + published.atRisk().stream().map(Plan.ClassAtRisk::serviceClass).toList());
        return new PlanResult(result.status(), published, result.message(), result.overloadedProviders(), result.diagnostics());
    }

    /**
     * The new plan, with the fractions the plan in force had for the composites the optimizer
     * could not plan this time (a task with every provider unavailable): the others' new plan
     * does not take away what those composites had.
     */
    private static Plan keepUnplanned(PlanResult result, Plan before) {
        Plan p = result.plan();
        if (result.unplanned().isEmpty() || before == null) return p;
        Map<Plan.Key, List<Plan.Share>> bindings = new HashMap<>(p.bindings());
        before.bindings().forEach((k, shares) -> {
            if (result.unplanned().containsKey(k.task().composite())) bindings.putIfAbsent(k, shares);
        });
        return new Plan(p.version(), p.created(), bindings, p.predictions(), p.objective(), p.solver(), p.solveMillis(), p.atRisk(), p.reason());
    }

    /** Which deployed composites the plans cover and why the others are not (this replica's view, no database). */
    PlanCoverage coverage() {
        java.util.Set<String> unavailable = new java.util.HashSet<>(ws.down());
        unavailable.addAll(heldOut);
        unavailable.addAll(binding.ejected());
        java.util.Collection<io.moses.model.CompositeService> here = deployed == null ? List.of() : deployed.get();
        return PlanCoverage.of(here, knowledge.services(), unavailable, knowledge.statefulTasks());
    }

    private PlanningInput input(Map<String, QosMonitor.ServiceStats> stats, java.util.Set<String> without) {
        java.util.Set<String> out = new java.util.HashSet<>(heldOut);
        out.addAll(without);
        return inputs.input(stats, settings.pathAnalyzer() ? paths.visits() : Map.of(), ws.down(), out, binding.ejected());
    }

    /** The input of a plan: as {@link #input}, with the forecast of the providers driving a predicted violation. */
    private PlanningInput planInput(Map<String, QosMonitor.ServiceStats> stats, java.util.Set<String> without) {
        PlanningInput in = input(stats, without);
        Map<String, Double> ahead = predictions.ahead(knowledge.plan());
        return ahead.isEmpty() ? in : in.withResponseTimes(ahead);
    }

    /** After a new plan, what it assumed becomes the baseline of the drift rules. */
    private void rememberAssumptions(Map<String, QosMonitor.ServiceStats> observed) {
        serviceRules.assume(observed, knowledge.services());
        classRules.assume(paths.visits());
    }

    public Map<String, Object> status() {
        Map<String, Object> m = new java.util.LinkedHashMap<>(Map.of("qosMonitor", settings.qosMonitor(), "wsMonitor", settings.wsMonitor(), "pathAnalyzer", settings.pathAnalyzer(),
                "optimizer", optimizer == null ? "off" : optimizer.solverName(), "solves", replanner.solves(),
                "down", ws.down(), "ejected", binding.ejected(), "retries", binding.retries(),
                "explorations", binding.explorations(), "lastChange", lastChange));
        m.put("abandoned", binding.abandoned());
        // asynchronous tasks' calls: awaited now, and callbacks that came late, were discarded
        // (their call went to another provider) or moved a call on
        m.put("callbacks", Map.of("awaited", binding.callbacksAwaited(), "late", binding.lateCallbacks(),
                "discarded", binding.discardedCallbacks(), "resent", binding.lateResends()));
        m.put("planning", coverage().toJson());
        m.put("monitorPeriods", monitorPeriods.get()); // the monitors' clock: what a test or a script may step by
        if (!inputs.notDeployed().isEmpty()) m.put("notDeployed", inputs.notDeployed());
        return m;
    }

    /** A re-plan for a reason outside the monitors (this replica took over the optimizer lease). */
    public void replan(String why) {
        if (optimizer != null) replanner.request(why);
    }

    public long solves() {
        return replanner.solves();
    }

    /**
     * The concrete services operators have taken out of the plans (the cluster's switches, see
     * {@code OperatorActions}): planned as down until put back in. No re-plan here: the leader makes it.
     */
    public void heldOut(java.util.Set<String> services) {
        heldOut.retainAll(services);
        heldOut.addAll(services);
    }

    /** What the monitors see now, for the admin API and the gauges; read-only. */
    public LiveView live() {
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
