package io.moses.optimizer;

import static io.moses.optimizer.Both.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Column generation reaches the whole program's optimum: on small programs where the answer is
 * known, and on the planner's instances against the whole program solved by both solvers.
 */
class ColumnGenerationTest {
    static final IncrementalSolver LP = (IncrementalSolver) Both.LP_SOLVE;

    @Test
    void dualsPriceTheColumnsOfAnOptimumAtZero() {
        dualsPriceTheColumnsOfAnOptimumAtZero(LP);
    }

    @Test
    void clpsDualsPriceTheColumnsOfAnOptimumAtZero() {
        dualsPriceTheColumnsOfAnOptimumAtZero((IncrementalSolver) Both.clpOrSkip());
    }

    @Test
    void aRestrictedStartThatIsInfeasibleGoesThroughTheFeasibilityPhase() {
        aRestrictedStartThatIsInfeasibleGoesThroughTheFeasibilityPhase(LP);
    }

    @Test
    void aRestrictedStartThatIsInfeasibleGoesThroughTheFeasibilityPhaseWithClp() {
        aRestrictedStartThatIsInfeasibleGoesThroughTheFeasibilityPhase((IncrementalSolver) Both.clpOrSkip());
    }

    static void dualsPriceTheColumnsOfAnOptimumAtZero(IncrementalSolver solver) {
        // max 3x + 2y + z, x + y + z <= 4, x + 3y <= 7, x <= 3: x = 3, y = 1, z = 0 (y and b's slack basic)
        for (boolean max : new boolean[] {true, false}) {
            LinearProgram p = new LinearProgram();
            double s = max ? 1 : -1;
            p.addColumn(3 * s); p.addColumn(2 * s); p.addColumn(1 * s);
            p.addRow("a", new int[] {0, 1, 2}, new double[] {1, 1, 1}, LinearProgram.Kind.LE, 4);
            p.addRow("b", new int[] {0, 1}, new double[] {1, 3}, LinearProgram.Kind.LE, 7);
            p.setBounds(0, 0, 3);
            p.setMaximize(max);
            try (var session = solver.open(p, new int[] {0, 1, 2}, 10)) {
                LpSolver.Result r = session.solve();
                assertEquals(LpSolver.Status.OPTIMAL, r.status());
                double[] y = session.duals();
                // y: row a prices y (basic) at 0, so y_a = 2 (sense-signed); z then has reduced cost 1 - 2 < 0
                assertEquals(2 * s, y[0], 1e-9, "dual of row a, maximize " + max);
                assertEquals(0, y[1], 1e-9, "dual of row b (slack), maximize " + max);
                double dz = p.objective(2) - y[0];
                assertTrue(max ? dz < 0 : dz > 0, "z does not improve");
            }
        }
    }

    static void aRestrictedStartThatIsInfeasibleGoesThroughTheFeasibilityPhase(IncrementalSolver solver) {
        // min x0 + 5 x1 + 5 x2, x0 + x1 + x2 = 1, x0 <= 0.5 (row), started from x2 alone:
        // x2 = 1 is feasible, then x0 enters; started from x0 alone: infeasible, x1 or x2 must enter.
        LinearProgram p = new LinearProgram();
        p.addColumn(1); p.addColumn(5); p.addColumn(5);
        p.addRow("sum", new int[] {0, 1, 2}, new double[] {1, 1, 1}, LinearProgram.Kind.EQ, 1);
        p.addRow("cap", new int[] {0}, new double[] {1}, LinearProgram.Kind.LE, 0.5);
        p.setMaximize(false);
        BitSet only0 = new BitSet();
        only0.set(0);
        var o = new ColumnGeneration(p, new int[] {0, 0, 0}).solve(solver, only0, 10);
        assertEquals(LpSolver.Status.OPTIMAL, o.result().status(), o.result().detail());
        assertEquals(3.0, o.result().objective(), 1e-9);
        assertTrue(o.feasibilityRounds() >= 1);
        // infeasible as a whole: the feasibility phase proves it
        p.addRow("none", new int[] {1, 2}, new double[] {1, 1}, LinearProgram.Kind.LE, 0.1);
        o = new ColumnGeneration(p, new int[] {0, 0, 0}).solve(solver, only0, 10);
        assertEquals(LpSolver.Status.INFEASIBLE, o.result().status(), o.result().detail());
    }

    @Test
    void reachesTheWholeProgramsOptimumOnRandomInstances() {
        reachesTheWholeProgramsOptimumOnRandomInstances(Both.LP);
    }

    @Test
    void reachesTheWholeProgramsOptimumOnRandomInstancesWithClp() {
        Both.clpOrSkip();
        reachesTheWholeProgramsOptimumOnRandomInstances(Both.CLP);
    }

    /** Column generation over {@code engine}'s solver against the whole program on lp_solve and ojAlgo. */
    static void reachesTheWholeProgramsOptimumOnRandomInstances(OptimizationEngine engine) {
        OptimizationEngine cg = engine.with(OptimizationEngine.Method.COLUMN_GENERATION);
        int relaxed = 0;
        for (long seed = 1; seed <= 40; seed++) {
            PlanningInput in = RandomInstancesTest.instance(new Random(seed), seed);
            for (PlanningInput.Objective o : PlanningInput.Objective.values()) {
                PlanningInput run = in.withSettings(in.settings().withObjective(o));
                PlanResult whole = Both.plan(run);
                cg.forgetPlanInForce();
                PlanResult gen = cg.plan(run);
                assertEquals(whole.status(), gen.status(), "seed " + seed + " " + o + ": " + gen.message());
                if (gen.status() != PlanResult.Status.OPTIMAL) relaxed++;
                assertEquals("column generation", gen.diagnostics().method());
                assertClose(whole.plan().objective(), gen.plan().objective(), 1e-6, "seed " + seed + " " + o);
                RandomInstancesTest.check(run, gen, "seed " + seed + " " + o + " (column generation)");
            }
        }
        assertTrue(relaxed > 2, "the relaxed path was exercised " + relaxed + " times");
    }

    @Test
    void reachesTheWholeProgramsOptimumOnTheBenchmarkInstances() {
        OptimizationEngine whole = Both.LP.with(OptimizationEngine.Method.SIMPLEX);
        PlanningInput[] ins = {Fixtures.tripPlannerInput(5, 1).build(), Fixtures.synthetic(5, 10, 4, 1).build(),
                Fixtures.synthetic(10, 20, 4, 1).build(), Fixtures.synthetic(4, 15, 6, 3).build()};
        for (PlanningInput in : ins) {
            PlanResult a = whole.plan(in);
            for (OptimizationEngine cg : Both.columnGeneration()) {
                PlanResult b = cg.plan(in);
                assertEquals(a.status(), b.status(), b.message());
                assertClose(a.plan().objective(), b.plan().objective(), 1e-6, in.classes().size() + " classes, " + b.plan().solver());
                assertTrue(b.diagnostics().columnsUsed() < b.diagnostics().variables(), "restricted: " + b.diagnostics());
            }
        }
    }

    @Test
    void aWarmStartReachesTheSameOptimumAsAColdOne() {
        // the plan in force only changes where column generation starts: after one service got
        // slower, the warm re-plan and a cold one of the same instance agree
        PlanningInput in = Fixtures.synthetic(6, 15, 6, 4).build();
        PlanningInput slower = OptimizerBenchmark.oneServiceSlower(in);
        for (OptimizationEngine cg : Both.columnGeneration()) {
            cg.forgetPlanInForce();
            assertEquals(PlanResult.Status.OPTIMAL, cg.plan(in).status());
            PlanResult warm = cg.plan(slower);
            cg.forgetPlanInForce();
            PlanResult cold = cg.plan(slower);
            assertEquals(cold.status(), warm.status(), warm.message());
            assertClose(cold.plan().objective(), warm.plan().objective(), 1e-6, "warm vs cold, " + warm.plan().solver());
        }
    }
}
