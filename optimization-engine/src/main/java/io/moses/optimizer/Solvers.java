package io.moses.optimizer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Finds the LP solvers: lp_solve 5.5 (Debian's liblpsolve55.so is not on the default library
 * path) and ojAlgo, which is always there.
 */
public final class Solvers {
    /** System property naming liblpsolve55.so explicitly. */
    public static final String LIBRARY_PROPERTY = "moses.lpsolve.library";

    static final List<String> KNOWN_PATHS = List.of(
            "/usr/lib/lp_solve/liblpsolve55.so",
            "/usr/lib/x86_64-linux-gnu/liblpsolve55.so",
            "/usr/lib/aarch64-linux-gnu/liblpsolve55.so",
            "/usr/lib/liblpsolve55.so",
            "/usr/local/lib/liblpsolve55.so",
            "/usr/lib64/liblpsolve55.so");

    private Solvers() {}

    /** lp_solve if it loads (the property first, then the known paths), else ojAlgo. */
    public static LpSolver detect() {
        return lpSolve().orElseGet(Solvers::ojAlgo);
    }

    /** lp_solve from {@value #LIBRARY_PROPERTY} or the known Debian paths, if it loads. */
    public static Optional<LpSolver> lpSolve() {
        List<String> candidates = new ArrayList<>();
        String explicit = System.getProperty(LIBRARY_PROPERTY);
        if (explicit != null && !explicit.isBlank()) candidates.add(explicit.strip());
        candidates.addAll(KNOWN_PATHS);
        for (String c : candidates) {
            Path p = Path.of(c);
            if (!Files.isReadable(p)) continue;
            try {
                return Optional.of(LpSolveSolver.load(p));
            } catch (LinkageError | RuntimeException e) {
                // try the next place; the caller logs which solver it ends up with
            }
        }
        return Optional.empty();
    }

    /** lp_solve from exactly this file. */
    public static Optional<LpSolver> lpSolve(Path library) {
        if (!Files.isReadable(library)) return Optional.empty();
        try {
            return Optional.of(LpSolveSolver.load(library));
        } catch (LinkageError | RuntimeException e) {
            return Optional.empty();
        }
    }

    public static LpSolver ojAlgo() {
        return new OjAlgoSolver();
    }
}
