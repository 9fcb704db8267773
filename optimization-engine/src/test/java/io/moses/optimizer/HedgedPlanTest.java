package io.moses.optimizer;

import static io.moses.optimizer.Both.assertClose;
import static io.moses.optimizer.Fixtures.service;
import static io.moses.optimizer.Fixtures.serviceClass;
import static io.moses.optimizer.HandInstancesTest.T1;
import static io.moses.optimizer.HandInstancesTest.T2;
import static io.moses.optimizer.HandInstancesTest.sequence;
import static io.moses.optimizer.HandInstancesTest.share;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.model.ConcreteService;
import io.moses.model.Implementation;
import io.moses.model.Plan;
import io.moses.model.TaskRef;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Hedged pairs (docs/model.md, "Hedged requests"): their r, a and c against a simulation of the
 * request path, the LP choosing hedge where it buys the response time for less than par, never for
 * a task that is not idempotent, and the independent checks of {@link RandomInstancesTest}.
 */
class HedgedPlanTest {
    static final Implementation.Pattern HEDGED = Implementation.Pattern.HEDGED;

    /** Lognormal latencies with the given mean [s] and sigma of the underlying normal. */
    static double[] lognormal(Random rnd, int n, double mean, double sigma) {
        double mu = Math.log(mean) - sigma * sigma / 2;
        double[] x = new double[n];
        for (int i = 0; i < n; i++) x[i] = Math.exp(mu + sigma * rnd.nextGaussian());
        return x;
    }

    @Test
    void timeAvailabilityAndCostMatchASimulationOfTheRequestPath() {
        Random rnd = new Random(11);
        double[] xa = lognormal(rnd, 500, 0.1, 1.5), xb = lognormal(rnd, 500, 0.08, 0.5);
        double aa = 0.97, ab = 0.95, fa = 0.3, fb = 0.2, ca = 2, cb = 3;
        var a = QosFormulasTest.member("a", 0.1, aa, fa, ca, xa);
        var b = QosFormulasTest.member("b", 0.08, ab, fb, cb, xb);
        double d = Hedge.delay(xa);
        // d (the p95 of a) lies between a's failure detection and its tail here, so both failure cases occur
        ImplementationQos q = Hedge.pair(a, b, d);
        assertEquals(Implementation.hedged("a", "b", d), q.implementation());

        // the request path, drawn: a at 0; b at d if a has not answered, or when a fails, if sooner
        int n = 2_000_000;
        double time = 0, ok = 0, second = 0;
        for (int i = 0; i < n; i++) {
            boolean aOk = rnd.nextDouble() < aa;
            double ta = aOk ? xa[rnd.nextInt(xa.length)] : fa;
            double start = aOk ? (ta > d ? d : Double.NaN) : Math.min(ta, d);
            if (Double.isNaN(start)) {
                time += ta;
                ok++;
                continue;
            }
            second++;
            boolean bOk = rnd.nextDouble() < ab;
            double tb = start + (bOk ? xb[rnd.nextInt(xb.length)] : fb);
            if (aOk && bOk) time += Math.min(ta, tb);
            else if (aOk) time += ta;
            else if (bOk) time += tb;
            else time += Math.max(ta, tb);
            if (aOk || bOk) ok++;
        }
        assertClose(time / n, q.responseTime(), 0.01, "r");
        assertClose(ok / n, q.availability(), 5e-4, "a");
        assertClose(ca + cb * second / n, q.cost(), 0.002, "c");
        assertClose(second / n, q.endpointShare().get("http://127.0.0.1:9/b"), 0.02, "share of b");
        assertEquals(1.0, q.endpointShare().get("http://127.0.0.1:9/a"));
        // the pair is faster than a alone, and pays b for about 8 % of the calls (5 % slow, 3 % failed)
        assertTrue(q.responseTime() < a.expectedTime(), q + " vs " + a.expectedTime());
        assertClose(0.03 + 0.97 * 0.05, second / n, 0.03, "share of second calls");

        // b with too few samples for a distribution: its mean stands for it, on the safe side
        var bMean = QosFormulasTest.member("b", mean(xb), ab, fb, cb, Arrays.copyOf(xb, Hedge.MIN_SAMPLES - 1));
        ImplementationQos safe = Hedge.pair(a, bMean, d);
        assertTrue(safe.responseTime() > q.responseTime(), safe + " vs " + q);
        assertEquals(q.cost(), safe.cost(), 1e-12);
        // a with too few samples: no hedge with a first
        var aFew = QosFormulasTest.member("a", 0.1, aa, fa, ca, Arrays.copyOf(xa, Hedge.MIN_SAMPLES - 1));
        assertEquals(List.of("hedge(b,a;d=" + Hedge.delay(xb) + ")"),
                Hedge.pairs(List.of(aFew, b)).stream().map(h -> h.implementation().toString()).toList());
    }

    @Test
    void theDelayIsTheFirstMembersP95RoundedUpToATenthOfAMillisecond() {
        double[] xs = new double[200];
        for (int i = 0; i < xs.length; i++) xs[i] = (i + 1) / 1000.0; // 1 .. 200 ms
        assertEquals(0.19, Hedge.delay(xs), 1e-12, "the 190th of 200");
        assertEquals(0.1235, Hedge.delay(new double[]{0.12341}), 1e-12);
        Implementation h = Implementation.hedged("x", "y", Hedge.delay(new double[]{0.12341}));
        assertEquals("hedge(x,y;d=0.1235)", h.toString());
        assertEquals(h, Implementation.parse(h.toString()));
    }

    /** T1: two heavy-tailed providers (lognormal, sigma 1.5); T2 one fast provider. Cost is the whole objective. */
    static PlanningInput.Builder heavyTails(double rMax) {
        Random rnd = new Random(5);
        double[] x1 = lognormal(rnd, 500, 0.1, 1.5), x2 = lognormal(rnd, 500, 0.1, 1.5);
        return PlanningInput.builder().composite(sequence())
                .service(service("s1", T1, mean(x1), 0.999, 1, 1000)).service(service("s2", T1, mean(x2), 0.999, 1, 1000))
                .service(service("s3", T2, 0.05, 0.999, 1, 1000))
                .successSamples("s1", x1).successSamples("s2", x2)
                .serviceClass(serviceClass("gold", rMax, 0.5, 10, 5), 3)
                .settings(PlanningInput.Settings.defaults().withWeights(0, 0, 1).withDefaultFailureDetection(RandomInstancesTest.F));
    }

    static double mean(double[] xs) {
        return Arrays.stream(xs).average().orElseThrow();
    }

    @Test
    void theOptimizerChoosesHedgeWhereItBuysTheResponseTimeForLessThanPar() {
        PlanningInput probe = heavyTails(10).idempotent(T1).build();
        Candidates c = new Candidates(probe, List.of(T1));
        double single = Double.POSITIVE_INFINITY, par = 0, hedge = Double.POSITIVE_INFINITY;
        for (ImplementationQos q : c.of(T1))
            switch (q.implementation().pattern()) {
                case SINGLE -> single = Math.min(single, q.responseTime());
                case PARALLEL -> par = q.responseTime();
                case HEDGED -> hedge = Math.min(hedge, q.responseTime());
                default -> { }
            }
        assertTrue(par < hedge && hedge < single, "par " + par + " hedge " + hedge + " single " + single);
        // an SLA that a single provider misses and a hedge keeps
        double target = single - 0.9 * (single - hedge);
        double rMax = (target + 0.999 * 0.05 + 0.001 * RandomInstancesTest.F) / 0.9;

        PlanningInput in = heavyTails(rMax).idempotent(T1).build();
        PlanResult r = Both.plan(in);
        assertEquals(PlanResult.Status.OPTIMAL, r.status(), r.message());
        RandomInstancesTest.check(in, r, "heavy tails");
        Plan p = r.plan();
        // one class, cost the whole objective: F = 1 - C / C_max, with C checked independently above
        assertClose(1 - p.predictions().get("gold").cost() / 10, p.objective(), 1e-9, "objective");
        assertClose(0.0, share(p, "gold", T1, i -> i.pattern() == Implementation.Pattern.PARALLEL), 1e-12, "par share");
        assertTrue(share(p, "gold", T1, i -> i.pattern() == HEDGED) > 0.85, p.shares("gold", T1).toString());
        // par would have to be mixed in with the single at this share to reach the same R, paying both calls
        double parShare = (single - target) / (single - par);
        double parCost = 1 + parShare + 1;
        assertTrue(p.predictions().get("gold").cost() < parCost - 0.1,
                "hedge plan C " + p.predictions().get("gold").cost() + " vs " + parCost + " with par");
        for (OptimizationEngine cg : Both.columnGeneration()) {
            PlanResult g = cg.plan(in);
            assertClose(p.objective(), g.plan().objective(), 1e-6, "column generation, " + g.plan().solver());
        }

        // the same program for a task that is not idempotent: no hedge, whatever it costs
        PlanningInput unsafe = heavyTails(rMax).build();
        PlanResult u = Both.plan(unsafe);
        assertTrue(u.hasPlan(), u.message());
        RandomInstancesTest.check(unsafe, u, "not idempotent");
        assertClose(0.0, share(u.plan(), "gold", T1, i -> i.pattern() == HEDGED || i.pattern() == Implementation.Pattern.PARALLEL),
                1e-12, "hedge or par share");
        assertEquals(PlanResult.Status.RELAXED, u.status(), "without hedge or par the SLA cannot be kept");
    }

    @Test
    void onRandomInstancesWithSamplesOnlyIdempotentTasksGetHedgesAndEveryCheckHolds() {
        int hedges = 0;
        for (long seed = 1; seed <= 30; seed++) {
            PlanningInput all = RandomInstancesTest.instance(new Random(seed), seed);
            Random rnd = new Random(seed * 31);
            Map<String, double[]> samples = new HashMap<>();
            for (ConcreteService s : all.services()) samples.put(s.name(), lognormal(rnd, 200, s.sla().responseTime(), 1.5));
            Set<TaskRef> idempotent = new HashSet<>();
            List<TaskRef> tasks = all.composites().get(0).tasks();
            for (int i = 0; i < tasks.size(); i += 2) idempotent.add(tasks.get(i));
            // no 1-out-of-n: the independent check of RandomInstancesTest computes par without samples
            PlanningInput in = new PlanningInput(all.composites(), all.classes(), all.classLoad(), all.services(), all.down(),
                    all.observed(), samples, all.failureDetection(), all.profiles(), all.visits(),
                    all.settings().withCaps(1, 2), idempotent);
            PlanResult r = Both.plan(in);
            assertTrue(r.hasPlan(), "seed " + seed + ": " + r.message());
            RandomInstancesTest.check(in, r, "seed " + seed);
            for (var e : r.plan().bindings().entrySet())
                for (Plan.Share s : e.getValue()) {
                    if (s.fraction() <= 0 || s.implementation().pattern() != HEDGED) continue;
                    assertTrue(idempotent.contains(e.getKey().task()), "seed " + seed + ": " + s + " for " + e.getKey());
                    hedges++;
                }
        }
        assertTrue(hedges > 0, "the instances must make hedge worth choosing for the idempotent tasks");
    }
}
