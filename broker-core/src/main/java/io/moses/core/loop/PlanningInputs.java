package io.moses.core.loop;

import io.moses.mdal.KnowledgeBase;
import io.moses.model.CompositeService;
import io.moses.model.ConcreteService;
import io.moses.model.Observation;
import io.moses.model.ServiceClass;
import io.moses.model.TaskRef;
import io.moses.model.User;
import io.moses.monitor.PathAnalyzer;
import io.moses.monitor.QosMonitor;
import io.moses.optimizer.PlanningInput;
import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the optimizer plans with (docs/model.md): the knowledge base's classes with their users'
 * load, the composites deployed here, the concrete services with those out of the plan marked
 * down, and what the monitors observed in place of the providers' promises.
 */
final class PlanningInputs {
    private static final Logger log = LoggerFactory.getLogger(PlanningInputs.class);

    private final KnowledgeBase kb;
    private final Adaptation settings;
    private final ServiceEstimates estimates;
    private final Clock wall;
    private final Supplier<Collection<CompositeService>> deployed;
    /** Last measured failure-detection time f_j per service [s]: kept when the window has no failures. */
    private final Map<String, Double> failureTime = new ConcurrentHashMap<>();
    /** Composites the knowledge base holds that are not deployed here: not planned (logged when it changes). */
    private volatile Set<String> notDeployed = Set.of();

    /**
     * @param deployed the composites deployed on this broker (null: every composite the knowledge
     *                 base holds): only they are planned for
     * @param wall     the clock the observations are stamped on
     */
    PlanningInputs(KnowledgeBase kb, Adaptation settings, ServiceEstimates estimates, Clock wall,
                   Supplier<Collection<CompositeService>> deployed) {
        this.kb = kb;
        this.settings = settings;
        this.estimates = estimates;
        this.wall = wall;
        this.deployed = deployed;
    }

    /**
     * @param stats   the QoS Monitor's windows (empty when it is off)
     * @param visits  the Path Analyzer's visits (empty when it is off)
     * @param wsDown  services the WS Monitor finds down
     * @param out     services planned as down whatever the others: held out by operators, left out by the caller
     * @param ejected services out of selection for failed calls: down unless that leaves a task with none
     */
    PlanningInput input(Map<String, QosMonitor.ServiceStats> stats, Map<String, PathAnalyzer.ClassVisits> visits,
                        Set<String> wsDown, Set<String> out, Set<String> ejected) {
        PlanningInput.Builder in = PlanningInput.builder();
        Map<String, Double> load = new HashMap<>();
        for (User u : kb.users()) load.merge(u.serviceClass(), u.rate(), Double::sum);
        for (ServiceClass k : kb.serviceClasses()) in.serviceClass(k, load.getOrDefault(k.name(), 0.0));
        Set<String> here = null;
        if (deployed != null) {
            here = new HashSet<>();
            for (CompositeService c : deployed.get()) here.add(c.name());
        }
        Set<String> absent = new TreeSet<>();
        for (CompositeService c : kb.compositeServices()) {
            if (here == null || here.contains(c.name())) in.composite(c);
            else absent.add(c.name());
        }
        if (!absent.equals(notDeployed)) {
            notDeployed = Set.copyOf(absent);
            if (!absent.isEmpty()) log.info("not planned: composites {} are in the knowledge base but not deployed on this broker", absent);
        }
        List<ConcreteService> services = kb.concreteServices();
        in.services(services);
        kb.idempotentTasks().forEach(in::idempotent);
        kb.statefulTasks().forEach(in::stateful);
        wsDown.forEach(in::down);
        out.forEach(in::down);
        // ejected services are planned as down, unless that leaves a task with none at all
        Map<TaskRef, Boolean> taskHasOther = new HashMap<>();
        for (ConcreteService cs : services)
            if (!ejected.contains(cs.name()) && !wsDown.contains(cs.name())) taskHasOther.put(cs.task(), true);
        for (ConcreteService cs : services)
            if (ejected.contains(cs.name()) && taskHasOther.getOrDefault(cs.task(), false)) in.down(cs.name());
        Instant now = wall.instant();
        for (ConcreteService cs : services) {
            String name = cs.name();
            QosMonitor.ServiceStats s = stats.get(name);
            if (s != null && s.failures() > 0) failureTime.put(name, s.failureTime());
            // f_j: measured when failures were seen, else the timeout (a failure may be a hang)
            in.failureDetection(name, failureTime.getOrDefault(name, settings.unknownFailureMillis() / 1000.0));
            if (s == null || s.samples() + s.censored() == 0) continue;
            Double observedR = estimates.responseTime(name, s);
            double r = observedR == null ? cs.sla().responseTime() : observedR;
            double a = s.samples() == 0 ? cs.sla().availability() : ServiceEstimates.availability(cs.sla().availability(), s);
            in.observed(new Observation.ServiceQos(name, r, Math.max(1e-6, a), Math.max(s.samples(), s.successes() + s.censored()), now));
            if (s.successes() > 0) in.successSamples(name, s.successLatencies());
        }
        visits.forEach((cls, v) -> {
            if (v.requests() >= settings.minSamples()) in.visits(cls, v.perTask());
        });
        PlanningInput.Settings d = PlanningInput.Settings.defaults();
        in.settings(new PlanningInput.Settings(d.weightResponseTime(), d.weightAvailability(), d.weightCost(), d.margin(),
                d.objective(), d.maxParallel(), d.maxAlternate(), d.defaultFailureDetection(), 1, // gated here (ServiceEstimates)
                d.empiricalMinSamples(), d.timeoutSeconds()));
        return in.build();
    }

    /** A service back up: its failures while down no longer describe it. */
    void forget(String service) {
        failureTime.remove(service);
    }

    /** The composites of the knowledge base not deployed here, as of the last input. */
    Set<String> notDeployed() {
        return notDeployed;
    }
}
