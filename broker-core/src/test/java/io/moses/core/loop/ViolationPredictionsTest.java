package io.moses.core.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.model.Activity;
import io.moses.model.CompositeService;
import io.moses.model.ConcreteService;
import io.moses.model.Plan;
import io.moses.model.ProviderSla;
import io.moses.model.ServiceClass;
import io.moses.model.TaskRef;
import io.moses.monitor.ClassMonitor;
import io.moses.monitor.QosMonitor;
import io.moses.optimizer.OptimizationEngine;
import io.moses.optimizer.PlanningInput;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntToDoubleFunction;
import org.junit.jupiter.api.Test;

/**
 * The proactive rule on a plan the optimizer made and a simulated provider, period by period on
 * the test's clock: no broker, no network.
 */
class ViolationPredictionsTest {
    static final TaskRef FLIGHT = TaskRef.of("Trip", "flight", "findFlight");
    static final ServiceClass GOLD = new ServiceClass("gold", 0.7, 0.9, 100, 15);
    static final Adaptation SETTINGS = Adaptation.defaults().withForecast(true);

    static PlanningInput input() {
        return PlanningInput.builder()
                .composite(new CompositeService("Trip", null, List.of(FLIGHT), new Activity.Invoke("/i", FLIGHT)))
                .serviceClass(GOLD, 1)
                .service(new ConcreteService("flight-a", FLIGHT, URI.create("http://a/"), new ProviderSla(0.1, 0.999, 1, 100), null))
                .service(new ConcreteService("flight-b", FLIGHT, URI.create("http://b/"), new ProviderSla(0.3, 0.999, 1, 100), null))
                .build();
    }

    static QosMonitor.ServiceStats window(String service, double mean, int replies) {
        return new QosMonitor.ServiceStats(service, replies, 0, 0, mean, 1, Double.NaN, mean, mean, mean, new double[0]);
    }

    /** The mean of {@code n} lognormal (sigma 1, the stubs' noise) replies whose mean is {@code mean}. */
    static double windowMean(Random rnd, double mean, int n) {
        double s = 0;
        for (int i = 0; i < n; i++) s += Math.exp(rnd.nextGaussian() - 0.5);
        return mean * s / n;
    }

    /** What a run of the rule saw: the first period predicted (-1: none), the class's crossing (-1: none), the predictions. */
    record Run(int first, int crossed, List<ViolationPredictions.Predicted> predictions) {}

    /**
     * Runs {@code seconds} periods of flight-a at the true mean {@code mean(t)}, observed as the
     * mean of {@code replies} lognormal replies ({@code rnd} null: the true mean itself), under
     * {@code plan}; the class observes the plan's R on the true mean.
     */
    static Run run(int seconds, IntToDoubleFunction mean, Random rnd, int replies, ViolationPredictions rule, AtomicLong nanos, Plan plan) {
        return run(seconds, mean, rnd, replies, rule, nanos, plan, false);
    }

    /** As above; {@code untilCrossed}: stops at the period the class crosses. */
    static Run run(int seconds, IntToDoubleFunction mean, Random rnd, int replies, ViolationPredictions rule, AtomicLong nanos, Plan plan,
                   boolean untilCrossed) {
        PlanningInput base = input();
        int first = -1, crossed = -1;
        List<ViolationPredictions.Predicted> all = new ArrayList<>();
        for (int t = 0; t < seconds && (crossed < 0 || !untilCrossed); t++) {
            nanos.addAndGet(1_000_000_000L);
            double r = mean.applyAsDouble(t);
            rule.observe(Map.of("flight-a", window("flight-a", rnd == null ? r : windowMean(rnd, r, replies), replies)));
            PlanningInput now = base.withResponseTimes(Map.of("flight-a", r));
            double classR = OptimizationEngine.evaluate(now, plan).get("gold").responseTime();
            if (crossed < 0 && classR > GOLD.maxResponseTime()) crossed = t;
            Map<String, ClassMonitor.ClassStats> observed = Map.of("gold", new ClassMonitor.ClassStats("gold", 500, classR, 1));
            rule.judge(now, observed);
            List<ViolationPredictions.Predicted> p = rule.check(plan, now, List.of(GOLD), observed);
            if (!p.isEmpty() && first < 0) first = t;
            all.addAll(p);
        }
        return new Run(first, crossed, all);
    }

    static double classR(PlanningInput base, Plan plan, double flightA) {
        return OptimizationEngine.evaluate(base.withResponseTimes(Map.of("flight-a", flightA)), plan).get("gold").responseTime();
    }

    static Plan plan() {
        Plan plan = new OptimizationEngine(OptimizationEngine.SolverChoice.OJALGO).plan(input()).plan();
        assertTrue(plan.shares("gold", FLIGHT).get(0).implementation().members().contains("flight-a"), "the plan relies on flight-a");
        return plan;
    }

    /** 30 s flat at 125 ms, then up to ten times that over 120 s: the class (R_max 700 ms) crosses about a minute into the ramp. */
    static double ramp(int t) {
        return t < 30 ? 0.125 : Math.min(1.25, 0.125 * (1 + 9 * (t - 30) / 120.0));
    }

    @Test
    void theHorizonIsTwoPeriodsAndASolveButAtLeastTenSeconds() {
        ViolationPredictions rule = new ViolationPredictions(SETTINGS, () -> 0);
        assertEquals(10, rule.horizonSeconds(null), 1e-9);
        ViolationPredictions slow = new ViolationPredictions(SETTINGS.withPeriods(8000, 1000, 2000), () -> 0);
        assertEquals(16, slow.horizonSeconds(null), 1e-9, "with 8 s periods two of them are the horizon");
    }

    @Test
    void aNoisyRampIsPredictedAtLeast30SecondsBeforeTheClassCrossesItsMax() {
        Plan plan = plan();
        for (int replies : new int[]{20, 100}) {
            List<Integer> leads = new ArrayList<>();
            int crossedAt = -1;
            for (int seed = 0; seed < 5; seed++) {
                AtomicLong nanos = new AtomicLong();
                ViolationPredictions rule = new ViolationPredictions(SETTINGS, nanos::get);
                Run r = run(200, ViolationPredictionsTest::ramp, new Random(seed), replies, rule, nanos, plan, true);
                assertTrue(r.crossed() >= 80, "the class crosses 50 s or more into the ramp: " + r.crossed());
                assertTrue(r.first() >= 30, "seed " + seed + ": predicted at " + r.first() + ", not before the ramp");
                assertEquals(1, r.predictions().size(), "one prediction per episode");
                ViolationPredictions.Predicted p = r.predictions().get(0);
                assertEquals(java.util.Set.of("flight-a"), p.drivers());
                assertTrue(p.secondsAhead() <= p.latestSecondsAhead(), p.detail());
                leads.add(r.crossed() - r.first());
                crossedAt = r.crossed();
            }
            System.out.printf("%d replies a period: predicted %s s before the class crossed, %d s into the ramp%n", replies, leads, crossedAt - 30);
            for (int lead : leads) assertTrue(lead >= 30, replies + " replies a period: leads " + leads);
        }
    }

    @Test
    void whileAPredictionIsOpenThePlansAssumeTheForecastAndAPlanInForceTheForecastBreaksIsReplannedAhead() {
        AtomicLong nanos = new AtomicLong();
        ViolationPredictions rule = new ViolationPredictions(SETTINGS, nanos::get);
        Plan plan = plan();
        PlanningInput base = input();
        List<ViolationPredictions.Predicted> fired = List.of();
        double r = 0.1;
        int t = 0;
        for (; t < 100 && fired.isEmpty(); t++) {
            nanos.addAndGet(1_000_000_000L);
            r = 0.1 + 0.005 * t; // 5 ms a second, noiseless
            rule.observe(Map.of("flight-a", window("flight-a", r, 100)));
            PlanningInput now = base.withResponseTimes(Map.of("flight-a", r));
            fired = rule.check(plan, now, List.of(GOLD), Map.of("gold", new ClassMonitor.ClassStats("gold", 500, r, 1)));
        }
        assertEquals(1, fired.size());
        ViolationPredictions.Predicted p = fired.get(0);
        assertTrue(r < 0.3, "predicted well before the class crosses at 700 ms: " + r);
        assertEquals((0.7 - r) / 0.005, p.secondsAhead(), 1.5, p.detail());
        Map<String, Double> ahead = rule.ahead(plan);
        assertEquals(r + 0.005 * 20, ahead.get("flight-a"), 1e-6, "the forecast at twice the horizon");
        assertTrue(rule.replansAhead(plan, base.withResponseTimes(Map.of("flight-a", r))).isEmpty(),
                "the plan in force keeps the class at the forecast one horizon ahead");
        // the ramp goes on: the plan in force is asked to change once the forecast at the horizon breaks it, and once a horizon
        List<Integer> replans = new ArrayList<>();
        for (; t < 200; t++) {
            nanos.addAndGet(1_000_000_000L);
            r = 0.1 + 0.005 * t;
            rule.observe(Map.of("flight-a", window("flight-a", r, 100)));
            if (!rule.replansAhead(plan, base.withResponseTimes(Map.of("flight-a", r))).isEmpty()) replans.add(t);
        }
        assertFalse(replans.isEmpty());
        int t0 = replans.get(0);
        double planned = (1 - base.settings().margin()) * GOLD.maxResponseTime();
        assertTrue(classR(base, plan, 0.1 + 0.005 * (t0 + 10)) > planned && classR(base, plan, 0.1 + 0.005 * (t0 + 9)) <= planned,
                "the first when the forecast 10 s ahead takes the class past the plans' margin: " + replans);
        for (int i = 1; i < replans.size(); i++) assertTrue(replans.get(i) - replans.get(i - 1) >= 10, "once a horizon: " + replans);
        // the plan made with the forecast no longer relies on flight-a alone
        Plan next = new OptimizationEngine(OptimizationEngine.SolverChoice.OJALGO).plan(base.withResponseTimes(Map.of("flight-a", 0.9))).plan();
        assertTrue(OptimizationEngine.evaluate(base.withResponseTimes(Map.of("flight-a", 0.9)), next).get("gold").responseTime() <= GOLD.maxResponseTime(),
                "a plan made for where flight-a is going keeps the SLA there");
    }

    @Test
    void aPredictionWhoseProvidersLevelOffIsRecordedAsMissed() {
        AtomicLong nanos = new AtomicLong();
        ViolationPredictions rule = new ViolationPredictions(SETTINGS, nanos::get);
        Plan plan = plan();
        // a rise of 10 ms a second to 400 ms that then falls back to 100 ms: predicted, then never there
        Run r = run(400, t -> t < 20 ? 0.1 : t < 50 ? 0.1 + 0.01 * (t - 20) : 0.1, null, 100, rule, nanos, plan);
        assertTrue(r.first() >= 0, "predicted");
        assertEquals(-1, r.crossed(), "the class never crossed");
        assertEquals(1, rule.missed());
        assertEquals(0, rule.confirmed());
    }

    @Test
    void aRampThatTakesTheClassOverItsMaxIsConfirmed() {
        AtomicLong nanos = new AtomicLong();
        ViolationPredictions rule = new ViolationPredictions(SETTINGS, nanos::get);
        Plan plan = plan();
        Run r = run(300, ViolationPredictionsTest::ramp, null, 100, rule, nanos, plan);
        assertTrue(r.first() >= 30 && r.first() < r.crossed(), "predicted at " + r.first() + ", crossed at " + r.crossed());
        assertEquals(1, rule.confirmed(), "it came true");
        assertEquals(0, rule.missed());
    }

    @Test
    void aStepIsLeftToTheDriftRule() {
        // 100 ms, then 550 ms at once (the class keeps its SLA): a level that moved, no trend to extrapolate
        for (int replies : new int[]{20, 100})
            for (int seed = 0; seed < 5; seed++) {
                AtomicLong nanos = new AtomicLong();
                ViolationPredictions rule = new ViolationPredictions(SETTINGS, nanos::get);
                Run r = run(200, t -> t < 60 ? 0.1 : 0.55, new Random(seed), replies, rule, nanos, plan());
                assertEquals(-1, r.crossed());
                assertEquals(-1, r.first(), "seed " + seed + ", " + replies + " replies a period: predicted at " + r.first());
            }
    }

    @Test
    void aLongRunOfStationaryLognormalNoiseGivesNoPrediction() {
        // 20,000 one-second windows at 400 ms of 100 replies, and at 450 ms of 20 replies: the class's R_max is 700 ms
        double[][] cases = {{0.4, 100}, {0.45, 20}};
        for (double[] c : cases) {
            AtomicLong nanos = new AtomicLong();
            ViolationPredictions rule = new ViolationPredictions(SETTINGS, nanos::get);
            Random rnd = new Random(5);
            Run r = run(20_000, t -> c[0], rnd, (int) c[1], rule, nanos, plan());
            assertEquals(-1, r.first(), "predicted at " + r.first() + " with " + (int) c[1] + " replies a period");
            assertEquals(0, rule.predicted());
        }
    }
}
