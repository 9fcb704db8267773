package io.moses.optimizer;

import static io.moses.optimizer.Both.assertClose;
import static io.moses.optimizer.Fixtures.serviceClass;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.model.Activity;
import io.moses.model.CompositeService;
import io.moses.model.ConcreteService;
import io.moses.model.Implementation;
import io.moses.model.Plan;
import io.moses.model.ProviderSla;
import io.moses.model.ServiceClass;
import io.moses.model.TaskRef;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Stateful partners (docs/model.md, "Stateful partners"): a stateful task is bound only to single
 * services of the providers that offer every task of its partner link, with the same fraction of
 * each provider on all of them, and the optimum is the best provider mix computed independently.
 */
class StatefulPartnersPlanTest {
    static final String HOTEL = "Hotel";
    static final TaskRef RESERVE = TaskRef.of(HOTEL, "hotel", "reserve"), CONFIRM = TaskRef.of(HOTEL, "hotel", "confirm");
    static final String A = "http://a.example/hotel", B = "http://b.example/hotel", C = "http://c.example/hotel";

    /** sequence{reserve, confirm}. */
    static CompositeService reserveThenConfirm() {
        return new CompositeService(HOTEL, "urn:hotel", List.of(RESERVE, CONFIRM), new Activity.Sequence("/", List.of(
                new Activity.Invoke("/reserve", RESERVE), new Activity.Invoke("/confirm", CONFIRM))));
    }

    /** sequence{reserve, if{confirm | empty}}: half the requests confirm (equal branches), V_confirm = 0.5. */
    static CompositeService reserveThenMaybeConfirm() {
        return new CompositeService(HOTEL, "urn:hotel", List.of(RESERVE, CONFIRM), new Activity.Sequence("/", List.of(
                new Activity.Invoke("/reserve", RESERVE),
                new Activity.Choice("/if", Activity.Choice.Kind.IF, List.of(
                        new Activity.Invoke("/confirm", CONFIRM), new Activity.NoOp("/else", "empty"))))));
    }

    /** A concrete service at a provider's endpoint (records of one provider share it, and its limit). */
    static ConcreteService at(String endpoint, String name, TaskRef task, double r, double a, double c, double l) {
        return new ConcreteService(name, task, URI.create(endpoint), new ProviderSla(r, a, c, l), null);
    }

    /** Class k's fraction of {@code task} on the singles of {@code endpoint}. */
    static double onProvider(PlanningInput in, Plan p, String k, TaskRef task, String endpoint) {
        Map<String, ConcreteService> byName = in.services().stream().collect(Collectors.toMap(ConcreteService::name, s -> s));
        double f = 0;
        for (Plan.Share s : p.shares(k, task))
            if (s.implementation().pattern() == Implementation.Pattern.SINGLE
                    && byName.get(s.implementation().members().get(0)).endpoint().toString().equals(endpoint))
                f += s.fraction();
        return f;
    }

    /** Every solver's plan (they agree on the objective, {@link Both#plan}), and column generation's. */
    static List<PlanResult> everySolver(PlanningInput in) {
        PlanResult agreed = Both.plan(in);
        List<PlanResult> out = new ArrayList<>();
        for (OptimizationEngine e : Both.ENGINES) out.add(e.plan(in));
        for (OptimizationEngine e : Both.columnGeneration()) {
            PlanResult r = e.plan(in);
            assertEquals(agreed.status(), r.status(), r.message());
            if (agreed.hasPlan()) assertClose(agreed.plan().objective(), r.plan().objective(), 1e-6, "column generation, " + r.plan().solver());
            out.add(r);
        }
        return out;
    }

    /**
     * A and B offer both tasks, C only reserve and is the best there: C is never used, only
     * singles, and each class sends the same share to A (and to B) on both tasks. A is the better
     * provider but its endpoint takes 9 req/s of the 20 that both tasks of both classes bring.
     */
    static PlanningInput.Builder threeProviders() {
        return PlanningInput.builder().composite(reserveThenConfirm())
                .service(at(A, "a-reserve", RESERVE, 0.3, 0.99, 1, 9)).service(at(A, "a-confirm", CONFIRM, 0.3, 0.99, 1, 9))
                .service(at(B, "b-reserve", RESERVE, 0.5, 0.99, 2, 100)).service(at(B, "b-confirm", CONFIRM, 0.5, 0.99, 2, 100))
                .service(at(C, "c-reserve", RESERVE, 0.1, 0.999, 0.5, 100))
                .serviceClass(serviceClass("gold", 2, 0.95, 10, 5), 6).serviceClass(serviceClass("silver", 3, 0.9, 10, 2), 4);
    }

    @Test
    void aStatefulPartnerLinkUsesOneProviderForAllItsTasksAndNeverOneThatLacksATask() {
        // reserve is idempotent too: still no 1-out-of-n and no hedge for a stateful task
        PlanningInput in = threeProviders().stateful(RESERVE).stateful(CONFIRM).idempotent(RESERVE).build();
        boolean split = false;
        for (PlanResult r : everySolver(in)) {
            assertEquals(PlanResult.Status.OPTIMAL, r.status(), r.message());
            Plan p = r.plan();
            for (String k : List.of("gold", "silver")) {
                for (TaskRef t : List.of(RESERVE, CONFIRM))
                    for (Plan.Share s : p.shares(k, t)) {
                        assertEquals(Implementation.Pattern.SINGLE, s.implementation().pattern(), r.plan().solver() + " " + k + " " + t + ": " + s);
                        assertFalse(s.implementation().members().contains("c-reserve"), r.plan().solver() + ": C offers no confirm");
                    }
                for (String e : List.of(A, B))
                    assertEquals(onProvider(in, p, k, RESERVE, e), onProvider(in, p, k, CONFIRM, e), 1e-6,
                            p.solver() + " " + k + ": share of " + e + " on reserve and on confirm");
                double a = onProvider(in, p, k, RESERVE, A);
                split |= a > 1e-6 && a < 1 - 1e-6;
            }
            // A is better in every respect, so it takes all its endpoint can: 9 req/s over both tasks
            double loadA = 0;
            for (String k : List.of("gold", "silver"))
                loadA += in.load(k) * (onProvider(in, p, k, RESERVE, A) + onProvider(in, p, k, CONFIRM, A));
            assertClose(9.0, loadA, 1e-6, p.solver() + ": load on A");
        }
        assertTrue(split, "A's limit must make some class split between A and B");

        // the same services without the declaration: C, the best on reserve, takes some of it
        PlanResult free = Both.plan(threeProviders().idempotent(RESERVE).build());
        assertTrue(free.plan().bindings().values().stream().flatMap(List::stream)
                .anyMatch(s -> s.implementation().members().contains("c-reserve")), free.plan().bindings().toString());
    }

    @Test
    void aProviderWhoseConfirmIsDownTakesNoReserve() {
        // A is better, but with its confirm down it could not finish a conversation it began
        PlanningInput in = threeProviders().stateful(RESERVE).stateful(CONFIRM).down("a-confirm").build();
        for (PlanResult r : everySolver(in)) {
            assertEquals(PlanResult.Status.OPTIMAL, r.status(), r.message());
            for (String k : List.of("gold", "silver"))
                for (TaskRef t : List.of(RESERVE, CONFIRM))
                    assertEquals(List.of(new Plan.Share(Implementation.single(t == RESERVE ? "b-reserve" : "b-confirm"), 1.0)),
                            r.plan().shares(k, t), r.plan().solver() + " " + k + " " + t);
        }
    }

    @Test
    void aStatefulPartnerWithoutAProviderOfEveryTaskCannotBePlannedAndTheMessageNamesIt() {
        // A offers only reserve, B only confirm: no endpoint can keep the conversation
        PlanningInput alone = PlanningInput.builder().composite(reserveThenConfirm())
                .service(at(A, "a-reserve", RESERVE, 0.3, 0.99, 1, 100)).service(at(B, "b-confirm", CONFIRM, 0.3, 0.99, 1, 100))
                .stateful(RESERVE).stateful(CONFIRM).serviceClass(serviceClass("gold", 2, 0.9, 10, 5), 1).build();
        for (OptimizationEngine e : Both.ENGINES) {
            PlanResult r = e.plan(alone);
            assertEquals(PlanResult.Status.FAILED, r.status(), r.message());
            assertFalse(r.hasPlan());
            assertEquals("stateful partner Hotel/hotel: no provider (endpoint) offers every one of its tasks [" + RESERVE
                    + ", " + CONFIRM + "]", r.message());
        }
        // the same services without the declaration are planned
        assertEquals(PlanResult.Status.OPTIMAL, Both.plan(alone.withStateful(Set.of())).status());

        // beside the trip planner, Hotel is left out and the trip planner keeps its optimum
        PlanResult trip = Both.plan(Fixtures.tripPlannerInput(2, 3).build());
        PlanningInput.Builder beside = Fixtures.tripPlannerInput(2, 3).composite(reserveThenConfirm())
                .service(at(A, "a-reserve", RESERVE, 0.3, 0.99, 1, 100)).service(at(B, "b-confirm", CONFIRM, 0.3, 0.99, 1, 100))
                .stateful(RESERVE).stateful(CONFIRM);
        PlanResult r = Both.plan(beside.build());
        assertEquals(PlanResult.Status.OPTIMAL, r.status(), r.message());
        assertClose(trip.plan().objective(), r.plan().objective(), 1e-9, "the trip planner's optimum");
        assertTrue(r.unplanned().get(HOTEL).startsWith("stateful partner Hotel/hotel: no provider"), r.unplanned().toString());
        assertTrue(r.plan().bindings().keySet().stream().noneMatch(k -> k.task().composite().equals(HOTEL)));
        // admission decides on what can be planned: the trip planner's classes still admit
        assertTrue(Both.LP.admit(beside.build(), "class0", 0.5).accepted());

        // a confirm with no concrete service registered would go to the process's own address, not
        // to the broker's choice for reserve: the partner has no provider either
        PlanResult unmanaged = Both.plan(PlanningInput.builder().composite(reserveThenConfirm())
                .service(at(A, "a-reserve", RESERVE, 0.3, 0.99, 1, 100)).stateful(RESERVE).stateful(CONFIRM)
                .serviceClass(serviceClass("gold", 2, 0.9, 10, 5), 1).build());
        assertEquals(PlanResult.Status.FAILED, unmanaged.status());
        assertTrue(unmanaged.message().startsWith("stateful partner Hotel/hotel"), unmanaged.message());
        // a task of the partner whose services are all down is named as such, and its partner
        PlanResult down = Both.plan(PlanningInput.builder().composite(reserveThenConfirm())
                .service(at(A, "a-reserve", RESERVE, 0.3, 0.99, 1, 100)).service(at(A, "a-confirm", CONFIRM, 0.3, 0.99, 1, 100))
                .down("a-confirm").stateful(RESERVE).stateful(CONFIRM).serviceClass(serviceClass("gold", 2, 0.9, 10, 5), 1).build());
        assertEquals(PlanResult.Status.FAILED, down.status());
        assertEquals("no available concrete service for task(s) [" + CONFIRM + "]; stateful partner Hotel/hotel: no provider"
                + " (endpoint) offers every one of its tasks [" + RESERVE + ", " + CONFIRM + "]", down.message());
    }

    // ---- the optimum against an independent computation ------------------------------------------------

    /**
     * A cheap and fast on reserve but dear and slow on confirm, B the opposite, A's endpoint
     * limited to 9 req/s. Without the rows each class would send reserve to A and confirm to B;
     * with them, both to the same provider, and A (better over the two tasks together) goes to the
     * classes that gain most per unit of its capacity.
     */
    static PlanningInput crossed(boolean stateful) {
        var b = PlanningInput.builder().composite(reserveThenMaybeConfirm())
                .service(at(A, "a-reserve", RESERVE, 0.2, 0.99, 1, 9)).service(at(A, "a-confirm", CONFIRM, 0.6, 0.99, 4, 9))
                .service(at(B, "b-reserve", RESERVE, 0.6, 0.995, 4, 100)).service(at(B, "b-confirm", CONFIRM, 0.2, 0.995, 1, 100))
                .serviceClass(serviceClass("gold", 1, 0.97, 10, 5), 6).serviceClass(serviceClass("silver", 2, 0.95, 5, 2), 4)
                // singles only, so that the program without the declaration differs only by the rows
                .settings(PlanningInput.Settings.defaults().withWeights(0.4, 0.2, 0.4).withCaps(1, 1));
        if (stateful) b.stateful(RESERVE).stateful(CONFIRM);
        return b.build();
    }

    @Test
    void theOptimumIsTheBestProviderMixAndTheRowsChangeIt() {
        PlanningInput in = crossed(true);
        Mix best = bestMix(in);
        assertNotNull(best, "the instance is feasible");
        // silver gains most per unit of A's capacity: all of it on A (1.5 x 4 = 6 req/s), gold the 3 left (p = 1/3)
        assertClose(1.0, best.p()[1], 1e-9, "silver on A");
        assertClose(1.0 / 3, best.p()[0], 1e-9, "gold on A");
        for (PlanResult r : everySolver(in)) {
            assertEquals(PlanResult.Status.OPTIMAL, r.status(), r.message());
            checkAgainst(in, r, best, r.plan().solver());
        }

        PlanResult free = Both.plan(crossed(false));
        assertEquals(PlanResult.Status.OPTIMAL, free.status(), free.message());
        assertTrue(free.plan().objective() > best.objective() + 1e-3,
                "without the rows reserve and confirm go to different providers: " + free.plan().objective() + " vs " + best.objective());
        for (String k : List.of("gold", "silver"))
            assertTrue(Math.abs(onProvider(in, free.plan(), k, RESERVE, A) - onProvider(in, free.plan(), k, CONFIRM, A)) > 0.1,
                    k + ": " + free.plan().bindings());
    }

    @Test
    void onRandomInstancesTheOptimumIsTheBestProviderMix() {
        int optimal = 0, interior = 0, infeasible = 0;
        for (long seed = 1; seed <= 40; seed++) {
            Random rnd = new Random(seed);
            var b = PlanningInput.builder().composite(seed % 2 == 0 ? reserveThenConfirm() : reserveThenMaybeConfirm())
                    .stateful(RESERVE).stateful(CONFIRM);
            double lA = 4 + 12 * rnd.nextDouble(), lB = 4 + 12 * rnd.nextDouble();
            for (String e : List.of(A, B))
                for (TaskRef t : List.of(RESERVE, CONFIRM))
                    b.service(at(e, e.substring(7, 8) + "-" + t.operation(), t, 0.1 + rnd.nextDouble(), 0.95 + 0.05 * rnd.nextDouble(),
                            0.2 + 3 * rnd.nextDouble(), e.equals(A) ? lA : lB));
            int classes = 2 + rnd.nextInt(2);
            for (int k = 0; k < classes; k++)
                b.serviceClass(serviceClass("k" + k, 0.8 + 1.5 * rnd.nextDouble(), 0.85 + 0.13 * rnd.nextDouble(),
                        2 + 6 * rnd.nextDouble(), 1 + 9 * rnd.nextDouble()), rnd.nextInt(4) == 0 ? 0 : 1 + 5 * rnd.nextDouble());
            double wr = rnd.nextDouble(), wa = rnd.nextDouble() * (1 - wr);
            PlanningInput in = b.settings(PlanningInput.Settings.defaults().withWeights(wr, wa, 1 - wr - wa)).build();
            Mix best = bestMix(in);
            List<PlanResult> results = everySolver(in);
            if (best == null) {
                infeasible++;
                for (PlanResult r : results) assertTrue(r.status() != PlanResult.Status.OPTIMAL, "seed " + seed + ": no mix keeps every SLA");
                continue;
            }
            optimal++;
            for (PlanResult r : results) {
                assertEquals(PlanResult.Status.OPTIMAL, r.status(), "seed " + seed + ": " + r.message());
                checkAgainst(in, r, best, "seed " + seed + " " + r.plan().solver());
            }
            for (double p : best.p()) if (p > 1e-6 && p < 1 - 1e-6) { interior++; break; }
        }
        // the instances must exercise mixes, not only one provider per class, and both outcomes
        assertTrue(optimal >= 20 && interior >= 5 && infeasible >= 1,
                "optimal " + optimal + ", with a split " + interior + ", infeasible " + infeasible);
    }

    /** The plan's shares are a provider mix (equal on both tasks) that keeps every row, and its objective is the best. */
    static void checkAgainst(PlanningInput in, PlanResult r, Mix best, String what) {
        Plan plan = r.plan();
        Model m = new Model(in);
        double[] p = new double[m.classes.size()];
        for (int k = 0; k < p.length; k++) {
            String cls = m.classes.get(k).name();
            p[k] = onProvider(in, plan, cls, RESERVE, A);
            assertEquals(p[k], onProvider(in, plan, cls, CONFIRM, A), 1e-6, what + " " + cls + ": A on reserve and on confirm");
            assertEquals(1 - p[k], onProvider(in, plan, cls, RESERVE, B), 1e-6, what + " " + cls + ": B on reserve");
            assertEquals(1 - p[k], onProvider(in, plan, cls, CONFIRM, B), 1e-6, what + " " + cls + ": B on confirm");
        }
        for (var g : m.constraints()) assertTrue(g.applyAsDouble(p) <= 1e-6, what + ": the plan breaks a row at " + Arrays.toString(p));
        assertClose(m.objective(p), plan.objective(), 1e-6, what + ": F of the plan's mix");
        assertClose(best.objective(), plan.objective(), 1e-6, what + ": the best mix's F");
    }

    /** A provider mix: per class, the fraction p_k on A (1 - p_k on B), and its F. */
    record Mix(double[] p, double objective) {}

    /**
     * docs/model.md's program for one stateful partner of two providers A and B, written out again
     * as functions of p_k (not the engine's code). Every service's failure-detection time is its r
     * (the default), so a single's r_J is r. R walks the tree, V comes from the tree, and
     *   lnA^k = sum_i V_i (p_k ln a_iA + (1 - p_k) ln a_iB),  C^k = sum_i V_i (p_k c_iA + (1 - p_k) c_iB),
     *   load_A = sum_k L^k sum_i V_i p_k <= l_A,  load_B = sum_k L^k sum_i V_i (1 - p_k) <= l_B.
     */
    static final class Model {
        final PlanningInput in;
        final CompositeService comp;
        final List<ServiceClass> classes;
        final Map<TaskRef, Double> visits = new HashMap<>();
        final Map<String, ConcreteService> offer = new HashMap<>(); // endpoint + task -> its service

        Model(PlanningInput in) {
            this.in = in;
            comp = in.composites().get(0);
            classes = in.classes();
            RandomInstancesTest.visits(comp.root(), 1, visits);
            for (ConcreteService s : in.services()) offer.put(s.endpoint() + " " + s.task(), s);
        }

        ProviderSla sla(String endpoint, TaskRef t) {
            return offer.get(endpoint + " " + t).sla();
        }

        double limit(String endpoint) {
            return in.services().stream().filter(s -> s.endpoint().toString().equals(endpoint))
                    .mapToDouble(s -> s.sla().maxRate()).min().orElseThrow();
        }

        double responseTime(double p) {
            Map<TaskRef, Double> time = new HashMap<>();
            for (TaskRef t : List.of(RESERVE, CONFIRM))
                time.put(t, p * sla(A, t).responseTime() + (1 - p) * sla(B, t).responseTime());
            return RandomInstancesTest.walk(comp.root(), time);
        }

        double logAvailability(double p) {
            double la = 0;
            for (TaskRef t : List.of(RESERVE, CONFIRM))
                la += visits.get(t) * (p * Math.log(sla(A, t).availability()) + (1 - p) * Math.log(sla(B, t).availability()));
            return la;
        }

        double cost(double p) {
            double c = 0;
            for (TaskRef t : List.of(RESERVE, CONFIRM)) c += visits.get(t) * (p * sla(A, t).cost() + (1 - p) * sla(B, t).cost());
            return c;
        }

        /** The rows as g(p) <= 0. */
        List<ToDoubleFunction<double[]>> constraints() {
            List<ToDoubleFunction<double[]>> g = new ArrayList<>();
            double m = in.settings().margin(), perRequest = visits.get(RESERVE) + visits.get(CONFIRM);
            for (int k = 0; k < classes.size(); k++) {
                int kk = k;
                ServiceClass c = classes.get(k);
                g.add(p -> responseTime(p[kk]) - (1 - m) * c.maxResponseTime());
                g.add(p -> Math.log(c.minAvailability()) - logAvailability(p[kk]));
                g.add(p -> cost(p[kk]) - c.maxCost());
                g.add(p -> -p[kk]);
                g.add(p -> p[kk] - 1);
            }
            g.add(p -> {
                double load = 0;
                for (int k = 0; k < p.length; k++) load += in.load(classes.get(k).name()) * perRequest * p[k];
                return load - limit(A);
            });
            g.add(p -> {
                double load = 0;
                for (int k = 0; k < p.length; k++) load += in.load(classes.get(k).name()) * perRequest * (1 - p[k]);
                return load - limit(B);
            });
            return g;
        }

        /** F = sum_k omega_k [w_r (1 - R/Rmax) + w_a (lnA - ln Amin) / d_k + w_c (1 - C/Cmax)]. */
        double objective(double[] p) {
            var s = in.settings();
            double total = 0, f = 0;
            for (ServiceClass k : classes) total += in.load(k.name());
            for (int k = 0; k < p.length; k++) {
                ServiceClass c = classes.get(k);
                double omega = (in.load(c.name()) + 1e-3) / (total + classes.size() * 1e-3);
                double d = Math.max(-Math.log(c.minAvailability()), 1e-3);
                f += omega * (s.weightResponseTime() * (1 - responseTime(p[k]) / c.maxResponseTime())
                        + s.weightAvailability() * (logAvailability(p[k]) - Math.log(c.minAvailability())) / d
                        + s.weightCost() * (1 - cost(p[k]) / c.maxCost()));
            }
            return f;
        }
    }

    /**
     * The best feasible mix, or null: every row and F are affine in p (the tree's R is a sum here,
     * no flow), so the optimum is a vertex of the polytope, where K linearly independent rows are
     * tight; this tries every K of them.
     */
    static Mix bestMix(PlanningInput in) {
        Model m = new Model(in);
        int n = m.classes.size();
        List<ToDoubleFunction<double[]>> g = m.constraints();
        // affine coefficients g(p) = g0 + sum_k gk p_k, read off at 0 and the unit vectors
        double[][] coef = new double[g.size()][n + 1];
        for (int i = 0; i < g.size(); i++) {
            double g0 = g.get(i).applyAsDouble(new double[n]);
            coef[i][n] = g0;
            for (int k = 0; k < n; k++) {
                double[] e = new double[n];
                e[k] = 1;
                coef[i][k] = g.get(i).applyAsDouble(e) - g0;
            }
        }
        Mix best = null;
        int[] pick = new int[n];
        for (int[] rows : combinations(g.size(), n, pick, 0, 0, new ArrayList<>())) {
            double[] p = solve(coef, rows, n);
            if (p == null) continue;
            boolean feasible = true;
            for (var gi : g) feasible &= gi.applyAsDouble(p) <= 1e-9;
            if (!feasible) continue;
            double f = m.objective(p);
            if (best == null || f > best.objective()) best = new Mix(p, f);
        }
        return best;
    }

    private static List<int[]> combinations(int size, int k, int[] pick, int depth, int from, List<int[]> out) {
        if (depth == k) { out.add(pick.clone()); return out; }
        for (int i = from; i < size; i++) {
            pick[depth] = i;
            combinations(size, k, pick, depth + 1, i + 1, out);
        }
        return out;
    }

    /** The p where the chosen rows are tight (Gaussian elimination), or null when they are dependent. */
    private static double[] solve(double[][] coef, int[] rows, int n) {
        double[][] a = new double[n][n + 1];
        for (int i = 0; i < n; i++) {
            System.arraycopy(coef[rows[i]], 0, a[i], 0, n);
            a[i][n] = -coef[rows[i]][n];
        }
        for (int c = 0; c < n; c++) {
            int piv = c;
            for (int r = c + 1; r < n; r++) if (Math.abs(a[r][c]) > Math.abs(a[piv][c])) piv = r;
            if (Math.abs(a[piv][c]) < 1e-12) return null;
            double[] t = a[c]; a[c] = a[piv]; a[piv] = t;
            for (int r = 0; r < n; r++) {
                if (r == c) continue;
                double f = a[r][c] / a[c][c];
                for (int j = c; j <= n; j++) a[r][j] -= f * a[c][j];
            }
        }
        double[] p = new double[n];
        for (int i = 0; i < n; i++) p[i] = a[i][n] / a[i][i];
        return p;
    }

    @Test
    void theStatefulTasksTravelWithTheInput() {
        PlanningInput in = threeProviders().stateful(RESERVE).stateful(CONFIRM).build();
        assertTrue(in.stateful(RESERVE) && in.stateful(CONFIRM));
        assertFalse(threeProviders().build().stateful(RESERVE), "not stateful by default");
        for (PlanningInput copy : List.of(in.withLoad("gold", 1), in.withComposites(in.composites()),
                in.withSettings(in.settings().withMargin(0.2))))
            assertEquals(Set.of(RESERVE, CONFIRM), copy.stateful());
        assertEquals(Set.of(CONFIRM), in.withStateful(Set.of(CONFIRM)).stateful());
        // the constructors that predate the declaration: nothing stateful
        PlanningInput old = new PlanningInput(in.composites(), in.classes(), in.classLoad(), in.services(), in.down(),
                in.observed(), in.successSamples(), in.failureDetection(), in.profiles(), in.visits(), in.settings(), in.idempotent());
        assertEquals(Set.of(), old.stateful());
    }
}
