package io.moses.core.loop;

import io.moses.model.ConcreteService;
import io.moses.model.Plan;
import io.moses.monitor.DriftDetector;
import io.moses.monitor.QosMonitor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The rules on concrete services (docs/model.md, "What triggers a new plan"): a service's
 * response time or availability drifted from what the plan in force assumed, or a service the
 * plan does not use looks different in its explorations. Each check returns the reasons for a
 * re-plan (empty: none); a service whose response time changed has its older outcomes forgotten,
 * so that the next plan is made from what it does since.
 */
final class ServiceQosRules {
    /** Recent outcomes of a service the plan does not use (explorations) that can show it changed. */
    static final int EXPLORED_SAMPLES = 3;
    /** Samples (replies, censored included) the last monitor period needs to stand for the service's response time. */
    static final int LATEST_SAMPLES = 5;
    /**
     * A response time is judged as if it were at least this [s]: with the 50 % threshold a
     * difference under 5 ms never counts. A provider answering in 1-3 ms reads 1-10 ms from one
     * monitor period to the next on a loaded machine (scheduling, collections); with a 1 ms floor
     * that noise re-planned every few seconds under steady load, each plan solving the program
     * again for an objective that moved in its fourth decimal.
     */
    static final double RESPONSE_TIME_FLOOR = 0.010;

    private final Adaptation settings;
    private final QosMonitor qos;
    private final ServiceEstimates estimates;
    private final LongSupplier nanos;
    private final DriftDetector<String> responseTimeDrift;
    private final DriftDetector<String> availabilityDrift;
    private final DriftDetector<String> exploredDrift;
    /** What the plan in force assumed: r and a per service. */
    private final Map<String, Double> assumedResponseTime = new ConcurrentHashMap<>();
    private final Map<String, Double> assumedAvailability = new ConcurrentHashMap<>();

    /** @param nanos the clock the QoS Monitor's outcomes are stamped on */
    ServiceQosRules(Adaptation settings, QosMonitor qos, ServiceEstimates estimates, LongSupplier nanos) {
        this.settings = settings;
        this.qos = qos;
        this.estimates = estimates;
        this.nanos = nanos;
        // a slowdown 10 -> 300 ms acts within a monitor period; a small drift still waits the hold
        this.responseTimeDrift = DriftDetector.proportional(settings.responseTimeDrift(), RESPONSE_TIME_FLOOR, settings.holdMillis());
        this.exploredDrift = DriftDetector.proportional(settings.responseTimeDrift(), RESPONSE_TIME_FLOOR, settings.holdMillis());
        this.availabilityDrift = DriftDetector.proportional(settings.availabilityDrift(), 0.01, settings.holdMillis());
    }

    /**
     * The response-time and availability rules on this period's figures.
     *
     * @param stats    each service's window (merged over the replicas)
     * @param latest   this replica's outcomes of the last monitor period
     * @param services the registered services, by name (their promises)
     */
    List<String> check(Map<String, QosMonitor.ServiceStats> stats, Map<String, QosMonitor.ServiceStats> latest,
                       Map<String, ConcreteService> services) {
        long now = nanos.getAsLong();
        long period = settings.monitorMillis() * 1_000_000L;
        Map<String, Double> r = new HashMap<>();
        Map<String, Double> a = new HashMap<>();
        stats.forEach((name, s) -> {
            // the last period when it has enough replies (a slowdown is not diluted by the
            // seconds before it), else the whole window
            QosMonitor.ServiceStats l = latest.get(name);
            if (l != null && l.successes() + l.censored() >= LATEST_SAMPLES && !Double.isNaN(l.responseTime()))
                r.put(name, l.responseTime());
            else if (estimates.responseTime(name, s) != null)
                r.put(name, s.responseTime());
            ConcreteService cs = services.get(name);
            // the Beta posterior is honest with few samples: no minimum needed
            if (cs != null && s.samples() > 0) a.put(name, ServiceEstimates.availability(cs.sla().availability(), s));
        });
        List<String> why = new ArrayList<>();
        for (var d : responseTimeDrift.check(r, assumedResponseTime, now, period)) {
            // the service changed about when the drift began (the window mean lags by up to a
            // period): the plan is made from what it does since
            qos.forgetBefore(d.key(), d.sinceNanos() - period, LATEST_SAMPLES);
            estimates.changed(d.key(), d.sinceNanos());
            why.add(String.format("concrete service %s: response time %.3f s, plan assumed %.3f s", d.key(), d.observed(), d.baseline()));
        }
        for (var d : availabilityDrift.check(a, assumedAvailability, now))
            why.add(String.format("concrete service %s: availability %.4f, plan assumed %.4f", d.key(), d.observed(), d.baseline()));
        return why;
    }

    /**
     * A service the plan does not use is called only by exploration: a few recent calls that
     * differ from what the plan assumed mean it changed (a provider that recovered); its older
     * outcomes are forgotten and the optimizer plans with what it is now.
     */
    List<String> checkExplored(Plan plan) {
        if (plan == null) return List.of();
        Set<String> used = new HashSet<>();
        plan.bindings().values().forEach(shares -> shares.forEach(sh -> {
            if (sh.fraction() > 0) used.addAll(sh.implementation().members());
        }));
        Map<String, Double> r = new HashMap<>();
        qos.recent().forEach((name, s) -> {
            if (!used.contains(name) && s.successes() >= EXPLORED_SAMPLES) r.put(name, s.responseTime());
        });
        List<String> why = new ArrayList<>();
        for (var d : exploredDrift.check(r, assumedResponseTime, nanos.getAsLong())) {
            qos.forgetOld(d.key());
            estimates.changed(d.key(), d.sinceNanos());
            why.add(String.format("concrete service %s (explored): response time %.3f s, plan assumed %.3f s",
                    d.key(), d.observed(), d.baseline()));
        }
        return why;
    }

    /**
     * Calls in flight longer than the plan assumed (by more than the drift rule allows), as
     * censored samples: a slowdown shows before its slow replies arrive.
     *
     * @param inFlight per service, the ages [s] of its calls in flight
     */
    Map<String, double[]> slowInFlight(Map<String, double[]> inFlight) {
        Map<String, double[]> out = new HashMap<>();
        inFlight.forEach((name, ages) -> {
            Double assumed = assumedResponseTime.get(name);
            if (assumed == null) return;
            double limit = assumed + settings.responseTimeDrift() * Math.max(assumed, RESPONSE_TIME_FLOOR);
            double[] slow = java.util.Arrays.stream(ages).filter(age -> age > limit).toArray();
            if (slow.length > 0) out.put(name, slow);
        });
        return out;
    }

    /**
     * After a new plan, what it assumed becomes the rules' baseline: the observed estimate where
     * there is one, else the provider's promise; drifts in progress are forgotten.
     */
    void assume(Map<String, QosMonitor.ServiceStats> observed, Collection<ConcreteService> services) {
        for (ConcreteService s : services) {
            QosMonitor.ServiceStats o = observed.get(s.name());
            Double r = o == null ? null : estimates.responseTime(s.name(), o);
            assumedResponseTime.put(s.name(), r != null ? r : s.sla().responseTime());
            assumedAvailability.put(s.name(), o == null || o.samples() == 0 ? s.sla().availability()
                    : ServiceEstimates.availability(s.sla().availability(), o));
        }
        responseTimeDrift.reset();
        availabilityDrift.reset();
        exploredDrift.reset();
    }
}
