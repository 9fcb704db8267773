package io.moses.optimizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.function.Function;

/** Runs an instance on both solvers and checks they agree on the optimal objective. */
final class Both {
    static final LpSolver LP_SOLVE = Solvers.lpSolve().orElseThrow(() -> new AssertionError(
            "lp_solve not found: install the Debian package lp-solve (apt-get install -y lp-solve)"));
    static final LpSolver OJALGO = Solvers.ojAlgo();
    static final OptimizationEngine LP = new OptimizationEngine(LP_SOLVE, null);
    static final OptimizationEngine OJ = new OptimizationEngine(OJALGO, null);
    static final List<OptimizationEngine> ENGINES = List.of(LP, OJ);

    private Both() {}

    /** Plans with both solvers; asserts same status and objectives within 1e-6 relative; returns lp_solve's. */
    static PlanResult plan(PlanningInput in) {
        return agree(e -> e.plan(in));
    }

    static PlanResult agree(Function<OptimizationEngine, PlanResult> f) {
        PlanResult a = f.apply(LP), b = f.apply(OJ);
        assertEquals(a.status(), b.status(), "status lp_solve vs ojAlgo: " + a.message() + " / " + b.message());
        if (a.hasPlan()) {
            assertNotNull(b.plan());
            assertEquals("lp_solve", a.plan().solver());
            assertEquals("ojAlgo", b.plan().solver());
            assertClose(a.plan().objective(), b.plan().objective(), 1e-6, "objective lp_solve vs ojAlgo");
        }
        return a;
    }

    static void assertClose(double expected, double actual, double rel, String what) {
        double diff = Math.abs(expected - actual) / Math.max(1e-9, Math.max(Math.abs(expected), Math.abs(actual)));
        assertTrue(diff < rel || Math.abs(expected - actual) < 1e-12,
                what + ": expected " + expected + ", was " + actual + " (relative difference " + diff + ")");
    }
}
