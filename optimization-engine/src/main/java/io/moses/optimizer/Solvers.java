package io.moses.optimizer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Finds the LP solvers. The order of preference (measured, docs/benchmarks/2026-11-23-optimization-engine.md "Optimization
 * Engine": Clp is the fastest at every size, lp_solve next, ojAlgo last):
 * <ol>
 *   <li>COIN-OR Clp (Debian package {@code coinor-libclp1}, {@code libClp.so.1});</li>
 *   <li>lp_solve 5.5 (Debian package {@code lp-solve}; its {@code liblpsolve55.so} is not on the
 *       default library path);</li>
 *   <li>ojAlgo, pure Java, always there.</li>
 * </ol>
 * A native library that is absent or does not load is skipped; the engine logs, in one line,
 * which solver it ends up with.
 */
final class Solvers {
    /** System property naming liblpsolve55.so explicitly. */
    static final String LIBRARY_PROPERTY = "moses.lpsolve.library";
    /** System property naming libClp.so explicitly. */
    static final String CLP_LIBRARY_PROPERTY = "moses.clp.library";

    static final List<String> KNOWN_PATHS = List.of(
            "/usr/lib/lp_solve/liblpsolve55.so",
            "/usr/lib/x86_64-linux-gnu/liblpsolve55.so",
            "/usr/lib/aarch64-linux-gnu/liblpsolve55.so",
            "/usr/lib/liblpsolve55.so",
            "/usr/local/lib/liblpsolve55.so",
            "/usr/lib64/liblpsolve55.so");

    static final List<String> CLP_PATHS = List.of(
            "/usr/lib/x86_64-linux-gnu/libClp.so.1",
            "/usr/lib/aarch64-linux-gnu/libClp.so.1",
            "/usr/lib/libClp.so.1",
            "/usr/local/lib/libClp.so.1",
            "/usr/lib64/libClp.so.1");

    private Solvers() {}

    /** The most preferred solver that loads. */
    static LpSolver detect() {
        return clp().or(Solvers::lpSolve).orElseGet(Solvers::ojAlgo);
    }

    /** lp_solve from {@value #LIBRARY_PROPERTY} or the known Debian paths, if it loads. */
    static Optional<LpSolver> lpSolve() {
        return first(LIBRARY_PROPERTY, KNOWN_PATHS, Solvers::lpSolve);
    }

    /** lp_solve from exactly this file. */
    static Optional<LpSolver> lpSolve(Path library) {
        return load(library, LpSolveSolver::load);
    }

    /** Clp from {@value #CLP_LIBRARY_PROPERTY} or the known Debian paths, if it loads. */
    static Optional<LpSolver> clp() {
        return first(CLP_LIBRARY_PROPERTY, CLP_PATHS, Solvers::clp);
    }

    /** Clp from exactly this file. */
    static Optional<LpSolver> clp(Path library) {
        return load(library, ClpSolver::load);
    }

    static LpSolver ojAlgo() {
        return new OjAlgoSolver();
    }

    private static Optional<LpSolver> first(String property, List<String> known, Function<Path, Optional<LpSolver>> loader) {
        List<String> candidates = new ArrayList<>();
        String explicit = System.getProperty(property);
        if (explicit != null && !explicit.isBlank()) candidates.add(explicit.strip());
        candidates.addAll(known);
        for (String c : candidates) {
            Optional<LpSolver> s = loader.apply(Path.of(c));
            if (s.isPresent()) return s;
        }
        return Optional.empty();
    }

    private static Optional<LpSolver> load(Path library, Function<Path, LpSolver> loader) {
        if (!Files.isReadable(library)) return Optional.empty();
        try {
            return Optional.of(loader.apply(library));
        } catch (LinkageError | RuntimeException e) {
            return Optional.empty(); // not a shared library, or not this one: the caller tries the next
        }
    }
}
