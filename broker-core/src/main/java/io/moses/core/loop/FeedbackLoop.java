package io.moses.core.loop;

import io.moses.adaptation.AdaptiveBinding;
import io.moses.adaptation.ServiceCallLog;
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
public final class FeedbackLoop implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(FeedbackLoop.class);

    private final KnowledgeBase kb;
    private final KnowledgeCache knowledge;
    private final ServiceCallLog outcomes;
    private final Adaptation settings;
    private final OptimizationEngine optimizer;
    private OptimizationEngine whatIfOptimizer; // made on the first what-if
    /**
     * Weight of the Beta prior on a provider's promised availability, in calls: a few seconds of
     * successes do not read as 1.0 (docs/model.md, "Estimates from observations").
     */
    static final double PRIOR_WEIGHT = 30;
    /** Recent outcomes of a service the plan does not use (explorations) that can show it changed. */
    static final int EXPLORED_SAMPLES = 3;
    /** Samples (replies, censored included) the last monitor period needs to stand for the service's response time. */
    static final int LATEST_SAMPLES = 5;
    /** The shortest wait for a WS Monitor probe's answer before it counts as failed. */
    static final long PROBE_TIMEOUT_MILLIS = 2_000;

    // a short window: the plan must follow a service that changes within seconds
    private final QosMonitor qos;
    private final AdaptiveBinding binding;
    private final ClassMonitor classes = new ClassMonitor(500);
    private final PathAnalyzer paths = new PathAnalyzer(500);
    private final WsMonitor ws;
    private final Replanner replanner;
    private final DriftDetector<String> responseTimeDrift;
    private final DriftDetector<String> availabilityDrift;
    private final DriftDetector<String> visitsDrift;
    private final DriftDetector<String> slaBreaks;
    private final DriftDetector<String> exploredDrift;
    /** Last measured failure-detection time f_j per service [s]: kept when the window has no failures. */
    private final Map<String, Double> failureTime = new ConcurrentHashMap<>();
    /**
     * Services whose response time drifted: their outcomes from before the change are forgotten,
     * and what they did since stands for them even with fewer than the minimum samples.
     */
    private final Map<String, Long> changed = new ConcurrentHashMap<>();
    /** What the plan in force assumed: r and a per service, visits per class/task. */
    private final Map<String, Double> assumedResponseTime = new ConcurrentHashMap<>();
    private final Map<String, Double> assumedAvailability = new ConcurrentHashMap<>();
    private final Map<String, Double> assumedVisits = new ConcurrentHashMap<>();
    /** Concrete services the operator took out: planned as down until put back in. */
    private final java.util.Set<String> heldOut = ConcurrentHashMap.newKeySet();
    private volatile String lastChange = "none yet";
    private final Replicas replicas;
    private final java.util.function.Supplier<java.util.Collection<io.moses.model.CompositeService>> deployed;
    /** Composites the knowledge base holds that are not deployed here: not planned (logged when it changes). */
    private volatile java.util.Set<String> notDeployed = java.util.Set.of();

    FeedbackLoop(KnowledgeBase kb, KnowledgeCache knowledge, ServiceCallLog outcomes, Adaptation settings) {
        this(kb, knowledge, outcomes, settings, Replicas.ALONE, null);
    }

    /**
     * @param replicas the cluster: only its leader re-plans, on the merged windows of all
     * @param deployed the composites deployed on this broker (null: every composite the knowledge
     *                 base holds): only they are planned for
     */
    public FeedbackLoop(KnowledgeBase kb, KnowledgeCache knowledge, ServiceCallLog outcomes, Adaptation settings, Replicas replicas,
                 java.util.function.Supplier<java.util.Collection<io.moses.model.CompositeService>> deployed) {
        this.replicas = replicas;
        this.deployed = deployed;
        this.kb = kb;
        this.knowledge = knowledge;
        this.outcomes = outcomes;
        this.settings = settings;
        this.optimizer = settings.optimizer() ? new OptimizationEngine(OptimizationEngine.SolverChoice.parse(settings.solver())) : null;
        this.qos = new QosMonitor(500, 5_000, settings.minSamples(), System::nanoTime);
        this.binding = knowledge.binding();
        this.replanner = new Replanner(this::solve);
        // a slowdown 10 -> 300 ms acts within a monitor period; a small drift still waits the hold
        this.responseTimeDrift = DriftDetector.proportional(settings.responseTimeDrift(), 0.001, settings.holdMillis());
        this.exploredDrift = DriftDetector.proportional(settings.responseTimeDrift(), 0.001, settings.holdMillis());
        this.availabilityDrift = DriftDetector.proportional(settings.availabilityDrift(), 0.01, settings.holdMillis());
        this.visitsDrift = new DriftDetector<>(settings.visitsDrift(), 0.1, settings.holdMillis());
        // an SLA break (observed R above R_max, or A below A_min) is a drift of 0 from 0
        this.slaBreaks = new DriftDetector<>(0, 1, settings.holdMillis());
        // a probe's timeout is generous: a WSDL slower than that is the QoS Monitor's business, and
        // at half a short period (250 ms) a loaded machine once timed out every probe twice in a row
        // and took every provider down at once; a dead provider refuses, which acts at once
        this.ws = new WsMonitor(Duration.ofMillis(Math.max(PROBE_TIMEOUT_MILLIS, settings.probeMillis())), 2, 2,
                (service, up) -> {
                    if (up) {
                        // back up: its failures while down no longer describe it
                        qos.forget(service);
                        failureTime.remove(service);
                        binding.reinstate(service, "the WS Monitor finds it back up");
                    } else {
                        binding.eject(service, "the WS Monitor finds it down");
                    }
                    replanner.request("concrete service " + service + (up ? " is back up" : " is down"));
                });
        // services the plan does not use get a call now and then, so a recovered one is seen
        if (settings.qosMonitor()) binding.explore(java.time.Duration.ofMillis(2 * settings.monitorMillis()));
        // consecutive failures on the request path: a plan without it at once, not after the probes
        binding.onEjected((service, why) -> replanner.request("concrete service " + service + " ejected (" + why + ")"));
        // back after its trial call: a plan that may use it again
        binding.onReadmitted((service, why) -> replanner.request("concrete service " + service + " back in selection (" + why + ")"));
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
        long now = System.nanoTime();
        if (settings.qosMonitor()) {
            outcomes.drain(qos::record);
            Map<String, double[]> slow = slowInFlight();
            Map<String, QosMonitor.ServiceStats> local = qos.snapshot(slow);
            replicas.publish(local);
            Map<String, QosMonitor.ServiceStats> stats = replicas.merged(local);
            Map<String, QosMonitor.ServiceStats> latest = qos.latest(slow, settings.monitorMillis());
            Map<String, ConcreteService> services = new HashMap<>();
            for (ConcreteService s : knowledge.services()) services.put(s.name(), s);
            Map<String, Double> r = new HashMap<>();
            Map<String, Double> a = new HashMap<>();
            stats.forEach((name, s) -> {
                // the last period when it has enough replies (a slowdown is not diluted by the
                // seconds before it), else the whole window
                QosMonitor.ServiceStats l = latest.get(name);
                if (l != null && l.successes() + l.censored() >= LATEST_SAMPLES && !Double.isNaN(l.responseTime()))
                    r.put(name, l.responseTime());
                else if (observedResponseTime(name, s) != null)
                    r.put(name, s.responseTime());
                ConcreteService cs = services.get(name);
                // the Beta posterior is honest with few samples: no minimum needed
                if (cs != null && s.samples() > 0) a.put(name, s.availability(cs.sla().availability(), PRIOR_WEIGHT));
            });
            for (var d : responseTimeDrift.check(r, assumedResponseTime, now, settings.monitorMillis() * 1_000_000L)) {
                // the service changed about when the drift began (the window mean lags by up to a
                // period): the plan is made from what it does since
                qos.forgetBefore(d.key(), d.sinceNanos() - settings.monitorMillis() * 1_000_000L, LATEST_SAMPLES);
                changed.put(d.key(), d.sinceNanos());
                replanner.request(String.format("concrete service %s: response time %.3f s, plan assumed %.3f s", d.key(), d.observed(), d.baseline()));
            }
            for (var d : availabilityDrift.check(a, assumedAvailability, now))
                replanner.request(String.format("concrete service %s: availability %.4f, plan assumed %.4f", d.key(), d.observed(), d.baseline()));
            checkExplored(now);
            writeObservations(stats, services);
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

    /**
     * Calls in flight longer than the plan assumed (by more than the drift threshold), as
     * censored samples: a slowdown shows before its slow replies arrive.
     */
    private Map<String, double[]> slowInFlight() {
        Map<String, double[]> out = new HashMap<>();
        binding.inFlight().forEach((name, ages) -> {
            Double assumed = assumedResponseTime.get(name);
            if (assumed == null) return;
            double limit = assumed * (1 + settings.responseTimeDrift());
            double[] slow = java.util.Arrays.stream(ages).filter(age -> age > limit).toArray();
            if (slow.length > 0) out.put(name, slow);
        });
        return out;
    }

    /**
     * A service the plan does not use is called only by exploration: a few recent calls that
     * differ from what the plan assumed mean it changed (a provider that recovered); its older
     * outcomes are forgotten and the optimizer plans with what it is now.
     */
    private void checkExplored(long now) {
        Plan plan = knowledge.plan();
        if (plan == null) return;
        java.util.Set<String> used = new java.util.HashSet<>();
        plan.bindings().values().forEach(shares -> shares.forEach(sh -> {
            if (sh.fraction() > 0) used.addAll(sh.implementation().members());
        }));
        Map<String, Double> r = new HashMap<>();
        qos.recent().forEach((name, s) -> {
            if (!used.contains(name) && s.successes() >= EXPLORED_SAMPLES) r.put(name, s.responseTime());
        });
        for (var d : exploredDrift.check(r, assumedResponseTime, now)) {
            qos.forgetOld(d.key());
            changed.put(d.key(), d.sinceNanos());
            replanner.request(String.format("concrete service %s (explored): response time %.3f s, plan assumed %.3f s",
                    d.key(), d.observed(), d.baseline()));
        }
    }

    private void writeObservations(Map<String, QosMonitor.ServiceStats> stats, Map<String, ConcreteService> services) {
        Instant at = Instant.now();
        try {
            for (QosMonitor.ServiceStats s : stats.values()) {
                ConcreteService cs = services.get(s.service());
                if (s.successes() > 0 && cs != null)
                    kb.putServiceQos(new Observation.ServiceQos(s.service(), s.responseTime(),
                            Math.max(1e-6, s.availability(cs.sla().availability(), PRIOR_WEIGHT)), s.samples(), at));
            }
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
     * nothing is published. Throws IllegalStateException when the optimizer is off.
     */
    public synchronized <T> T whatIf(java.util.function.Function<PlanningInput, T> change) {
        if (optimizer == null) throw new IllegalStateException("the optimizer is off: no what-if");
        if (whatIfOptimizer == null) whatIfOptimizer = new OptimizationEngine(OptimizationEngine.SolverChoice.parse(settings.solver()));
        return change.apply(planningInput());
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
        PlanResult result = optimizer.plan(input(stats, without), why);
        if (!result.hasPlan()) {
            log.warn("no new plan ({}): {}; plan {} stays", why, result.message(), knowledge.planVersion());
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
        return PlanCoverage.of(here, knowledge.services(), unavailable);
    }

    private PlanningInput input(Map<String, QosMonitor.ServiceStats> stats, java.util.Set<String> without) {
        PlanningInput.Builder in = PlanningInput.builder();
        Map<String, Double> load = new HashMap<>();
        for (User u : kb.users()) load.merge(u.serviceClass(), u.rate(), Double::sum);
        for (ServiceClass k : kb.serviceClasses()) in.serviceClass(k, load.getOrDefault(k.name(), 0.0));
        java.util.Set<String> here = null;
        if (deployed != null) {
            here = new java.util.HashSet<>();
            for (io.moses.model.CompositeService c : deployed.get()) here.add(c.name());
        }
        java.util.Set<String> absent = new java.util.TreeSet<>();
        for (io.moses.model.CompositeService c : kb.compositeServices()) {
            if (here == null || here.contains(c.name())) in.composite(c);
            else absent.add(c.name());
        }
        if (!absent.equals(notDeployed)) {
            notDeployed = java.util.Set.copyOf(absent);
            if (!absent.isEmpty()) log.info("not planned: composites {} are in the knowledge base but not deployed on this broker", absent);
        }
        List<ConcreteService> services = kb.concreteServices();
        in.services(services);
        kb.idempotentTasks().forEach(in::idempotent);
        ws.down().forEach(in::down);
        heldOut.forEach(in::down);
        without.forEach(in::down);
        // ejected services are planned as down, unless that leaves a task with none at all
        java.util.Set<String> ejected = binding.ejected();
        java.util.Set<String> wsDown = ws.down();
        Map<io.moses.model.TaskRef, Boolean> taskHasOther = new HashMap<>();
        for (ConcreteService cs : services)
            if (!ejected.contains(cs.name()) && !wsDown.contains(cs.name())) taskHasOther.put(cs.task(), true);
        for (ConcreteService cs : services)
            if (ejected.contains(cs.name()) && taskHasOther.getOrDefault(cs.task(), false)) in.down(cs.name());
        Instant now = Instant.now();
        for (ConcreteService cs : services) {
            String name = cs.name();
            QosMonitor.ServiceStats s = stats.get(name);
            if (s != null && s.failures() > 0) failureTime.put(name, s.failureTime());
            // f_j: measured when failures were seen, else the timeout (a failure may be a hang)
            in.failureDetection(name, failureTime.getOrDefault(name, settings.unknownFailureMillis() / 1000.0));
            if (s == null || s.samples() + s.censored() == 0) continue;
            Double observedR = observedResponseTime(name, s);
            double r = observedR == null ? cs.sla().responseTime() : observedR;
            double a = s.samples() == 0 ? cs.sla().availability() : s.availability(cs.sla().availability(), PRIOR_WEIGHT);
            in.observed(new Observation.ServiceQos(name, r, Math.max(1e-6, a), Math.max(s.samples(), s.successes() + s.censored()), now));
            if (s.successes() > 0) in.successSamples(name, s.successLatencies());
        }
        Map<String, PathAnalyzer.ClassVisits> visits = settings.pathAnalyzer() ? paths.visits() : Map.of();
        visits.forEach((cls, v) -> {
            if (v.requests() >= settings.minSamples()) in.visits(cls, v.perTask());
        });
        PlanningInput.Settings d = PlanningInput.Settings.defaults();
        in.settings(new PlanningInput.Settings(d.weightResponseTime(), d.weightAvailability(), d.weightCost(), d.margin(),
                d.objective(), d.maxParallel(), d.maxAlternate(), d.defaultFailureDetection(), 1, // gated here (observedResponseTime)
                d.empiricalMinSamples(), d.timeoutSeconds()));
        return in.build();
    }

    /**
     * The observed response time that replaces the provider's promise: once the window holds
     * the minimum samples (replies, censored included), or at once for a service whose
     * response time drifted (what it does since the change); null to keep the promise.
     */
    private Double observedResponseTime(String service, QosMonitor.ServiceStats s) {
        if (Double.isNaN(s.responseTime())) return null;
        if (s.successes() + s.censored() >= settings.minSamples()) {
            changed.remove(service);
            return s.responseTime();
        }
        return changed.containsKey(service) ? s.responseTime() : null;
    }

    /** After a new plan, what it assumed becomes the baseline of the drift rules. */
    private void rememberAssumptions(Map<String, QosMonitor.ServiceStats> observed) {
        for (ConcreteService s : knowledge.services()) {
            QosMonitor.ServiceStats o = observed.get(s.name());
            Double r = o == null ? null : observedResponseTime(s.name(), o);
            assumedResponseTime.put(s.name(), r != null ? r : s.sla().responseTime());
            assumedAvailability.put(s.name(), o == null || o.samples() == 0 ? s.sla().availability()
                    : o.availability(s.sla().availability(), PRIOR_WEIGHT));
        }
        paths.visits().forEach((cls, v) -> v.perTask().forEach((task, n) -> assumedVisits.put(cls + " " + task, n)));
        responseTimeDrift.reset();
        availabilityDrift.reset();
        visitsDrift.reset();
        exploredDrift.reset();
    }

    public Map<String, Object> status() {
        Map<String, Object> m = new java.util.LinkedHashMap<>(Map.of("qosMonitor", settings.qosMonitor(), "wsMonitor", settings.wsMonitor(), "pathAnalyzer", settings.pathAnalyzer(),
                "optimizer", optimizer == null ? "off" : optimizer.solverName(), "solves", replanner.solves(),
                "down", ws.down(), "ejected", binding.ejected(), "retries", binding.retries(),
                "explorations", binding.explorations(), "lastChange", lastChange));
        m.put("planning", coverage().toJson());
        if (!notDeployed.isEmpty()) m.put("notDeployed", notDeployed);
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
