package io.moses.optimizer;

import static io.moses.optimizer.Both.assertClose;
import static io.moses.optimizer.Fixtures.service;
import static io.moses.optimizer.Fixtures.serviceClass;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.model.Activity;
import io.moses.model.CompositeService;
import io.moses.model.Implementation;
import io.moses.model.Plan;
import io.moses.model.TaskRef;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Two tasks, two classes, optimum worked out by hand (the arithmetic is in the comments). */
class HandInstancesTest {
    static final TaskRef T1 = new TaskRef("Two", "p1.op"), T2 = new TaskRef("Two", "p2.op");

    static CompositeService sequence() {
        return new CompositeService("Two", "urn:two", List.of(T1, T2), new Activity.Sequence("/", List.of(
                new Activity.Invoke("/1", T1), new Activity.Invoke("/2", T2))));
    }

    static CompositeService flow() {
        return new CompositeService("Two", "urn:two", List.of(T1, T2), new Activity.Flow("/", List.of(
                new Activity.Invoke("/1", T1), new Activity.Invoke("/2", T2))));
    }

    static double omega(double load, double total, int classes) {
        return (load + 1e-3) / (total + classes * 1e-3);
    }

    static double share(Plan p, String cls, TaskRef t, Predicate<Implementation> which) {
        return p.shares(cls, t).stream().filter(s -> which.test(s.implementation())).mapToDouble(Plan.Share::fraction).sum();
    }

    static void assertFractionsSumToOne(Plan p) {
        p.bindings().forEach((k, shares) -> assertClose(1.0, shares.stream().mapToDouble(Plan.Share::fraction).sum(), 1e-9,
                "fractions of " + k));
    }

    @Test
    void parallelRedundancyIsOptimalWhenItIsFasterAndMoreAvailable() {
        // t1: s1, s2 (r 1, a .9, c 1); t2: s3 (r 1, a .99). Failure detection = r, so every single takes 1 s.
        // par(s1,s2): r = min(1, 1) = 1, a = .99, c = 2; alt(s1,s2): r = 1 + .1 = 1.1, a = .99, c = 1.1.
        // Cost has no weight: par dominates, R = 2, A = .99^2, C = 3 for both classes.
        var in = PlanningInput.builder().composite(sequence())
                .service(service("s1", T1, 1, 0.9, 1, 1000)).service(service("s2", T1, 1, 0.9, 1, 1000))
                .service(service("s3", T2, 1, 0.99, 1, 1000))
                .serviceClass(serviceClass("gold", 4, 0.9, 10, 5), 3).serviceClass(serviceClass("silver", 5, 0.8, 10, 2), 1)
                .settings(PlanningInput.Settings.defaults().withWeights(0.5, 0.5, 0))
                .idempotent(T1).build(); // a second call of t1 is safe (IdempotentTasksPlanTest: when it is not)
        PlanResult r = Both.plan(in);
        assertEquals(PlanResult.Status.OPTIMAL, r.status(), r.message());
        Plan p = r.plan();
        for (String k : List.of("gold", "silver")) {
            assertEquals(List.of(new Plan.Share(new Implementation(Implementation.Pattern.PARALLEL, List.of("s1", "s2")), 1.0)),
                    p.shares(k, T1));
            assertClose(2.0, p.predictions().get(k).responseTime(), 1e-9, "R " + k);
            assertClose(0.99 * 0.99, p.predictions().get(k).availability(), 1e-9, "A " + k);
            assertClose(3.0, p.predictions().get(k).cost(), 1e-9, "C " + k);
        }
        double lnA = 2 * Math.log(0.99);
        double f = omega(3, 4, 2) * (0.5 * (1 - 2.0 / 4) + 0.5 * (lnA - Math.log(0.9)) / -Math.log(0.9))
                + omega(1, 4, 2) * (0.5 * (1 - 2.0 / 5) + 0.5 * (lnA - Math.log(0.8)) / -Math.log(0.8));
        assertClose(f, p.objective(), 1e-9, "objective");
        assertTrue(p.atRisk().isEmpty());
        assertFractionsSumToOne(p);
    }

    @Test
    void alternateIsOptimalWhenAvailabilityIsNeededCheaply() {
        // Same services; w_a = w_c = .5. A single on t1 gives A = .9 * .99 = .891 < .95; alt and par
        // give .99 * .99; alt costs 1 + .1 * 1 = 1.1 against par's 2. Moving single -> alt gains
        // .5 * ln(.99/.9) / -ln .95 = .929 and loses .5 * .1 / 10 = .005: all alt.
        var in = PlanningInput.builder().composite(sequence())
                .service(service("s1", T1, 1, 0.9, 1, 1000)).service(service("s2", T1, 1, 0.9, 1, 1000))
                .service(service("s3", T2, 1, 0.99, 1, 1000))
                .serviceClass(serviceClass("gold", 10, 0.95, 10, 5), 2).serviceClass(serviceClass("silver", 10, 0.95, 5, 2), 2)
                .settings(PlanningInput.Settings.defaults().withWeights(0, 0.5, 0.5)).build();
        PlanResult r = Both.plan(in);
        assertEquals(PlanResult.Status.OPTIMAL, r.status(), r.message());
        Plan p = r.plan();
        for (String k : List.of("gold", "silver")) {
            assertClose(1.0, share(p, k, T1, i -> i.pattern() == Implementation.Pattern.ALTERNATE), 1e-9, "alt share " + k);
            assertClose(2.1, p.predictions().get(k).cost(), 1e-9, "C " + k);
        }
        double lnA = 2 * Math.log(0.99), d = -Math.log(0.95);
        double f = 0.5 * (0.5 * (lnA - Math.log(0.95)) / d + 0.5 * (1 - 2.1 / 10))
                + 0.5 * (0.5 * (lnA - Math.log(0.95)) / d + 0.5 * (1 - 2.1 / 5));
        assertClose(f, p.objective(), 1e-9, "objective");
        assertFractionsSumToOne(p);
    }

    @Test
    void capacityOfTheFastProviderGoesToTheClassThatGainsMostPerRequest() {
        // t1: s1 fast (r .2, l 5), s2 slow (r 1, l 100); t2: s3 (r .5). w_r = 1. Loads gold 6, silver 4.
        // Per unit of s1 capacity: gold gains omega_g * .8 / (2 * 6) = .04, silver omega_s * .8 / (4 * 4) = .02.
        // So gold sends 5/6 of its requests to s1 (s1 at its limit), silver none:
        // R_gold = .2 * 5/6 + 1/6 + .5, R_silver = 1.5.
        var in = PlanningInput.builder().composite(sequence())
                .service(service("s1", T1, 0.2, 0.99, 1, 5)).service(service("s2", T1, 1, 0.99, 1, 100))
                .service(service("s3", T2, 0.5, 0.99, 1, 100))
                .serviceClass(serviceClass("gold", 2, 0.9, 10, 5), 6).serviceClass(serviceClass("silver", 4, 0.9, 10, 2), 4)
                .settings(PlanningInput.Settings.defaults().withWeights(1, 0, 0)).build();
        PlanResult r = Both.plan(in);
        assertEquals(PlanResult.Status.OPTIMAL, r.status(), r.message());
        Plan p = r.plan();
        double rGold = 0.2 * 5 / 6 + 1.0 / 6 + 0.5;
        assertClose(rGold, p.predictions().get("gold").responseTime(), 1e-9, "R gold");
        assertClose(1.5, p.predictions().get("silver").responseTime(), 1e-9, "R silver");
        double f = omega(6, 10, 2) * (1 - rGold / 2) + omega(4, 10, 2) * (1 - 1.5 / 4);
        assertClose(f, p.objective(), 1e-9, "objective");
        // load on s1: every implementation with s1 first or in parallel sends it all its requests
        double load = 0;
        for (String k : List.of("gold", "silver"))
            for (Plan.Share s : p.shares(k, T1)) {
                Implementation i = s.implementation();
                double q = i.members().get(0).equals("s1") || (i.pattern() == Implementation.Pattern.PARALLEL && i.members().contains("s1"))
                        ? 1 : i.members().contains("s1") ? 0.01 : 0;
                load += in.load(k) * s.fraction() * q;
            }
        assertClose(5.0, load, 1e-7, "load on s1 (its capacity)");
        assertFractionsSumToOne(p);
    }

    @Test
    void aFlowCostsItsSlowestBranchNotTheSum() {
        // flow{t1, t2}; t1: s1 (r 1, c 1), s2 (r .5, c 3); t2: s3 (r .8, c 1); a = 1; w_r = w_c = .5.
        // Moving x from s1 to s2 gains .5 * .5 / 2 = .125 per unit while t1 is the slower branch and
        // costs .5 * 2 / Cmax. Gold (Cmax 10, cost .1 per unit): up to t1 = .8, x = .4: R = .8, C = 2.8,
        // F = .5 * .6 + .5 * .72 = .66. Silver (Cmax 2.5, cost .4 per unit) stays on s1: R = 1, C = 2,
        // F = .5 * .5 + .5 * .2 = .35. (A sum instead of the max would move gold entirely to s2.)
        var in = PlanningInput.builder().composite(flow())
                .service(service("s1", T1, 1, 1, 1, 1000)).service(service("s2", T1, 0.5, 1, 3, 1000))
                .service(service("s3", T2, 0.8, 1, 1, 1000))
                .serviceClass(serviceClass("gold", 2, 0.9, 10, 5), 1).serviceClass(serviceClass("silver", 2, 0.9, 2.5, 2), 1)
                .settings(PlanningInput.Settings.defaults().withWeights(0.5, 0, 0.5)).build();
        PlanResult r = Both.plan(in);
        assertEquals(PlanResult.Status.OPTIMAL, r.status(), r.message());
        Plan p = r.plan();
        Predicate<Implementation> fast = i -> i.members().get(0).equals("s2") && i.pattern() != Implementation.Pattern.PARALLEL;
        assertClose(0.4, share(p, "gold", T1, fast), 1e-7, "gold share on s2");
        assertEquals(0.0, share(p, "silver", T1, fast), 1e-9, "silver share on s2");
        assertClose(0.8, p.predictions().get("gold").responseTime(), 1e-7, "R gold");
        assertClose(1.0, p.predictions().get("silver").responseTime(), 1e-7, "R silver");
        assertClose(2.8, p.predictions().get("gold").cost(), 1e-7, "C gold");
        assertClose(2.0, p.predictions().get("silver").cost(), 1e-7, "C silver");
        assertClose(0.5 * 0.66 + 0.5 * 0.35, p.objective(), 1e-9, "objective");
        assertFractionsSumToOne(p);
    }

    @Test
    void infeasibleProgramGivesARelaxedPlanWithTheClassesAtRisk() {
        // Fastest t1 is .3 (s2, or par(s1,s2)); with t2's .7, R >= 1.0. Gold wants R <= .9 * .5: infeasible.
        // Phase 1 makes gold as fast as possible: R = 1.0, excess 1.0 - .45 = .55 over the margin bound,
        // breaking the SLA itself (1.0 > .5). Silver (R_max 5) keeps its SLA.
        var b = PlanningInput.builder().composite(sequence())
                .service(service("s1", T1, 0.5, 0.99, 1, 1000)).service(service("s2", T1, 0.3, 0.99, 1, 1000))
                .service(service("s3", T2, 0.7, 0.99, 1, 1000));
        var in = b.serviceClass(serviceClass("gold", 0.5, 0.9, 10, 10), 1).serviceClass(serviceClass("silver", 5, 0.9, 10, 1), 1).build();
        PlanResult r = Both.plan(in);
        assertEquals(PlanResult.Status.RELAXED, r.status(), r.message());
        Plan p = r.plan();
        assertEquals(1, p.atRisk().size(), p.atRisk().toString());
        Plan.ClassAtRisk risk = p.atRisk().get(0);
        assertEquals("gold", risk.serviceClass());
        assertClose(0.55, risk.responseTimeExcess(), 1e-6, "R excess (phase 2 may use 1e-7 more slack)");
        assertEquals(0.0, risk.availabilityShortfall());
        assertEquals(0.0, risk.costExcess());
        assertTrue(risk.breaksSla());
        assertClose(1.0, p.predictions().get("gold").responseTime(), 1e-6, "R gold");
        assertFractionsSumToOne(p);

        // R_max 1.05: R = 1.0 keeps the SLA but not its 10% margin (bound .945).
        var marginOnly = PlanningInput.builder().composite(sequence())
                .service(service("s1", T1, 0.5, 0.99, 1, 1000)).service(service("s2", T1, 0.3, 0.99, 1, 1000))
                .service(service("s3", T2, 0.7, 0.99, 1, 1000))
                .serviceClass(serviceClass("gold", 1.05, 0.9, 10, 10), 1).serviceClass(serviceClass("silver", 5, 0.9, 10, 1), 1).build();
        PlanResult m = Both.plan(marginOnly);
        assertEquals(PlanResult.Status.RELAXED, m.status());
        Plan.ClassAtRisk mr = m.plan().atRisk().get(0);
        assertClose(1.0 - 0.945, mr.responseTimeExcess(), 1e-6, "R excess over the margin");
        assertFalse(mr.breaksSla());
    }

    @Test
    void capacityOverloadScalesEveryLimitByTheLeastUtilization() {
        // One task, 10 req/s, providers of 2 and 3 req/s: the least utilization is 10 / 5 = 2, with
        // 4 req/s on s1 and 6 on s2 (singles: redundancy only adds load). Phase 2 may move a sliver
        // (the 1e-6 headroom of the scaled limits) to an alternate, hence the loose share tolerance.
        TaskRef t = T1;
        var in = PlanningInput.builder()
                .composite(new CompositeService("Two", "urn:two", List.of(t), new Activity.Invoke("/1", t)))
                .service(service("s1", t, 0.5, 0.99, 1, 2)).service(service("s2", t, 0.5, 0.99, 1, 3))
                .serviceClass(serviceClass("gold", 2, 0.9, 10, 10), 10).build();
        PlanResult r = Both.plan(in);
        assertEquals(PlanResult.Status.OVERLOADED, r.status(), r.message());
        assertEquals(Set.of("http://127.0.0.1:9/s1", "http://127.0.0.1:9/s2"), Set.copyOf(r.overloadedProviders()));
        Plan p = r.plan();
        assertClose(0.4, share(p, "gold", t, i -> i.equals(Implementation.single("s1"))), 1e-3, "share s1");
        assertClose(0.6, share(p, "gold", t, i -> i.equals(Implementation.single("s2"))), 1e-3, "share s2");
        assertTrue(r.message().contains("overloaded"), r.message());
    }

    @Test
    void aTaskWithoutAnyAvailableServiceFailsWithAClearReason() {
        var in = PlanningInput.builder().composite(sequence())
                .service(service("s1", T1, 1, 0.9, 1, 1000)).service(service("s3", T2, 1, 0.99, 1, 1000))
                .down("s3").serviceClass(serviceClass("gold", 4, 0.9, 10, 5), 3).build();
        for (OptimizationEngine e : Both.ENGINES) {
            PlanResult r = e.plan(in);
            assertEquals(PlanResult.Status.FAILED, r.status());
            assertTrue(r.message().contains("Two/p2.op"), r.message());
            assertFalse(r.hasPlan());
        }
    }

    @Test
    void revenueObjectiveBuysExactlyTheAvailabilityTheSlaNeeds() {
        // Revenue = sum L (P - C). Gold needs ln A >= ln .95 with t2 at .99: x_alt ln .99 + (1 - x_alt) ln .9
        // + ln .99 >= ln .95, so x_alt = (ln .95 - ln .99 - ln .9) / (ln .99 - ln .9); each alt adds .1 to C.
        // Silver (A_min .8) needs no alternate.
        var in = PlanningInput.builder().composite(sequence())
                .service(service("s1", T1, 1, 0.9, 1, 1000)).service(service("s2", T1, 1, 0.9, 1, 1000))
                .service(service("s3", T2, 1, 0.99, 1, 1000))
                .serviceClass(serviceClass("gold", 10, 0.95, 10, 5), 2).serviceClass(serviceClass("silver", 10, 0.8, 10, 3), 3)
                .settings(PlanningInput.Settings.defaults().withObjective(PlanningInput.Objective.REVENUE)).build();
        PlanResult r = Both.plan(in);
        assertEquals(PlanResult.Status.OPTIMAL, r.status(), r.message());
        double xAlt = (Math.log(0.95) - Math.log(0.99) - Math.log(0.9)) / (Math.log(0.99) - Math.log(0.9));
        double revenue = 2 * (5 - 2 - 0.1 * xAlt) + 3 * (3 - 2);
        assertClose(revenue, r.plan().objective(), 1e-8, "revenue (the tie-break may give up 1e-9)");
        assertClose(xAlt, share(r.plan(), "gold", T1, i -> i.pattern() == Implementation.Pattern.ALTERNATE), 1e-7, "gold alt");
        assertClose(2 + 0.1 * xAlt, r.plan().predictions().get("gold").cost(), 1e-8, "C gold");
        assertFractionsSumToOne(r.plan());
        assertTrue(r.diagnostics().solves() >= 2, "revenue ties are broken by a second solve");
    }

    @Test
    void servicesFoundDownAreNotCandidates() {
        var in = PlanningInput.builder().composite(sequence())
                .service(service("s1", T1, 1, 0.9, 1, 1000)).service(service("s2", T1, 1, 0.9, 1, 1000))
                .service(service("s3", T2, 1, 0.99, 1, 1000)).down("s2")
                .serviceClass(serviceClass("gold", 4, 0.8, 10, 5), 3).build();
        Plan p = Both.plan(in).plan();
        Set<String> used = p.bindings().values().stream().flatMap(List::stream)
                .flatMap(s -> s.implementation().members().stream()).collect(Collectors.toSet());
        assertEquals(Set.of("s1", "s3"), used);
    }
}
