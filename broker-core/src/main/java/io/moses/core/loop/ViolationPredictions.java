package io.moses.core.loop;

import io.moses.model.Plan;
import io.moses.model.ServiceClass;
import io.moses.monitor.ClassMonitor;
import io.moses.monitor.Forecast;
import io.moses.monitor.QosMonitor;
import io.moses.optimizer.OptimizationEngine;
import io.moses.optimizer.PlanningInput;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The proactive SLA rule (docs/model.md, "Forecasts"): each concrete service's response time is
 * forecast from its monitor periods; where the plan in force, evaluated with the forecast of the
 * providers whose response time rises with confidence, gives a class an expected response time
 * over its R_max within the horizon while the class keeps its SLA now, the violation is
 * predicted. A prediction asks for a plan made with the forecast values of its providers, and at
 * its predicted time is judged: it came true when the class broke its SLA or its providers went
 * where they were forecast (the plan it was made under would have broken it), else it missed.
 * One thread (the monitor period) calls it.
 */
final class ViolationPredictions {
    /**
     * Standard deviations the trend must be above 0: 3, since windows of lognormal samples are
     * skewed and a Gaussian 2 would fire on their upward runs.
     */
    static final double TREND_K = 3;
    /**
     * Standard deviations of the forecast taken off it before it is compared with R_max: 2, the
     * provider is past that value with about 97.7 % confidence (one-sided, on Gaussian noise).
     */
    static final double BOUND_K = 2;
    /** The horizon is never shorter than this [s]: the class monitor's figures lag its requests by seconds. */
    static final double MIN_HORIZON_SECONDS = 10;

    /** A class predicted to cross its R_max: when [nanos], with what, driven by which providers, how sure (the trend's z). */
    record Predicted(String serviceClass, double predictedResponseTime, double maxResponseTime, long crossesAtNanos,
                     double secondsAhead, Set<String> drivers, double confidence) {
        String detail() {
            return String.format("expected R %.3f s (max %.3f) in %.0f s, driven by %s (trend %.1f standard deviations above 0)",
                    predictedResponseTime, maxResponseTime, secondsAhead, drivers, confidence);
        }
    }

    /** What became of a prediction at its time. */
    record Verdict(Predicted prediction, boolean cameTrue, String detail) {}

    private record Open(Predicted prediction, Plan plan, long dueNanos, boolean[] broke) {}

    private final Adaptation settings;
    private final LongSupplier nanos;
    private final Map<String, Forecast> forecasts = new HashMap<>();
    private final Map<String, Open> open = new LinkedHashMap<>();
    private final AtomicLong predicted = new AtomicLong(), missed = new AtomicLong(), confirmed = new AtomicLong();

    ViolationPredictions(Adaptation settings, LongSupplier nanos) {
        this.settings = settings;
        this.nanos = nanos;
    }

    /**
     * One monitor period's figures: a service's forecast takes the mean of its replies when the
     * period has the minimum samples (fewer are too noisy to show a trend; the period is skipped).
     */
    void observe(Map<String, QosMonitor.ServiceStats> latest) {
        latest.forEach((name, s) -> {
            if (s.successes() < settings.minSamples() || !Double.isFinite(s.responseTime())) return;
            Forecast f = forecasts.get(name);
            forecasts.put(name, f == null ? Forecast.first(s.responseTime()) : f.next(s.responseTime()));
        });
    }

    /** A service's response time changed at once (the drift rule fired, or it came back): its trend starts again. */
    void forget(String service) {
        forecasts.remove(service);
    }

    /** Whether any service's response time rises with confidence, or a prediction is due: otherwise {@link #check} has nothing to do. */
    boolean anyWork() {
        if (!open.isEmpty()) return true;
        for (Forecast f : forecasts.values()) if (f.rising(TREND_K)) return true;
        return false;
    }

    /** The horizon in monitor periods: two periods and the last solve (the next plan must be in force and observed), at least 10 s. */
    double horizonPeriods(Plan plan) {
        double period = settings.monitorMillis() / 1000.0;
        double solve = plan == null ? 0 : plan.solveMillis() / 1000.0;
        return Math.max(2 * period + solve, MIN_HORIZON_SECONDS) / period;
    }

    /**
     * The classes newly predicted to cross their R_max under {@code plan}, on what is planned with
     * now ({@code now}) and the classes' observed figures; a class with a prediction open is not
     * predicted again until it is judged.
     */
    List<Predicted> check(Plan plan, PlanningInput now, List<ServiceClass> classes, Map<String, ClassMonitor.ClassStats> observed) {
        if (plan == null) return List.of();
        double h = horizonPeriods(plan);
        Map<String, Double> bound = new HashMap<>();
        forecasts.forEach((name, f) -> {
            if (f.rising(TREND_K)) bound.put(name, Math.max(f.level(), f.lowerBound(h, BOUND_K)));
        });
        if (bound.isEmpty()) return List.of();
        Map<String, Plan.Prediction> today = OptimizationEngine.evaluate(now, plan);
        Map<String, Plan.Prediction> ahead = OptimizationEngine.evaluate(now.withResponseTimes(bound), plan);
        List<Predicted> out = new ArrayList<>();
        long t = nanos.getAsLong();
        for (ServiceClass k : classes) {
            if (open.containsKey(k.name())) continue;
            ClassMonitor.ClassStats s = observed.get(k.name());
            // the class keeps its SLA now, and so does the plan on today's estimates
            if (s == null || s.requests() < settings.minSamples() || s.responseTime() > k.maxResponseTime()) continue;
            String label = worst(ahead, k.name());
            if (label == null || ahead.get(label).responseTime() <= k.maxResponseTime()) continue;
            Plan.Prediction p = today.get(label);
            if (p == null || p.responseTime() > k.maxResponseTime()) continue;
            Set<String> drivers = drivers(plan, k.name(), bound.keySet());
            if (drivers.isEmpty()) continue;
            double periods = crossing(plan, now, k, label, drivers, h);
            double z = Double.POSITIVE_INFINITY;
            for (String d : drivers) {
                Forecast f = forecasts.get(d);
                z = Math.min(z, f.trendError() > 0 ? f.trend() / f.trendError() : Double.POSITIVE_INFINITY);
            }
            long period = settings.monitorMillis() * 1_000_000L;
            Predicted pr = new Predicted(k.name(), ahead.get(label).responseTime(), k.maxResponseTime(),
                    t + (long) (periods * period), periods * settings.monitorMillis() / 1000.0, drivers, z);
            // judged a period after its time: the class monitor's figures lag
            open.put(k.name(), new Open(pr, plan, pr.crossesAtNanos() + period, new boolean[1]));
            predicted.incrementAndGet();
            out.add(pr);
        }
        return out;
    }

    /**
     * The predictions whose time has come: true when the class broke its SLA since, or the
     * plan it was predicted under would break it on its providers' figures now (the re-plan
     * prevented what was predicted); false, a miss, when neither.
     */
    List<Verdict> judge(PlanningInput now, Map<String, ClassMonitor.ClassStats> observed) {
        if (open.isEmpty()) return List.of();
        long t = nanos.getAsLong();
        List<Verdict> out = new ArrayList<>();
        for (var it = open.values().iterator(); it.hasNext(); ) {
            Open o = it.next();
            ClassMonitor.ClassStats s = observed.get(o.prediction().serviceClass());
            if (s != null && s.requests() >= settings.minSamples() && s.responseTime() > o.prediction().maxResponseTime())
                o.broke()[0] = true;
            if (t < o.dueNanos()) continue;
            it.remove();
            Map<String, Double> levels = new HashMap<>();
            for (String d : o.prediction().drivers()) {
                Forecast f = forecasts.get(d);
                if (f != null) levels.put(d, f.level());
            }
            Map<String, Plan.Prediction> then = OptimizationEngine.evaluate(now.withResponseTimes(levels), o.plan());
            String label = worst(then, o.prediction().serviceClass());
            Plan.Prediction under = label == null ? null : then.get(label);
            boolean wouldBreak = under != null && under.responseTime() > o.prediction().maxResponseTime();
            boolean cameTrue = o.broke()[0] || wouldBreak;
            (cameTrue ? confirmed : missed).incrementAndGet();
            String detail = cameTrue
                    ? (o.broke()[0] ? "the class broke its SLA" : String.format("its providers went where forecast: the plan it was predicted under gives R %.3f s (max %.3f)",
                            under.responseTime(), o.prediction().maxResponseTime()))
                    : String.format("the class stayed within its SLA and the plan it was predicted under gives R %.3f s (max %.3f) on its providers' figures now; predicted: %s",
                            under == null ? Double.NaN : under.responseTime(), o.prediction().maxResponseTime(), o.prediction().detail());
            out.add(new Verdict(o.prediction(), cameTrue, detail));
        }
        return out;
    }

    /**
     * What the next plan should assume of the providers driving the open predictions: their
     * forecast at the horizon (the plan is made for where they are going); empty when none is open.
     */
    Map<String, Double> ahead(Plan plan) {
        Map<String, Double> out = new HashMap<>();
        double h = horizonPeriods(plan);
        for (Open o : open.values())
            for (String d : o.prediction().drivers()) {
                Forecast f = forecasts.get(d);
                if (f != null) out.merge(d, Math.max(f.level(), f.at(h)), Math::max);
            }
        return out;
    }

    long predicted() {
        return predicted.get();
    }

    long missed() {
        return missed.get();
    }

    long confirmed() {
        return confirmed.get();
    }

    /** The forecast of a service (null before its first period with the minimum samples). */
    Forecast forecast(String service) {
        return forecasts.get(service);
    }

    /** The periods ahead at which the central forecast of the drivers takes the class over R_max (at most the horizon). */
    private double crossing(Plan plan, PlanningInput now, ServiceClass k, String label, Set<String> drivers, double h) {
        for (int p = 1; p < h; p++) {
            Map<String, Double> r = new HashMap<>();
            for (String d : drivers) r.put(d, Math.max(forecasts.get(d).level(), forecasts.get(d).at(p)));
            Plan.Prediction q = OptimizationEngine.evaluate(now.withResponseTimes(r), plan).get(label);
            if (q != null && q.responseTime() > k.maxResponseTime()) return p;
        }
        return h;
    }

    /** The class's label (the class, or class/composite) with the largest R. */
    private static String worst(Map<String, Plan.Prediction> predictions, String serviceClass) {
        String best = null;
        for (var e : predictions.entrySet()) {
            String l = e.getKey();
            if (!l.equals(serviceClass) && !l.startsWith(serviceClass + "/")) continue;
            if (best == null || e.getValue().responseTime() > predictions.get(best).responseTime()) best = l;
        }
        return best;
    }

    /** The rising services among the members the plan binds for the class. */
    private static Set<String> drivers(Plan plan, String serviceClass, Set<String> rising) {
        Set<String> used = new HashSet<>();
        plan.bindings().forEach((key, shares) -> {
            if (key.serviceClass().equals(serviceClass))
                shares.forEach(sh -> { if (sh.fraction() > 0) used.addAll(sh.implementation().members()); });
        });
        used.retainAll(rising);
        return new TreeSet<>(used);
    }
}
