package io.moses.core.loop;

import io.moses.model.Plan;
import io.moses.model.ServiceClass;
import io.moses.monitor.ClassMonitor;
import io.moses.monitor.QosMonitor;
import io.moses.monitor.Trend;
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
 * The proactive SLA rule (docs/model.md, "Forecasts"): each concrete service's response time has
 * a robust trend over its last monitor periods ({@link Trend}); where the plan in force, evaluated
 * with the lower confidence bound of the rising providers' forecast, takes a class that keeps its
 * SLA now over its R_max within the look-ahead, for two periods in a row, the violation is
 * predicted. While a prediction is open, the plans are made with the drivers' forecast at twice
 * the horizon, and a plan in force that the forecast at the horizon takes past the optimizer's
 * margin asks for the next. At its time a prediction is judged: it came true when the class broke its SLA or its
 * providers went where the plan it was made under breaks it, else it missed. One thread (the
 * monitor period) calls it.
 */
final class ViolationPredictions {
    /** Seconds of periods a trend is fitted on: 40, enough points for a slope on noisy windows, few enough to follow a ramp's start. */
    static final double TREND_SECONDS = 40;
    /** Points (each the mean of at least the minimum samples) before a trend speaks. */
    static final int MIN_POINTS = 10;
    /**
     * Standard deviations of confidence the forecast's lower bound is taken at: 3 (about 99.9 %
     * one-sided; the bounds are distribution-free, so lognormal skew does not erode them).
     */
    static final double K = 3;
    /**
     * How far ahead [s] a crossing is predicted, on the lower bound: 150. Early in a ramp that
     * bound rises at about half the true slope, so a crossing 30 s ahead is seen on it 60 s or
     * more ahead; late in a slow ramp (noise grows with the level) more (docs/model.md, "Forecasts":
     * chosen on simulated windows of 20 and 100 replies).
     */
    static final double LOOK_AHEAD_SECONDS = 150;
    /** Periods in a row a class must be predicted before the event: 2, a single period's bound is not enough. */
    static final int PERSISTENCE = 2;
    /** The horizon is never shorter than this [s]: the class monitor's figures lag its requests by seconds. */
    static final double MIN_HORIZON_SECONDS = 10;

    /** A class predicted to cross its R_max: in how long [s] on the central forecast and at the latest on its lower bound, driven by which providers, how sure (the weakest driver's z). */
    record Predicted(String serviceClass, double predictedResponseTime, double maxResponseTime, long crossesAtNanos,
                     double secondsAhead, double latestSecondsAhead, Set<String> drivers, double confidence) {
        String detail() {
            return String.format("expected R %.3f s (max %.3f) in %.0f s (%.0f s at the latest), driven by %s (trend z %.1f)",
                    predictedResponseTime, maxResponseTime, secondsAhead, latestSecondsAhead, drivers, confidence);
        }
    }

    /** What became of a prediction at its time. */
    record Verdict(Predicted prediction, boolean cameTrue, String detail) {}

    /** A prediction not judged yet: whether its class broke its SLA meanwhile, and when it last asked for a plan ahead. */
    private static final class Open {
        final Predicted prediction;
        final Plan plan;
        final long dueNanos;
        boolean broke;
        long lastReplanNanos;

        Open(Predicted prediction, Plan plan, long dueNanos, long lastReplanNanos) {
            this.prediction = prediction;
            this.plan = plan;
            this.dueNanos = dueNanos;
            this.lastReplanNanos = lastReplanNanos;
        }
    }

    private final Adaptation settings;
    private final LongSupplier nanos;
    private final Map<String, Trend> trends = new HashMap<>();
    private final Map<String, Open> open = new LinkedHashMap<>();
    /** Per class, the periods in a row it was predicted (before the event). */
    private final Map<String, Integer> streak = new HashMap<>();
    private final AtomicLong predicted = new AtomicLong(), missed = new AtomicLong(), confirmed = new AtomicLong();

    ViolationPredictions(Adaptation settings, LongSupplier nanos) {
        this.settings = settings;
        this.nanos = nanos;
    }

    /** One monitor period's figures: a service's trend takes the mean of its replies (a period with few is pooled with the next). */
    void observe(Map<String, QosMonitor.ServiceStats> latest) {
        double at = nanos.getAsLong() / 1e9;
        latest.forEach((name, s) -> {
            Trend f = trends.get(name);
            if (f == null) f = Trend.empty(TREND_SECONDS, settings.minSamples());
            trends.put(name, f.next(at, s.responseTime(), s.successes()));
        });
    }

    /** A service's response time changed at once (the drift rule fired, or it came back): its trend starts again. */
    void forget(String service) {
        trends.remove(service);
    }

    /** Whether any service's response time rises with confidence, or a prediction is open: otherwise {@link #check} has nothing to do. */
    boolean anyWork() {
        if (!open.isEmpty() || !streak.isEmpty()) return true;
        for (Trend f : trends.values()) if (rising(f)) return true;
        return false;
    }

    private static boolean rising(Trend f) {
        return f.ready(MIN_POINTS) && f.slopeLowerBound(K) > 0;
    }

    /** The horizon [s]: two periods and the last solve (the next plan must be in force and observed), at least 10 s. */
    double horizonSeconds(Plan plan) {
        double period = settings.monitorMillis() / 1000.0;
        double solve = plan == null ? 0 : plan.solveMillis() / 1000.0;
        return Math.max(2 * period + solve, MIN_HORIZON_SECONDS);
    }

    /**
     * The classes newly predicted to cross their R_max under {@code plan}, on what is planned with
     * now ({@code now}) and the classes' observed figures; a class with a prediction open is not
     * predicted again until it is judged.
     */
    List<Predicted> check(Plan plan, PlanningInput now, List<ServiceClass> classes, Map<String, ClassMonitor.ClassStats> observed) {
        if (plan == null) return List.of();
        Set<String> risingNow = new HashSet<>();
        trends.forEach((name, f) -> { if (rising(f)) risingNow.add(name); });
        List<Predicted> out = new ArrayList<>();
        if (risingNow.isEmpty()) {
            streak.clear();
            return out;
        }
        Map<String, Plan.Prediction> today = OptimizationEngine.evaluate(now, plan);
        long t = nanos.getAsLong();
        for (ServiceClass k : classes) {
            if (open.containsKey(k.name())) continue;
            ClassMonitor.ClassStats s = observed.get(k.name());
            Set<String> drivers = drivers(plan, k.name(), risingNow);
            String label = worst(today, k.name());
            // the class keeps its SLA now, observed and on the plan with today's estimates
            boolean keeps = s != null && s.requests() >= settings.minSamples() && s.responseTime() <= k.maxResponseTime()
                    && label != null && today.get(label).responseTime() <= k.maxResponseTime();
            if (!keeps || drivers.isEmpty()) {
                streak.remove(k.name());
                continue;
            }
            double latest = crossing(plan, now, k, drivers, (d, sec) -> trends.get(d).lowerBound(sec, K));
            if (Double.isNaN(latest)) {
                streak.remove(k.name());
                continue;
            }
            int inRow = streak.merge(k.name(), 1, Integer::sum);
            if (inRow < PERSISTENCE) continue;
            streak.remove(k.name());
            double central = crossing(plan, now, k, drivers, (d, sec) -> Math.max(trends.get(d).level(), trends.get(d).at(sec)));
            if (Double.isNaN(central)) central = latest;
            Map<String, Double> there = new HashMap<>();
            for (String d : drivers) there.put(d, trends.get(d).lowerBound(latest, K));
            Plan.Prediction p = worstPrediction(OptimizationEngine.evaluate(now.withResponseTimes(there), plan), k.name());
            double z = Double.POSITIVE_INFINITY;
            for (String d : drivers) z = Math.min(z, trends.get(d).z());
            Predicted pr = new Predicted(k.name(), p == null ? Double.NaN : p.responseTime(), k.maxResponseTime(),
                    t + (long) (central * 1e9), central, latest, drivers, z);
            // judged a period after the bound's crossing: the class monitor's figures lag
            open.put(k.name(), new Open(pr, plan, t + (long) (latest * 1e9) + settings.monitorMillis() * 1_000_000L, t));
            predicted.incrementAndGet();
            out.add(pr);
        }
        streak.keySet().retainAll(classes.stream().map(ServiceClass::name).toList());
        return out;
    }

    /**
     * The open predictions whose class the plan in force, with the drivers at their central
     * forecast one horizon ahead, takes past what plans keep it within ((1 - margin) R_max,
     * the optimizer's own row): each asks for a plan made for where they are
     * going (at most one a horizon per class, so a plan that cannot keep it is not re-solved every
     * period). The reason of each.
     */
    List<String> replansAhead(Plan plan, PlanningInput now) {
        if (plan == null || open.isEmpty()) return List.of();
        double h = horizonSeconds(plan);
        long t = nanos.getAsLong();
        List<String> out = new ArrayList<>();
        for (Open o : open.values()) {
            if (t - o.lastReplanNanos < (long) (h * 1e9)) continue;
            Map<String, Double> r = new HashMap<>();
            for (String d : o.prediction.drivers()) {
                Trend f = trends.get(d);
                if (f != null && rising(f)) r.put(d, Math.max(f.level(), f.at(h)));
            }
            if (r.isEmpty()) continue;
            Plan.Prediction p = worstPrediction(OptimizationEngine.evaluate(now.withResponseTimes(r), plan), o.prediction.serviceClass());
            double limit = (1 - now.settings().margin()) * o.prediction.maxResponseTime();
            if (p == null || p.responseTime() <= limit) continue;
            o.lastReplanNanos = t;
            out.add(String.format("class %s: the plan in force gives R %.3f s (planned within %.3f, max %.3f) in %.0f s on the forecast of %s",
                    o.prediction.serviceClass(), p.responseTime(), limit, o.prediction.maxResponseTime(), h, r.keySet()));
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
            ClassMonitor.ClassStats s = observed.get(o.prediction.serviceClass());
            if (s != null && s.requests() >= settings.minSamples() && s.responseTime() > o.prediction.maxResponseTime())
                o.broke = true;
            if (t < o.dueNanos) continue;
            it.remove();
            Map<String, Double> levels = new HashMap<>();
            for (String d : o.prediction.drivers()) {
                Trend f = trends.get(d);
                if (f != null && f.points() > 0) levels.put(d, f.level());
            }
            Plan.Prediction under = worstPrediction(OptimizationEngine.evaluate(now.withResponseTimes(levels), o.plan), o.prediction.serviceClass());
            boolean wouldBreak = under != null && under.responseTime() > o.prediction.maxResponseTime();
            boolean cameTrue = o.broke || wouldBreak;
            (cameTrue ? confirmed : missed).incrementAndGet();
            String detail = cameTrue
                    ? (o.broke ? "the class broke its SLA" : String.format("its providers went where forecast: the plan it was predicted under gives R %.3f s (max %.3f)",
                            under.responseTime(), o.prediction.maxResponseTime()))
                    : String.format("the class stayed within its SLA and the plan it was predicted under gives R %.3f s (max %.3f) on its providers' figures now; predicted: %s",
                            under == null ? Double.NaN : under.responseTime(), o.prediction.maxResponseTime(), o.prediction.detail());
            out.add(new Verdict(o.prediction, cameTrue, detail));
        }
        return out;
    }

    /**
     * What the next plan should assume of the providers driving the open predictions: their
     * central forecast at twice the horizon (the plan is made for where they are going, and
     * {@link #replansAhead} asks for the next one when the forecast at the horizon breaks it);
     * empty when none is open.
     */
    Map<String, Double> ahead(Plan plan) {
        Map<String, Double> out = new HashMap<>();
        double h = 2 * horizonSeconds(plan);
        for (Open o : open.values())
            for (String d : o.prediction.drivers()) {
                Trend f = trends.get(d);
                if (f != null && rising(f)) out.merge(d, Math.max(f.level(), f.at(h)), Math::max);
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

    /** The trend of a service (null before its first period). */
    Trend trend(String service) {
        return trends.get(service);
    }

    interface DriverForecast {
        double at(String driver, double seconds);
    }

    /**
     * The seconds ahead, within the look-ahead, at which the plan with the drivers at {@code
     * forecast} takes the class over its R_max (to the second: R rises with every r_j, so a
     * bisection finds it); NaN when it does not within the look-ahead.
     */
    private double crossing(Plan plan, PlanningInput now, ServiceClass k, Set<String> drivers, DriverForecast forecast) {
        if (!over(plan, now, k, drivers, forecast, LOOK_AHEAD_SECONDS)) return Double.NaN;
        double lo = 0, hi = LOOK_AHEAD_SECONDS;
        while (hi - lo > 1) {
            double mid = (lo + hi) / 2;
            if (over(plan, now, k, drivers, forecast, mid)) hi = mid;
            else lo = mid;
        }
        return hi;
    }

    private static boolean over(Plan plan, PlanningInput now, ServiceClass k, Set<String> drivers, DriverForecast forecast, double seconds) {
        Map<String, Double> r = new HashMap<>();
        for (String d : drivers) {
            double x = forecast.at(d, seconds);
            if (!(x > 0) || Double.isInfinite(x)) return false;
            r.put(d, x);
        }
        Plan.Prediction p = worstPrediction(OptimizationEngine.evaluate(now.withResponseTimes(r), plan), k.name());
        return p != null && p.responseTime() > k.maxResponseTime();
    }

    private static Plan.Prediction worstPrediction(Map<String, Plan.Prediction> predictions, String serviceClass) {
        String label = worst(predictions, serviceClass);
        return label == null ? null : predictions.get(label);
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
