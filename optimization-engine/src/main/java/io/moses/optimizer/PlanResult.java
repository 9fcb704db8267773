package io.moses.optimizer;

import io.moses.model.Plan;
import java.util.List;
import java.util.Map;

/**
 * What one planning run produced.
 *
 * @param status              how the plan was found
 * @param plan                the plan draft (version 0: the caller numbers it); null when FAILED
 * @param message             one line: what happened, for logs and the console
 * @param overloadedProviders endpoints whose capacity the plan exceeds (status OVERLOADED)
 * @param diagnostics         program size and timings
 * @param unplanned           composites left out of the plan, with why (a task whose registered
 *                            concrete services are all unavailable); the caller keeps their
 *                            fractions of the plan in force
 */
public record PlanResult(Status status, Plan plan, String message, List<String> overloadedProviders,
                         Diagnostics diagnostics, Map<String, String> unplanned) {

    public PlanResult {
        overloadedProviders = List.copyOf(overloadedProviders);
        unplanned = Map.copyOf(unplanned);
    }

    /** A result that covers every composite of its input. */
    public PlanResult(Status status, Plan plan, String message, List<String> overloadedProviders, Diagnostics diagnostics) {
        this(status, plan, message, overloadedProviders, diagnostics, Map.of());
    }

    public enum Status {
        /** the hard program's optimum: every SLA kept */
        OPTIMAL,
        /** the hard program is infeasible: the relaxed program's plan, classes at risk listed */
        RELAXED,
        /** even the relaxed program is infeasible: capacities scaled by the least utilization */
        OVERLOADED,
        /** no plan: a task without any available service, or the solvers failed; keep the current plan */
        FAILED
    }

    public boolean hasPlan() {
        return plan != null;
    }

    /**
     * @param variables   columns of the (hard) program
     * @param constraints rows of the (hard) program
     * @param solver      the solver that produced the plan
     * @param buildMillis time to build the candidates and the program
     * @param solveMillis time spent in solvers, over every solve
     * @param solves      number of solves
     * @param method        "simplex" (the whole program to the solver) or "column generation"
     * @param pricingRounds rounds of the pricing loop, over every solve (0 for simplex)
     * @param columnsUsed   columns the largest restricted program held (column generation), else
     *                      the whole program's
     */
    public record Diagnostics(int variables, int constraints, String solver, double buildMillis, double solveMillis,
                              int solves, String method, int pricingRounds, int columnsUsed) {
        public Diagnostics(int variables, int constraints, String solver, double buildMillis, double solveMillis, int solves) {
            this(variables, constraints, solver, buildMillis, solveMillis, solves, "simplex", 0, variables);
        }
    }
}
