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
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The proactive rule on a plan the optimizer made and a simulated provider, period by period on
 * the test's clock: no broker, no network.
 */
class ViolationPredictionsTest {
    static final TaskRef FLIGHT = TaskRef.of("Trip", "flight", "findFlight");
    static final ServiceClass GOLD = new ServiceClass("gold", 0.7, 0.9, 100, 15);
    static final Adaptation SETTINGS = Adaptation.defaults();

    static PlanningInput input() {
        return PlanningInput.builder()
                .composite(new CompositeService("Trip", null, List.of(FLIGHT), new Activity.Invoke("/i", FLIGHT)))
                .serviceClass(GOLD, 1)
                .service(new ConcreteService("flight-a", FLIGHT, URI.create("http://a/"), new ProviderSla(0.1, 0.999, 1, 100), null))
                .service(new ConcreteService("flight-b", FLIGHT, URI.create("http://b/"), new ProviderSla(0.3, 0.999, 1, 100), null))
                .build();
    }

    static QosMonitor.ServiceStats window(String service, double mean) {
        return new QosMonitor.ServiceStats(service, 100, 0, 0, mean, 1, Double.NaN, mean, mean, mean, new double[0]);
    }

    static double windowMean(Random rnd, double mean) {
        double s = 0;
        for (int i = 0; i < 100; i++) s += Math.exp(rnd.nextGaussian() - 0.5);
        return mean * s / 100;
    }

    /** Runs {@code seconds} periods of flight-a at {@code mean(t)}; returns the first period predicted (-1: none) and the class's crossing. */
    static int[] run(int seconds, java.util.function.IntToDoubleFunction mean, ViolationPredictions rule, AtomicLong nanos, Plan plan) {
        PlanningInput base = input();
        int first = -1, crossed = -1;
        for (int t = 0; t < seconds; t++) {
            nanos.addAndGet(1_000_000_000L);
            double r = mean.applyAsDouble(t);
            rule.observe(Map.of("flight-a", window("flight-a", r)));
            PlanningInput now = base.withResponseTimes(Map.of("flight-a", r));
            // what the class observes: the plan's R on the provider's true mean
            double classR = OptimizationEngine.evaluate(now, plan).get("gold").responseTime();
            if (crossed < 0 && classR > GOLD.maxResponseTime()) crossed = t;
            Map<String, ClassMonitor.ClassStats> observed = Map.of("gold", new ClassMonitor.ClassStats("gold", 500, classR, 1));
            rule.judge(now, observed);
            if (!rule.check(plan, now, List.of(GOLD), observed).isEmpty() && first < 0) first = t;
        }
        return new int[]{first, crossed};
    }

    static Plan plan() {
        Plan plan = new OptimizationEngine(OptimizationEngine.SolverChoice.OJALGO).plan(input()).plan();
        assertTrue(plan.shares("gold", FLIGHT).get(0).implementation().members().contains("flight-a"), "the plan relies on flight-a");
        return plan;
    }

    @Test
    void theHorizonIsTwoPeriodsAndASolveButAtLeastTenSeconds() {
        ViolationPredictions rule = new ViolationPredictions(SETTINGS, () -> 0);
        assertEquals(10, rule.horizonPeriods(null), 1e-9);
        ViolationPredictions slow = new ViolationPredictions(SETTINGS.withPeriods(5000, 1000, 2000), () -> 0);
        assertEquals(2, slow.horizonPeriods(null), 1e-9, "with 5 s periods two of them are the horizon");
    }

    @Test
    void aRampingProviderIsPredictedToTakeTheClassOverItsMaxBeforeItDoesAndTheNextPlanAssumesItsForecast() {
        AtomicLong nanos = new AtomicLong();
        ViolationPredictions rule = new ViolationPredictions(SETTINGS, nanos::get);
        Plan plan = plan();
        // 30 s flat at 100 ms, then up to ten times that over 120 s, without noise (on lognormal
        // windows the lower bound is too wide to predict this class's crossing: docs/model.md, "Forecasts")
        int[] r = run(150, t -> t < 30 ? 0.1 : 0.1 + 0.9 * (t - 30) / 120.0, rule, nanos, plan);
        System.out.printf("ramp: predicted at %d s, the class crossed at %d s: %d s ahead%n", r[0], r[1], r[1] - r[0]);
        assertTrue(r[0] >= 30, "not before the ramp: " + r[0]);
        assertTrue(r[1] > 0 && r[0] < r[1], "predicted at " + r[0] + ", crossed at " + r[1]);
        assertEquals(1, rule.predicted(), "one prediction per episode");
        assertEquals(1, rule.confirmed(), "it came true");
        assertEquals(0, rule.missed());
    }

    @Test
    void theNextPlanIsMadeWithTheDriversForecastWhileAPredictionIsOpen() {
        AtomicLong nanos = new AtomicLong();
        ViolationPredictions rule = new ViolationPredictions(SETTINGS, nanos::get);
        Plan plan = plan();
        PlanningInput base = input();
        List<ViolationPredictions.Predicted> fired = List.of();
        double r = 0.1;
        for (int t = 0; t < 100 && fired.isEmpty(); t++) {
            nanos.addAndGet(1_000_000_000L);
            r = 0.1 + 0.01 * t; // 10 ms a second, noiseless
            rule.observe(Map.of("flight-a", window("flight-a", r)));
            PlanningInput now = base.withResponseTimes(Map.of("flight-a", r));
            fired = rule.check(plan, now, List.of(GOLD), Map.of("gold", new ClassMonitor.ClassStats("gold", 500, r, 1)));
        }
        assertEquals(1, fired.size());
        ViolationPredictions.Predicted p = fired.get(0);
        assertEquals(java.util.Set.of("flight-a"), p.drivers());
        assertTrue(r <= GOLD.maxResponseTime(), "still within the SLA when predicted: " + r);
        Map<String, Double> ahead = rule.ahead(plan);
        assertEquals(r + 0.01 * 10, ahead.get("flight-a"), 0.005, "the forecast ten periods ahead");
        assertTrue(p.secondsAhead() > 0 && p.secondsAhead() <= 10, p.detail());
        // the plan made with it no longer relies on flight-a alone
        Plan next = new OptimizationEngine(OptimizationEngine.SolverChoice.OJALGO).plan(base.withResponseTimes(ahead)).plan();
        assertTrue(OptimizationEngine.evaluate(base.withResponseTimes(ahead), next).get("gold").responseTime() <= GOLD.maxResponseTime(),
                "the new plan keeps the SLA where flight-a is going");
    }

    @Test
    void aPredictionWhoseProvidersLevelOffIsRecordedAsMissed() {
        AtomicLong nanos = new AtomicLong();
        ViolationPredictions rule = new ViolationPredictions(SETTINGS, nanos::get);
        Plan plan = plan();
        // a rise of 10 ms a second to 640 ms that then falls back to 100 ms: predicted, then never there
        int[] r = run(120, t -> t < 20 ? 0.1 : t < 75 ? 0.1 + 0.01 * (t - 20) : 0.1, rule, nanos, plan);
        assertTrue(r[0] >= 0, "predicted");
        assertEquals(-1, r[1], "the class never crossed");
        assertEquals(1, rule.missed());
        assertEquals(0, rule.confirmed());
    }

    @Test
    void aLongRunOfStationaryLognormalNoiseGivesNoPrediction() {
        AtomicLong nanos = new AtomicLong();
        ViolationPredictions rule = new ViolationPredictions(SETTINGS, nanos::get);
        Plan plan = plan();
        Random rnd = new Random(5);
        // 20,000 one-second windows of 100 calls at 400 ms: the class's R_max is 700 ms
        int[] r = run(20_000, t -> windowMean(rnd, 0.4), rule, nanos, plan);
        assertEquals(-1, r[0], "predicted at " + r[0]);
        assertEquals(0, rule.predicted());
        assertFalse(rule.anyWork() && rule.predicted() > 0);
    }
}
