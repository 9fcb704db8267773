package io.moses.optimizer;

import static io.moses.optimizer.Fixtures.service;
import static io.moses.optimizer.Fixtures.serviceClass;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.model.Activity;
import io.moses.model.CompositeService;
import io.moses.model.ConcreteService;
import io.moses.model.Implementation;
import io.moses.model.Plan;
import io.moses.model.ServiceClass;
import io.moses.model.TaskRef;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Properties on random instances, checked with docs/model.md's formulas written out again here (not
 * the engine's code): every plan satisfies every constraint it claims to, fractions sum to 1,
 * both solvers agree on the objective.
 */
class RandomInstancesTest {
    static final double F = 2.0; // failure-detection time of every service

    @Test
    void everyPlanKeepsEveryConstraintAndBothSolversAgree() {
        Map<PlanResult.Status, Integer> seen = new HashMap<>();
        for (long seed = 1; seed <= 40; seed++) {
            PlanningInput in = instance(new Random(seed), seed);
            for (PlanningInput.Objective o : PlanningInput.Objective.values()) {
                PlanningInput run = in.withSettings(in.settings().withObjective(o));
                PlanResult r = Both.plan(run);
                seen.merge(r.status(), 1, Integer::sum);
                assertTrue(r.hasPlan(), "seed " + seed + ": " + r.message());
                check(run, r, "seed " + seed + " " + o);
            }
        }
        // the generator must exercise the interesting paths, not only the easy one
        assertTrue(seen.getOrDefault(PlanResult.Status.OPTIMAL, 0) > 10, seen.toString());
        assertTrue(seen.getOrDefault(PlanResult.Status.RELAXED, 0) > 2, seen.toString());
    }

    static PlanningInput instance(Random rnd, long seed) {
        String comp = "R" + seed;
        int nTasks = 2 + rnd.nextInt(4);
        List<TaskRef> tasks = new ArrayList<>();
        for (int i = 0; i < nTasks; i++) tasks.add(new TaskRef(comp, "p" + i + ".op"));
        List<Activity> parts = new ArrayList<>();
        int i = 0;
        while (i < nTasks) {
            int kind = rnd.nextInt(4);
            if (kind == 0 && i + 1 < nTasks) {
                parts.add(new Activity.Flow("/f" + i, List.of(new Activity.Invoke("/i" + i, tasks.get(i)),
                        new Activity.Sequence("/s" + i, List.of(new Activity.Invoke("/j" + i, tasks.get(i + 1)))))));
                i += 2;
            } else if (kind == 1) {
                parts.add(new Activity.Choice("/c" + i, Activity.Choice.Kind.IF, List.of(
                        new Activity.Invoke("/i" + i, tasks.get(i)), new Activity.NoOp("/e" + i, "empty"))));
                i++;
            } else if (kind == 2) {
                parts.add(new Activity.Loop("/l" + i, Activity.Loop.Kind.WHILE, new Activity.Invoke("/i" + i, tasks.get(i))));
                i++;
            } else parts.add(new Activity.Invoke("/i" + i, tasks.get(i++)));
        }
        var b = PlanningInput.builder().composite(new CompositeService(comp, "urn:r", tasks, new Activity.Sequence("/", parts)));
        int nClasses = 2 + rnd.nextInt(2);
        double total = 0;
        for (int k = 0; k < nClasses; k++) {
            double load = rnd.nextInt(3) == 0 ? 0 : 1 + 9 * rnd.nextDouble();
            total += load;
            b.serviceClass(serviceClass("k" + k, nTasks * (0.3 + rnd.nextDouble()), 0.8 + 0.19 * rnd.nextDouble(),
                    nTasks * (1 + 2 * rnd.nextDouble()), 1 + 10 * rnd.nextDouble()), load);
        }
        for (TaskRef t : tasks) {
            int n = 1 + rnd.nextInt(4);
            for (int j = 0; j < n; j++)
                b.service(service(t.partnerLink() + "s" + j, t, 0.1 + rnd.nextDouble(), 0.8 + 0.2 * rnd.nextDouble(),
                        0.2 + 2 * rnd.nextDouble(), Math.max(1, total) * (0.3 + 1.5 * rnd.nextDouble())));
        }
        var s = PlanningInput.Settings.defaults().withDefaultFailureDetection(F);
        double wr = rnd.nextDouble(), wa = rnd.nextDouble() * (1 - wr);
        return b.settings(s.withWeights(wr, wa, 1 - wr - wa)).build();
    }

    /** docs/model.md, "Implementations", for one implementation: r, a, c and the share of requests per member. */
    record Qos(double r, double a, double c, Map<String, Double> share) {}

    static Qos qos(Implementation impl, Map<String, ConcreteService> byName, Map<String, double[]> samples) {
        List<ConcreteService> ms = impl.members().stream().map(byName::get).toList();
        Map<String, Double> share = new HashMap<>();
        switch (impl.pattern()) {
            case HEDGED -> {
                // docs/model.md, "Hedged requests", over every pair of samples (not the engine's survival sum)
                ConcreteService a = ms.get(0), b = ms.get(1);
                double[] xa = samples.get(a.name()), xb = samples.get(b.name());
                if (xb == null || xb.length < 50) xb = new double[]{b.sla().responseTime()}; // few samples: b's mean
                double d = impl.hedgeDelay(), aa = a.sla().availability(), ab = b.sla().availability();
                double min = 0, meanA = 0, meanB = 0, late = 0;
                for (double x : xa) {
                    meanA += x / xa.length;
                    if (x > d) late += 1.0 / xa.length;
                    for (double y : xb) min += Math.min(x, d + y) / ((double) xa.length * xb.length);
                }
                for (double y : xb) meanB += y / xb.length;
                double start = Math.min(F, d);
                double r = aa * (ab * min + (1 - ab) * meanA) + (1 - aa) * (ab * (start + meanB) + (1 - ab) * Math.max(F, start + F));
                double second = 1 - aa + aa * late;
                share.merge(a.name(), 1.0, Double::sum);
                share.merge(b.name(), second, Double::sum);
                return new Qos(r, 1 - (1 - aa) * (1 - ab), a.sla().cost() + second * b.sla().cost(), share);
            }
            case PARALLEL -> {
                double r = Double.POSITIVE_INFINITY, fail = 1, c = 0;
                for (ConcreteService m : ms) {
                    r = Math.min(r, m.sla().availability() * m.sla().responseTime() + (1 - m.sla().availability()) * F);
                    fail *= 1 - m.sla().availability();
                    c += m.sla().cost();
                    share.merge(m.name(), 1.0, Double::sum);
                }
                return new Qos(r, 1 - fail, c, share);
            }
            default -> {
                double reach = 1, r = 0, c = 0;
                for (ConcreteService m : ms) {
                    r += reach * (m.sla().availability() * m.sla().responseTime() + (1 - m.sla().availability()) * F);
                    c += reach * m.sla().cost();
                    share.merge(m.name(), reach, Double::sum);
                    reach *= 1 - m.sla().availability();
                }
                return new Qos(r, 1 - reach, c, share);
            }
        }
    }

    static double walk(Activity a, Map<TaskRef, Double> taskTime) {
        if (a instanceof Activity.Invoke i) return taskTime.get(i.task());
        if (a instanceof Activity.Sequence s) return s.children().stream().mapToDouble(c -> walk(c, taskTime)).sum();
        if (a instanceof Activity.Flow f) return f.branches().stream().mapToDouble(c -> walk(c, taskTime)).max().orElse(0);
        if (a instanceof Activity.Choice c) return c.branches().stream().mapToDouble(x -> walk(x, taskTime)).sum() / c.branches().size();
        if (a instanceof Activity.Loop l) return walk(l.body(), taskTime);
        return 0;
    }

    static void visits(Activity a, double mult, Map<TaskRef, Double> v) {
        if (a instanceof Activity.Invoke i) v.merge(i.task(), mult, Double::sum);
        else if (a instanceof Activity.Sequence s) s.children().forEach(c -> visits(c, mult, v));
        else if (a instanceof Activity.Flow f) f.branches().forEach(c -> visits(c, mult, v));
        else if (a instanceof Activity.Choice c) c.branches().forEach(x -> visits(x, mult / c.branches().size(), v));
        else if (a instanceof Activity.Loop l) visits(l.body(), mult, v);
    }

    static void check(PlanningInput in, PlanResult result, String what) {
        Plan p = result.plan();
        Map<String, ConcreteService> byName = in.services().stream().collect(Collectors.toMap(ConcreteService::name, s -> s));
        CompositeService comp = in.composites().get(0);
        Set<String> atRisk = p.atRisk().stream().map(Plan.ClassAtRisk::serviceClass).collect(Collectors.toSet());
        if (result.status() == PlanResult.Status.OPTIMAL) assertTrue(atRisk.isEmpty(), what);
        Map<String, Double> endpointLoad = new HashMap<>();
        double m = in.settings().margin();
        for (ServiceClass k : in.classes()) {
            Map<TaskRef, Double> v = new HashMap<>();
            visits(comp.root(), 1, v);
            Map<TaskRef, Double> time = new HashMap<>();
            double lnA = 0, cost = 0;
            for (TaskRef t : comp.tasks()) {
                List<Plan.Share> shares = p.shares(k.name(), t);
                assertFalse(shares.isEmpty(), what + ": no binding for " + k.name() + " " + t);
                double sum = 0, rt = 0, la = 0, co = 0;
                for (Plan.Share s : shares) {
                    assertTrue(s.fraction() >= 0, what + ": negative fraction");
                    sum += s.fraction();
                    Qos q = qos(s.implementation(), byName, in.successSamples());
                    rt += s.fraction() * q.r();
                    la += s.fraction() * Math.log(q.a());
                    co += s.fraction() * q.c();
                    for (var e : q.share().entrySet())
                        endpointLoad.merge(byName.get(e.getKey()).endpoint().toString(),
                                in.load(k.name()) * v.getOrDefault(t, 0.0) * s.fraction() * e.getValue(), Double::sum);
                }
                assertEquals(1.0, sum, 1e-9, what + ": fractions of " + k.name() + " " + t);
                time.put(t, rt);
                lnA += v.getOrDefault(t, 0.0) * la;
                cost += v.getOrDefault(t, 0.0) * co;
            }
            double r = walk(comp.root(), time);
            assertEquals(r, p.predictions().get(k.name()).responseTime(), 1e-7 * Math.max(1, r), what + ": predicted R");
            assertEquals(cost, p.predictions().get(k.name()).cost(), 1e-7 * Math.max(1, cost), what + ": predicted C");
            if (atRisk.contains(k.name())) continue;
            assertTrue(r <= (1 - m) * k.maxResponseTime() * (1 + 1e-6), what + ": R of " + k.name() + " " + r);
            assertTrue(lnA >= Math.log(k.minAvailability()) - 1e-6, what + ": ln A of " + k.name() + " " + lnA);
            assertTrue(cost <= k.maxCost() * (1 + 1e-6), what + ": C of " + k.name() + " " + cost);
        }
        if (result.status() != PlanResult.Status.OVERLOADED)
            for (ConcreteService s : in.services()) {
                double load = endpointLoad.getOrDefault(s.endpoint().toString(), 0.0);
                assertTrue(load <= s.sla().maxRate() * (1 + 1e-6) + 1e-9,
                        what + ": load " + load + " on " + s.name() + " above " + s.sla().maxRate());
            }
    }
}
