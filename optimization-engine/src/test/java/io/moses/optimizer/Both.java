package io.moses.optimizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Assumptions;

/**
 * Runs an instance on every solver and checks they agree on the optimal objective: lp_solve and
 * ojAlgo always (lp_solve must be installed), Clp where it is (CI installs it; tests that are
 * about Clp alone skip, naming the package, where it is not).
 */
final class Both {
    static final LpSolver LP_SOLVE = Solvers.lpSolve().orElseThrow(() -> new AssertionError(
            "lp_solve not found: install the Debian package lp-solve (apt-get install -y lp-solve)"));
    static final LpSolver OJALGO = Solvers.ojAlgo();
    static final Optional<LpSolver> CLP_SOLVER = requiredUnderCi(Solvers.clp());
    static final OptimizationEngine LP = new OptimizationEngine(LP_SOLVE, null);
    static final OptimizationEngine OJ = new OptimizationEngine(OJALGO, null);
    /** Clp's engine, or null when libClp is absent. */
    static final OptimizationEngine CLP = CLP_SOLVER.map(s -> new OptimizationEngine(s, null)).orElse(null);
    /** Every engine this machine has: lp_solve, ojAlgo, and Clp when installed. */
    static final List<OptimizationEngine> ENGINES = CLP == null ? List.of(LP, OJ) : List.of(LP, OJ, CLP);

    private Both() {}

    static final String CLP_MISSING = "Clp not installed: apt-get install -y coinor-libclp1 (.ci/run installs it)";

    /** Under CI=true a solver .ci/run should have installed is a failure, not a test left out. */
    private static Optional<LpSolver> requiredUnderCi(Optional<LpSolver> clp) {
        if (clp.isEmpty() && "true".equalsIgnoreCase(System.getenv("CI"))) throw new IllegalStateException(CLP_MISSING + " [CI=true: not skipping]");
        return clp;
    }

    /** Skips the calling test when Clp is not installed (fails under CI, see above). */
    static LpSolver clpOrSkip() {
        Assumptions.assumeTrue(CLP_SOLVER.isPresent(), CLP_MISSING);
        return CLP_SOLVER.get();
    }

    /** The engines with column generation forced, over every solver that supports it here. */
    static List<OptimizationEngine> columnGeneration() {
        List<OptimizationEngine> out = new ArrayList<>(List.of(LP.with(OptimizationEngine.Method.COLUMN_GENERATION)));
        if (CLP != null) out.add(CLP.with(OptimizationEngine.Method.COLUMN_GENERATION));
        return out;
    }

    /** Plans with every solver; asserts same status and objectives within 1e-6 relative; returns lp_solve's. */
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
        if (CLP != null) {
            PlanResult c = f.apply(CLP);
            assertEquals(a.status(), c.status(), "status lp_solve vs Clp: " + a.message() + " / " + c.message());
            if (a.hasPlan()) {
                assertEquals("Clp", c.plan().solver());
                assertClose(a.plan().objective(), c.plan().objective(), 1e-6, "objective lp_solve vs Clp");
            }
        }
        return a;
    }

    static void assertClose(double expected, double actual, double rel, String what) {
        double diff = Math.abs(expected - actual) / Math.max(1e-9, Math.max(Math.abs(expected), Math.abs(actual)));
        assertTrue(diff < rel || Math.abs(expected - actual) < 1e-12,
                what + ": expected " + expected + ", was " + actual + " (relative difference " + diff + ")");
    }
}
