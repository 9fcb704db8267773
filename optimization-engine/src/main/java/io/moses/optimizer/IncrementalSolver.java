package io.moses.optimizer;

/**
 * A solver that keeps a model open between solves, for column generation: columns are added to
 * it, bounds and the objective changed, and each solve starts from the last basis. It reports
 * the row duals of each optimum.
 */
interface IncrementalSolver {
    /**
     * From this many x columns on, column generation over this solver beats giving it the whole
     * program (measured per solver, docs/benchmarks/2026-11-23-optimization-engine.md).
     */
    int columnGenerationFrom();

    /**
     * Opens a model with every row of {@code lp} and only the columns {@code columns} of it (in
     * that order: session column {@code i} is {@code lp} column {@code columns[i]}).
     */
    Session open(LinearProgram lp, int[] columns, double timeoutSeconds);

    /** The whole program in one session of all its columns, solved once (a plain solve). */
    default LpSolver.Result solveWhole(LinearProgram p, double timeoutSeconds) {
        long t0 = System.nanoTime();
        int[] all = new int[p.columns()];
        for (int j = 0; j < all.length; j++) all[j] = j;
        Session s;
        try {
            s = open(p, all, timeoutSeconds);
        } catch (IllegalStateException e) {
            return new LpSolver.Result(LpSolver.Status.FAILED, null, Double.NaN, millisSince(t0), e.getMessage());
        }
        try (s) {
            LpSolver.Result r = s.solve();
            if (r.status() != LpSolver.Status.OPTIMAL)
                return new LpSolver.Result(r.status(), null, Double.NaN, millisSince(t0), r.detail());
            return new LpSolver.Result(LpSolver.Status.OPTIMAL, r.x(), p.evaluate(r.x()), millisSince(t0), r.detail());
        }
    }

    private static double millisSince(long t0) {
        return (System.nanoTime() - t0) / 1e6;
    }

    /** One open model. Not thread-safe; close it. */
    interface Session extends AutoCloseable {
        /** Adds a column: objective coefficient, its non-zeros by row of the original program, bounds. */
        void addColumn(double objective, int[] rows, double[] coefs, double lower, double upper);

        /** Replaces the objective; {@code objective[i]} belongs to session column i. */
        void setObjective(double[] objective, boolean maximize);

        void setUpper(int column, double upper);

        int columns();

        /** Solves from the last basis; x per session column, objective without the program's constant. */
        LpSolver.Result solve();

        /**
         * Row duals y of the last optimum, signed so that the reduced cost of any column is
         * {@code c_j - sum_i y_i a_ij}, whatever the sense: a column not in the model improves a
         * maximum if it is positive, a minimum if it is negative.
         */
        double[] duals();

        @Override
        void close();
    }
}
