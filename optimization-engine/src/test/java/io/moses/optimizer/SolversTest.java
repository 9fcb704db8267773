package io.moses.optimizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SolversTest {
    @Test
    void lpSolveIsFoundOnTheDebianPath() {
        assertTrue(Both.LP_SOLVE.description().contains("liblpsolve55.so"), Both.LP_SOLVE.description());
        assertEquals("ojAlgo", new OptimizationEngine(OptimizationEngine.SolverChoice.OJALGO).solverName());
        assertEquals("lp_solve", new OptimizationEngine(OptimizationEngine.SolverChoice.LP_SOLVE).solverName());
    }

    @Test
    void clpIsFoundOnTheDebianPathAndPreferred() {
        LpSolver clp = Both.clpOrSkip();
        assertTrue(clp.description().startsWith("Clp 1."), clp.description());
        assertTrue(clp.description().contains("libClp.so"), clp.description());
        assertEquals("Clp", Solvers.detect().name());
        assertEquals("Clp", new OptimizationEngine().solverName());
        assertEquals("Clp", new OptimizationEngine(OptimizationEngine.SolverChoice.CLP).solverName());
        assertEquals("Clp", Both.CLP.plan(Fixtures.tripPlannerInput(2, 1).build()).plan().solver());
    }

    @Test
    void aMissingLibraryIsNoSolver() {
        assertFalse(Solvers.lpSolve(Path.of("/nonexistent/liblpsolve55.so")).isPresent());
        assertFalse(Solvers.lpSolve(Path.of("/etc/hostname")).isPresent()); // not a shared library
        assertFalse(Solvers.clp(Path.of("/nonexistent/libClp.so.1")).isPresent());
        assertFalse(Solvers.clp(Path.of("/etc/hostname")).isPresent());
    }

    @Test
    void aMissingNativeSolverFallsBackToTheNextInOrder() {
        var none = java.util.Optional.<LpSolver>empty();
        var lp = java.util.Optional.of(Both.LP_SOLVE);
        var auto = OptimizationEngine.SolverChoice.AUTO;
        // no Clp: lp_solve, ojAlgo behind it; a plan is made
        OptimizationEngine e = new OptimizationEngine(auto, none, lp);
        assertEquals("lp_solve", e.solverName());
        assertEquals(PlanResult.Status.OPTIMAL, e.plan(Fixtures.tripPlannerInput(2, 1).build()).status());
        // no native solver at all: ojAlgo alone
        e = new OptimizationEngine(auto, none, none);
        assertEquals("ojAlgo", e.solverName());
        assertEquals(PlanResult.Status.OPTIMAL, e.plan(Fixtures.tripPlannerInput(2, 1).build()).status());
        // asked for by name and absent: a clear error naming the package
        var ex = assertThrows(IllegalStateException.class, () -> new OptimizationEngine(OptimizationEngine.SolverChoice.CLP, none, lp));
        assertTrue(ex.getMessage().contains("coinor-libclp1"), ex.getMessage());
        ex = assertThrows(IllegalStateException.class, () -> new OptimizationEngine(OptimizationEngine.SolverChoice.LP_SOLVE, none, none));
        assertTrue(ex.getMessage().contains("lp-solve"), ex.getMessage());
    }

    @Test
    void aPlanIsStampedOnTheEnginesClockTheBrokersWallClock() {
        java.time.Instant t = java.time.Instant.parse("2030-01-02T03:04:05Z");
        OptimizationEngine e = new OptimizationEngine(OptimizationEngine.SolverChoice.OJALGO,
                java.time.Clock.fixed(t, java.time.ZoneOffset.UTC));
        assertEquals(t, e.plan(Fixtures.tripPlannerInput(2, 1).build()).plan().created());
        assertEquals(t, e.with(OptimizationEngine.Method.SIMPLEX).plan(Fixtures.tripPlannerInput(2, 1).build()).plan().created(),
                "an engine with another method keeps the clock");
    }

    @Test
    void solverChoiceParsesConfigurationValues() {
        assertEquals(OptimizationEngine.SolverChoice.LP_SOLVE, OptimizationEngine.SolverChoice.parse("lp_solve"));
        assertEquals(OptimizationEngine.SolverChoice.CLP, OptimizationEngine.SolverChoice.parse("Clp"));
        assertEquals(OptimizationEngine.SolverChoice.OJALGO, OptimizationEngine.SolverChoice.parse(" ojAlgo "));
        assertEquals(OptimizationEngine.SolverChoice.AUTO, OptimizationEngine.SolverChoice.parse(null));
        var ex = assertThrows(IllegalArgumentException.class, () -> OptimizationEngine.SolverChoice.parse("cplex"));
        assertTrue(ex.getMessage().contains("optimizer.solver"), ex.getMessage());
    }

    /** A solver that proves nothing: the engine must retry with the other one (docs/model.md, "Solvers"). */
    static final class Stalling implements LpSolver {
        final AtomicInteger calls = new AtomicInteger();
        public String name() { return "stalling"; }
        public String description() { return "stalling"; }
        public Result solve(LinearProgram lp, double timeoutSeconds) {
            calls.incrementAndGet();
            return new Result(Status.FAILED, null, Double.NaN, 0, "TIMEOUT");
        }
    }

    @Test
    void aSolveThatProvesNothingIsRetriedWithTheOtherSolver() {
        Stalling stalling = new Stalling();
        PlanResult r = new OptimizationEngine(stalling, Both.LP_SOLVE).plan(Fixtures.tripPlannerInput(2, 1).build());
        assertEquals(PlanResult.Status.OPTIMAL, r.status());
        assertEquals("lp_solve", r.plan().solver());
        assertTrue(stalling.calls.get() >= 1);
        PlanResult none = new OptimizationEngine(new Stalling(), null).plan(Fixtures.tripPlannerInput(2, 1).build());
        assertEquals(PlanResult.Status.FAILED, none.status());
        assertTrue(none.message().contains("TIMEOUT"), none.message());
    }

    @Test
    void tripPlannerAndLargerInstancesAgreeAcrossSolvers() {
        for (int classes = 1; classes <= 5; classes++) {
            PlanResult r = Both.plan(Fixtures.tripPlannerInput(classes, classes).build());
            assertEquals(PlanResult.Status.OPTIMAL, r.status(), r.message());
        }
        PlanResult r = Both.plan(Fixtures.synthetic(3, 10, 4, 5).build());
        assertTrue(r.hasPlan(), r.message());
    }
}
