/**
 * The Optimization Engine: the Plan step of the broker's MAPE-K loop. From what the knowledge
 * base knows at one moment (a {@link io.moses.optimizer.PlanningInput}) it builds the linear
 * program of docs/model.md, solves it (the relaxed program when no plan keeps every SLA) and
 * returns the plan that binds every (class, task) to implementations, as a
 * {@link io.moses.optimizer.PlanResult}; it also answers the SLA Manager's admission question
 * ({@link io.moses.optimizer.OptimizationEngine#admit}).
 *
 * <p>Public: {@code OptimizationEngine}, {@code PlanningInput}, {@code PlanResult},
 * {@code AdmissionDecision}. Everything else is package-private: the candidate implementations
 * and their QoS ({@code Candidates}), the program ({@code Program}, {@code Workflow}), column
 * generation, and the solvers behind {@code LpSolver} (Clp and lp_solve through JNA, ojAlgo in
 * pure Java; {@code Solvers} finds them in that order). No ODE, CXF or database type here.
 */
package io.moses.optimizer;
