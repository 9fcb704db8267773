package io.moses.optimizer;

import io.moses.model.CompositeService;
import io.moses.model.Plan;
import io.moses.model.ServiceClass;
import io.moses.model.TaskRef;
import io.moses.model.Visits;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Optimization Engine: builds the linear program of docs/model.md from a
 * {@link PlanningInput}, solves it (the relaxed program when it is infeasible) and answers
 * admission questions. Large programs are solved by column generation. The only state kept
 * between calls is the bindings of the last plan made, where the next column generation starts
 * (a warm start: it changes how fast a plan is found, not which optimum). One instance per broker.
 */
public final class OptimizationEngine {
    private static final Logger log = LoggerFactory.getLogger(OptimizationEngine.class);
    /** Slack below this (relative to its bound) counts as zero. */
    private static final double SLACK_TOLERANCE = 1e-7;

    /**
     * Which solver to use: AUTO takes the first that loads of Clp, lp_solve, ojAlgo (the order of
     * {@link Solvers}, measured); the others ask for exactly one.
     */
    public enum SolverChoice {
        AUTO, CLP, LP_SOLVE, OJALGO;

        /** Parses a configuration value ("auto", "clp", "lp_solve", "ojalgo"), naming the setting on error. */
        public static SolverChoice parse(String value) {
            String v = value == null ? "auto" : value.strip().toLowerCase().replace("-", "_");
            return switch (v) {
                case "", "auto" -> AUTO;
                case "clp" -> CLP;
                case "lp_solve", "lpsolve" -> LP_SOLVE;
                case "ojalgo" -> OJALGO;
                default -> throw new IllegalArgumentException("optimizer.solver must be auto, clp, lp_solve or ojalgo, was " + value);
            };
        }
    }

    /**
     * How a program reaches the solver: whole, or by column generation (docs/model.md, "Column
     * generation"); AUTO uses column generation when the solver can keep a model open and the
     * program has at least {@link IncrementalSolver#columnGenerationFrom()} x columns.
     */
    enum Method { AUTO, SIMPLEX, COLUMN_GENERATION }

    /**
     * Single services per (class, task) that column generation starts with: all of them
     * (measured: starting from the best two makes the start infeasible on capacity, and the
     * feasibility phase costs more than the larger start).
     */
    static final int INITIAL_SINGLES = Integer.MAX_VALUE;

    private final LpSolver primary;
    private final LpSolver fallback;
    private Method method = Method.AUTO;
    /** What its plans are stamped with ({@link Plan#created}): the broker's wall clock. */
    private Clock clock = Clock.systemUTC();
    /** The bindings of the last plan this engine made: where column generation starts next time. */
    private final AtomicReference<Map<Plan.Key, List<Plan.Share>>> inForce = new AtomicReference<>();

    /** The first solver that loads of Clp, lp_solve and ojAlgo; the next one as fallback. */
    public OptimizationEngine() {
        this(SolverChoice.AUTO);
    }

    /**
     * @throws IllegalStateException if Clp or lp_solve is asked for and cannot be loaded
     */
    public OptimizationEngine(SolverChoice choice) {
        this(choice, Solvers.clp(), Solvers.lpSolve());
    }

    /** As {@link #OptimizationEngine(SolverChoice)}, its plans stamped on {@code clock} (the broker's wall clock). */
    public OptimizationEngine(SolverChoice choice, Clock clock) {
        this(choice);
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The choice over the native solvers found (tests pass absent ones). */
    OptimizationEngine(SolverChoice choice, Optional<LpSolver> clp, Optional<LpSolver> lpSolve) {
        LpSolver oj = Solvers.ojAlgo();
        List<LpSolver> order = new ArrayList<>();
        String missing = "";
        switch (choice) {
            case CLP -> order.add(clp.orElseThrow(() -> new IllegalStateException(
                    "optimizer.solver is clp but libClp.so.1 was not found (set -D" + Solvers.CLP_LIBRARY_PROPERTY
                            + "=/path/to/libClp.so.1 or install the Debian package coinor-libclp1)")));
            case LP_SOLVE -> order.add(lpSolve.orElseThrow(() -> new IllegalStateException(
                    "optimizer.solver is lp_solve but liblpsolve55.so was not found (set -D" + Solvers.LIBRARY_PROPERTY
                            + "=/path/to/liblpsolve55.so or install the Debian package lp-solve)")));
            case OJALGO -> order.add(oj);
            case AUTO -> {
                if (clp.isEmpty()) missing = "Clp";
                if (lpSolve.isEmpty()) missing += (missing.isEmpty() ? "" : " and ") + "lp_solve";
            }
        }
        // then the rest in the order of preference: the fallback is the best one not chosen
        for (Optional<LpSolver> s : List.of(clp, lpSolve)) s.filter(x -> !order.contains(x)).ifPresent(order::add);
        if (!order.contains(oj)) order.add(oj);
        primary = order.get(0);
        fallback = order.size() > 1 ? order.get(1) : null;
        log.info("optimizer: using {}{}{}", primary.description(),
                choice != SolverChoice.AUTO ? " (configured)" : missing.isEmpty() ? "" : " (" + missing + " not found)",
                fallback == null ? "" : ", " + fallback.name() + " as fallback");
    }

    /** An engine on these solvers; {@code fallback} (may be null) is tried when a solve fails. */
    OptimizationEngine(LpSolver primary, LpSolver fallback) {
        this.primary = Objects.requireNonNull(primary, "primary");
        this.fallback = fallback;
    }

    public String solverName() {
        return primary.name();
    }

    /** The same solvers with the method fixed (benchmarks and tests compare the two). */
    OptimizationEngine with(Method m) {
        OptimizationEngine e = new OptimizationEngine(primary, fallback);
        e.method = m;
        e.clock = clock;
        return e;
    }

    /** Forgets the plan column generation would start from (benchmarks time a cold start). */
    void forgetPlanInForce() {
        inForce.set(null);
    }

    /**
     * What {@code plan}'s shares give each class on {@code input}'s estimates, computed as the
     * optimizer predicts a plan's R, A and C, without solving: the figures of the plan in force
     * with other r_j (a forecast). Keyed as {@link Plan#predictions()}; a class whose shares name
     * an implementation that is not a candidate on this input (a member down) is left out.
     */
    public static Map<String, Plan.Prediction> evaluate(PlanningInput input, Plan plan) {
        Program prog = new Program(input);
        if (!prog.uncovered.isEmpty()) return Map.of();
        return prog.evaluate(plan);
    }

    public PlanResult plan(PlanningInput input) {
        return plan(input, "re-plan");
    }

    /**
     * The best plan for {@code input}: the hard program's optimum, else the relaxed program's plan
     * with the classes at risk, else (capacity overloaded) the plan under the least utilization.
     */
    public PlanResult plan(PlanningInput input, String reason) {
        Run run = new Run();
        PlanResult r;
        try {
            r = plan(input, reason, run);
        } catch (RuntimeException e) {
            // a profile that does not fit its tree, a solver library that breaks: no plan from this
            // input, and the caller keeps the plan in force
            r = run.failed("cannot plan: " + e.getMessage());
        }
        String message = r.message();
        if (!run.unplanned.isEmpty() && r.hasPlan()) {
            message += "; not planned: " + run.unplanned;
            log.info("optimizer: composites not planned (they keep their fractions): {}", run.unplanned);
        }
        if (!run.ignored.isEmpty()) {
            String note = "; ignored estimates that are not numbers: " + run.ignored;
            log.warn("optimizer: {}", note.substring(2));
            message += note;
        }
        return new PlanResult(r.status(), r.plan(), message, r.overloadedProviders(), r.diagnostics(), run.unplanned);
    }

    private PlanResult plan(PlanningInput input, String reason, Run run) {
        long t0 = System.nanoTime();
        Scoped scoped = scoped(input);
        Program prog = scoped.program();
        run.ignored = prog.ignoredEstimates;
        run.buildMillis = ms(t0);
        run.unplanned = scoped.unplanned();
        if (!prog.uncovered.isEmpty())
            return run.failed(prog.whyUncovered(prog.uncovered, "no available concrete service for task(s) "));
        if (scoped.unplanned().size() == input.composites().size()) return run.failed("nothing to plan: " + scoped.unplanned());
        double timeout = input.settings().timeoutSeconds();

        LinearProgram hard = prog.hard();
        run.size(hard);
        Program.setObjective(hard, prog.objective(), true);
        LpSolver.Result res = run.solve(prog, hard, timeout);
        if (res.status() == LpSolver.Status.OPTIMAL) {
            res = run.breakTies(prog, hard, res, timeout);
            Plan plan = run.plan(prog, res, List.of(), reason);
            log.debug("optimizer: optimal plan, objective {}, {} variables, {} ms", res.objective(), hard.columns(), run.solveMillis);
            return new PlanResult(PlanResult.Status.OPTIMAL, plan, "optimal", List.of(), run.diagnostics());
        }
        if (res.status() != LpSolver.Status.INFEASIBLE)
            return run.failed("the hard program could not be solved: " + res.detail());

        // The relaxed program (docs/model.md): two phases, capacity hard.
        double scale = 1.0;
        Program.Relaxed p1 = prog.phase1(scale);
        LpSolver.Result r1 = run.solve(prog, p1.lp(), timeout);
        boolean overloadedCapacity = false;
        if (r1.status() == LpSolver.Status.INFEASIBLE) {
            LinearProgram util = prog.minUtilization();
            LpSolver.Result ru = run.solve(prog, util, timeout);
            if (ru.status() != LpSolver.Status.OPTIMAL)
                return run.failed("capacity overloaded and the utilization program failed: " + ru.detail());
            overloadedCapacity = true;
            scale = Math.max(1.0, ru.objective()) * (1 + 1e-6);
            p1 = prog.phase1(scale);
            r1 = run.solve(prog, p1.lp(), timeout);
        }
        if (r1.status() != LpSolver.Status.OPTIMAL)
            return run.failed("the relaxed program (phase 1) could not be solved: " + r1.detail());
        Program.Relaxed p2 = prog.phase2(scale, r1.objective());
        Program.setObjective(p2.lp(), prog.objective(), true);
        LpSolver.Result r2 = run.solve(prog, p2.lp(), timeout);
        if (r2.status() != LpSolver.Status.OPTIMAL) r2 = r1; // phase 1's point is still a valid relaxed plan
        else r2 = run.breakTies(prog, p2.lp(), r2, timeout);
        List<Plan.ClassAtRisk> atRisk = atRisk(prog, p2, r2.x());
        // the endpoints the plan actually returned overloads (not the utilization program's)
        List<String> overloaded = new ArrayList<>();
        if (overloadedCapacity)
            for (var e : prog.utilization(r2.x()).entrySet()) if (e.getValue() > 1 + 1e-9) overloaded.add(e.getKey());
        double objective = prog.objective().evaluate(r2.x());
        Plan plan = run.plan(prog, new LpSolver.Result(r2.status(), r2.x(), objective, r2.millis(), r2.detail()), atRisk,
                reason);
        PlanResult.Status status = overloadedCapacity ? PlanResult.Status.OVERLOADED : PlanResult.Status.RELAXED;
        String msg = (status == PlanResult.Status.OVERLOADED
                ? String.format("capacity overloaded (utilization %.3f) at %s; ", scale, overloaded) : "hard program infeasible; ")
                + atRisk.size() + " class(es) at risk " + atRisk.stream().map(Plan.ClassAtRisk::serviceClass).toList();
        log.warn("optimizer: {}", msg);
        return new PlanResult(status, plan, msg, overloaded, run.diagnostics());
    }

    /**
     * Admission (docs/model.md, "Admission and counter-offer"): may {@code serviceClass} take
     * {@code extraRate} more requests per second and every SLA still be kept? On rejection, the
     * largest extra rate it can take (to within 1% of the request: the counter-offer) and the
     * other classes that could take the whole request. This is the SLA Manager's entry point: a
     * stable API, safe to call from any thread (the engine holds no per-call state).
     *
     * @param input        what is known now, with the class's current load
     * @param serviceClass the class the new user asks for
     * @param extraRate    the new user's rate [req/s], finite and >= 0
     * @throws IllegalArgumentException naming the class or the rate when they are not valid;
     *                                  every other problem (no candidate, a solver failure) is a
     *                                  rejection whose reason says why
     */
    public AdmissionDecision admit(PlanningInput input, String serviceClass, double extraRate) {
        ServiceClass k = input.serviceClass(serviceClass);
        if (!(extraRate >= 0) || Double.isInfinite(extraRate))
            throw new IllegalArgumentException("rate must be a finite number >= 0, was " + extraRate);
        Run run = new Run();
        Feasibility now = feasibility(input, run);
        if (now.failed) return new AdmissionDecision(k.name(), extraRate, false, 0, List.of(), null,
                "cannot decide: " + now.detail);
        if (now.overloaded)
            return new AdmissionDecision(k.name(), extraRate, false, 0, List.of(), null,
                    "provider capacity is overloaded: no new load is accepted");
        double base = input.load(k.name());
        if (accepts(input.withLoad(k.name(), base + extraRate), now, run)) {
            PlanResult plan = plan(input.withLoad(k.name(), base + extraRate), "admission of " + extraRate + " req/s in " + k.name());
            return new AdmissionDecision(k.name(), extraRate, true, extraRate, List.of(), plan, "accepted");
        }
        // Counter-offer: bisection on the extra rate, to within 1% of the request.
        double lo = 0, hi = extraRate;
        while (hi - lo > 0.01 * extraRate) {
            double mid = (lo + hi) / 2;
            if (accepts(input.withLoad(k.name(), base + mid), now, run)) lo = mid;
            else hi = mid;
        }
        List<String> others = new ArrayList<>();
        for (ServiceClass h : input.classes())
            if (!h.name().equals(k.name()) && accepts(input.withLoad(h.name(), input.load(h.name()) + extraRate), now, run))
                others.add(h.name());
        String reason = String.format("rejected: class %s can take at most %.4g more req/s%s", k.name(), lo,
                others.isEmpty() ? "" : "; classes that can take " + extraRate + " req/s: " + others);
        log.info("optimizer: admission of {} req/s in {} {}", extraRate, k.name(), reason);
        return new AdmissionDecision(k.name(), extraRate, false, lo, others, null, reason);
    }

    /**
     * The program over the composites that can be planned, and why the others cannot: a
     * composite with a task whose registered concrete services are all unavailable (down, out,
     * ejected) is left out so that it does not stop the plans of the others (it keeps the
     * fractions it had). Tasks with no service registered at all are outside every program
     * ({@link Program#unmanaged}). When no composite can be planned, the program of all of them
     * (with its uncovered tasks) is returned.
     */
    static Scoped scoped(PlanningInput in) {
        Program all = new Program(in);
        Map<String, String> unplanned = new java.util.LinkedHashMap<>();
        for (CompositeService c : in.composites()) {
            java.util.Set<TaskRef> tasks = new java.util.LinkedHashSet<>(Visits.tasks(c));
            if (all.unmanaged.containsAll(tasks)) unplanned.put(c.name(), "unmanaged: no concrete service registered for " + tasks);
        }
        Map<String, java.util.Set<TaskRef>> uncoveredBy = new java.util.LinkedHashMap<>();
        for (TaskRef t : all.uncovered) uncoveredBy.computeIfAbsent(t.composite(), c -> new java.util.LinkedHashSet<>()).add(t);
        uncoveredBy.forEach((c, tasks) -> unplanned.put(c, all.whyUncovered(tasks, "no available concrete service for ")));
        if (unplanned.isEmpty()) return new Scoped(all, Map.of());
        List<CompositeService> rest = in.composites().stream().filter(c -> !unplanned.containsKey(c.name())).toList();
        if (rest.isEmpty()) return new Scoped(all, unplanned);
        return new Scoped(new Program(in.withComposites(rest)), unplanned);
    }

    /** A program and the composites left out of it, with why. */
    record Scoped(Program program, Map<String, String> unplanned) {}

    /** State of a program for admission: hard-feasible, relaxed with weighted slack S, or overloaded. */
    private record Feasibility(boolean overloaded, boolean failed, double weightedSlack, String detail) {}

    private Feasibility feasibility(PlanningInput in, Run run) {
        Program prog;
        try {
            prog = scoped(in).program();
        } catch (RuntimeException e) {
            return new Feasibility(false, true, 0, e.getMessage());
        }
        if (!prog.uncovered.isEmpty())
            return new Feasibility(false, true, 0, prog.whyUncovered(prog.uncovered, "no available concrete service for "));
        LpSolver.Result r = run.solve(prog, prog.phase1(1.0).lp(), in.settings().timeoutSeconds());
        return switch (r.status()) {
            case OPTIMAL -> new Feasibility(false, false, Math.max(0, r.objective()), "");
            case INFEASIBLE -> new Feasibility(true, false, Double.POSITIVE_INFINITY, "capacity overloaded");
            default -> new Feasibility(false, true, 0, r.detail());
        };
    }

    /** Feasible, or (when already relaxed) the weighted slack does not grow. */
    private boolean accepts(PlanningInput candidate, Feasibility now, Run run) {
        Feasibility f = feasibility(candidate, run);
        if (f.failed || f.overloaded) return false;
        return f.weightedSlack <= now.weightedSlack + SLACK_TOLERANCE * Math.max(1, now.weightedSlack);
    }

    private List<Plan.ClassAtRisk> atRisk(Program prog, Program.Relaxed relaxed, double[] x) {
        List<Plan.ClassAtRisk> out = new ArrayList<>();
        double m = prog.in.settings().margin();
        for (int i = 0; i < prog.units.size(); i++) {
            Program.Unit u = prog.units.get(i);
            int[] s = relaxed.slack()[i];
            if (x[s[0]] <= SLACK_TOLERANCE && x[s[1]] <= SLACK_TOLERANCE && x[s[2]] <= SLACK_TOLERANCE) continue;
            ServiceClass k = u.serviceClass();
            double r = u.responseTime().evaluate(x);
            double a = Math.exp(u.logAvailability().evaluate(x));
            double c = u.cost().evaluate(x);
            double rExcess = Math.max(0, r - (1 - m) * k.maxResponseTime());
            double aShort = Math.max(0, k.minAvailability() - a);
            double cExcess = Math.max(0, c - k.maxCost());
            boolean breaks = r > k.maxResponseTime() * (1 + 1e-9) || aShort > 1e-12 || cExcess > 1e-9 * k.maxCost();
            out.add(new Plan.ClassAtRisk(u.label(), rExcess, aShort, cExcess, breaks));
        }
        return out;
    }

    private static double ms(long t0) {
        return (System.nanoTime() - t0) / 1e6;
    }

    /** Book-keeping of one planning run: solver used, time and count of solves. */
    private final class Run {
        double buildMillis, solveMillis;
        int solves, variables, constraints, pricingRounds, columnsUsed;
        String solverUsed = primary.name();
        String methodUsed = "simplex";
        List<String> ignored = List.of();
        Map<String, String> unplanned = Map.of();

        boolean useColumnGeneration(Program prog) {
            if (!(primary instanceof IncrementalSolver inc) || method == Method.SIMPLEX) return false;
            return method == Method.COLUMN_GENERATION || prog.xColumns() >= inc.columnGenerationFrom();
        }

        void size(LinearProgram lp) {
            variables = lp.columns();
            constraints = lp.rows().size();
        }

        /**
         * Solves with the primary solver (by column generation when the program is large and the
         * solver can); if it proves neither optimality nor infeasibility, whole with the primary,
         * then with the other.
         */
        LpSolver.Result solve(Program prog, LinearProgram lp, double timeout) {
            LpSolver.Result r = null;
            if (useColumnGeneration(prog)) {
                ColumnGeneration cg = new ColumnGeneration(lp, prog.pricingGroups());
                ColumnGeneration.Outcome o = cg.solve((IncrementalSolver) primary,
                        prog.initialColumns(lp, inForce.get(), INITIAL_SINGLES), timeout);
                solves++;
                solveMillis += o.result().millis();
                pricingRounds += o.pricingRounds() + o.feasibilityRounds();
                columnsUsed = Math.max(columnsUsed, o.columnsUsed());
                methodUsed = "column generation";
                r = o.result();
                if (r.status() == LpSolver.Status.FAILED)
                    log.warn("optimizer: column generation failed ({}), solving the whole program", r.detail());
                else {
                    solverUsed = primary.name();
                    return r;
                }
            }
            r = primary.solve(lp, timeout);
            solves++;
            solveMillis += r.millis();
            if (r.status() == LpSolver.Status.FAILED && fallback != null) {
                log.warn("optimizer: {} failed ({}), retrying with {}", primary.name(), r.detail(), fallback.name());
                r = fallback.solve(lp, timeout);
                solves++;
                solveMillis += r.millis();
                solverUsed = fallback.name();
            } else {
                solverUsed = primary.name();
            }
            return r;
        }

        /**
         * Revenue objective: a second solve keeps revenue within 1e-9 (relative) of its optimum and
         * maximizes F, so that optimal plans do not depend on the solver's choice among ties.
         */
        LpSolver.Result breakTies(Program prog, LinearProgram lp, LpSolver.Result first, double timeout) {
            if (prog.in.settings().objective() != PlanningInput.Objective.REVENUE) return first;
            String solverOfFirst = solverUsed;
            double rev = first.objective();
            LinearProgram second = lp.copy();
            second.addRow("revenue", prog.revenue, LinearProgram.Kind.GE, rev - Math.max(1e-9 * Math.abs(rev), 1e-12));
            Program.setObjective(second, prog.utility, true);
            LpSolver.Result r = solve(prog, second, timeout);
            if (r.status() != LpSolver.Status.OPTIMAL) {
                solverUsed = solverOfFirst;
                return first;
            }
            return new LpSolver.Result(r.status(), r.x(), prog.revenue.evaluate(r.x()), r.millis(), r.detail());
        }

        Plan plan(Program prog, LpSolver.Result res, List<Plan.ClassAtRisk> atRisk, String reason) {
            Map<Plan.Key, List<Plan.Share>> bindings = prog.bindings(res.x());
            inForce.set(bindings);
            double[] x = res.x();
            var predictions = new java.util.LinkedHashMap<String, Plan.Prediction>();
            for (Program.Unit u : prog.units) predictions.put(u.label(), prog.predict(u, x));
            return new Plan(0, clock.instant(), bindings, predictions, res.objective(), solverUsed, solveMillis, atRisk,
                    reason);
        }

        PlanResult failed(String why) {
            log.warn("optimizer: no new plan: {}", why);
            return new PlanResult(PlanResult.Status.FAILED, null, why, List.of(), diagnostics());
        }

        PlanResult.Diagnostics diagnostics() {
            return new PlanResult.Diagnostics(variables, constraints, solverUsed, buildMillis, solveMillis, solves,
                    methodUsed, pricingRounds, methodUsed.equals("simplex") ? variables : columnsUsed);
        }
    }
}
