package io.moses.optimizer;

/** A linear-program solver behind one interface: lp_solve (native, through JNA) or ojAlgo (pure Java). */
interface LpSolver {
    /** "lp_solve" or "ojAlgo": the name plans carry. */
    String name();

    /** One line for the log: name, version, where it was loaded from. */
    String description();

    /** Solves {@code lp} within {@code timeoutSeconds}; never throws for a bad model, reports it. */
    Result solve(LinearProgram lp, double timeoutSeconds);

    /** Outcome of a solve. */
    enum Status {
        OPTIMAL, INFEASIBLE, UNBOUNDED,
        /** neither optimality nor infeasibility proven (stall, time limit, numerical failure) */
        FAILED
    }

    /**
     * @param x         column values (null unless OPTIMAL)
     * @param objective objective value including the program's constant (NaN unless OPTIMAL)
     * @param detail    the solver's own status text
     */
    record Result(Status status, double[] x, double objective, double millis, String detail) {}
}
