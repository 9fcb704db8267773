package io.moses.optimizer;

import io.moses.model.ConcreteService;
import io.moses.model.ProviderSla;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Solve time against size (classes x tasks x services per task), per solver and method. Not a
 * test: run by loadtest/bench-optimizer.sh. Prints one Markdown table row per (size, solver,
 * method): the median over the repetitions of the whole plan() (build + solve) from a cold start,
 * in CPU time of the planning thread (lp_solve runs in it, through JNA) and in wall time, the
 * pricing rounds, and the median CPU time of a warm re-plan (one service 30% slower, started
 * from the plan just made). Every method's objective is compared with the first
 * one's of the same instance; the last column is the largest relative difference.
 *
 * <p>Arguments: [REPS] [MAX_COLUMNS_FOR_SIMPLEX] [ojalgo]. Whole-program simplex with lp_solve and
 * ojAlgo is skipped above MAX_COLUMNS_FOR_SIMPLEX columns (default 50,000: 50 x 50 x 8 takes
 * minutes); Clp's always runs. The first variant, lp_solve's whole program, gives the reference
 * objective (column generation over lp_solve where the whole program is skipped).
 */
public final class OptimizerBenchmark {
    /** CPU time of this thread, native solver code included: the machine is shared, wall time is not the work. */
    static final java.lang.management.ThreadMXBean CPU = java.lang.management.ManagementFactory.getThreadMXBean();
    /** CPU time of the whole JVM (JIT and GC threads too): an upper bound, and a check that no solver works off-thread. */
    static final com.sun.management.OperatingSystemMXBean PROCESS =
            (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    static final java.lang.management.OperatingSystemMXBean LOAD = java.lang.management.ManagementFactory.getOperatingSystemMXBean();

    public static void main(String[] args) {
        int reps = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int maxSimplex = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
        boolean withOjAlgo = args.length > 2 && args[2].equalsIgnoreCase("ojalgo");
        LpSolver lp = Solvers.lpSolve().orElseThrow(() -> new IllegalStateException("lp_solve not found"));
        LpSolver clp = Solvers.clp().orElseThrow(() -> new IllegalStateException("Clp not found (apt-get install coinor-libclp1)"));
        record Variant(String solver, OptimizationEngine engine, String method) {}
        List<Variant> variants = new ArrayList<>();
        // lp_solve's whole program first: the reference optimum ("today's")
        variants.add(new Variant("lp_solve", new OptimizationEngine(lp, null).with(OptimizationEngine.Method.SIMPLEX), "simplex"));
        variants.add(new Variant("lp_solve", new OptimizationEngine(lp, null).with(OptimizationEngine.Method.COLUMN_GENERATION),
                "column generation"));
        variants.add(new Variant("Clp", new OptimizationEngine(clp, null).with(OptimizationEngine.Method.SIMPLEX), "simplex"));
        variants.add(new Variant("Clp", new OptimizationEngine(clp, null).with(OptimizationEngine.Method.COLUMN_GENERATION),
                "column generation"));
        if (withOjAlgo)
            variants.add(new Variant("ojAlgo", new OptimizationEngine(Solvers.ojAlgo(), null), "simplex"));
        System.out.printf("%s, %d cores, load average at start %.2f%n", System.getProperty("java.vm.version"),
                Runtime.getRuntime().availableProcessors(), LOAD.getSystemLoadAverage());
        System.out.println("| instance | classes x tasks x services | columns | rows | solver | method | status | plan() CPU median [ms] | plan() process CPU median [ms] | plan() wall median [ms] | pricing rounds | columns used | warm re-plan CPU median [ms] | objective | max rel. diff | load avg |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        int[][] sizes = {{0, 5, 6, 0}, {1, 5, 10, 4}, {1, 10, 20, 4}, {1, 10, 30, 6}, {1, 20, 30, 6}, {1, 30, 40, 8},
                {1, 50, 50, 8}};
        for (int[] s : sizes) {
            boolean trip = s[0] == 0;
            PlanningInput in = longTimeout(trip ? Fixtures.tripPlannerInput(s[1], 1).build() : Fixtures.synthetic(s[1], s[2], s[3], 1).build());
            PlanningInput slower = oneServiceSlower(in);
            String label = trip ? "trip planner" : "synthetic";
            String dims = trip ? s[1] + " x 6 x 2-4" : s[1] + " x " + s[2] + " x " + s[3];
            double reference = Double.NaN;
            for (Variant v : variants) {
                int columns = new Program(in).columns();
                // Clp's whole program stays affordable at every size; lp_solve's and ojAlgo's do not
                if (!v.method().equals("column generation") && !v.solver().equals("Clp") && columns > maxSimplex) continue;
                boolean big = columns > 20_000;
                int n = trip ? 40 : big ? Math.max(1, reps / 2) : reps;
                for (int w = 0; w < (trip ? 40 : 1); w++) { v.engine().forgetPlanInForce(); v.engine().plan(in); } // JIT, library load
                double[] total = new double[n], solve = new double[n], warm = new double[n], cpu = new double[n],
                        warmCpu = new double[n], processCpu = new double[n];
                int rounds = 0, used = 0;
                PlanResult last = null;
                double maxDiff = 0;
                for (int i = 0; i < n; i++) {
                    v.engine().forgetPlanInForce();
                    long c0 = CPU.getCurrentThreadCpuTime(), p0 = PROCESS.getProcessCpuTime(), t0 = System.nanoTime();
                    last = v.engine().plan(in);
                    total[i] = (System.nanoTime() - t0) / 1e6;
                    cpu[i] = (CPU.getCurrentThreadCpuTime() - c0) / 1e6;
                    processCpu[i] = (PROCESS.getProcessCpuTime() - p0) / 1e6;
                    solve[i] = last.diagnostics().solveMillis();
                    rounds = last.diagnostics().pricingRounds();
                    used = last.diagnostics().columnsUsed();
                    if (!last.hasPlan()) throw new IllegalStateException(dims + " " + v + ": " + last.message());
                    if (Double.isNaN(reference)) reference = last.plan().objective();
                    maxDiff = Math.max(maxDiff, relDiff(reference, last.plan().objective()));
                    long c1 = CPU.getCurrentThreadCpuTime(), t1 = System.nanoTime();
                    v.engine().plan(slower); // starts from the plan just made
                    warm[i] = (System.nanoTime() - t1) / 1e6;
                    warmCpu[i] = (CPU.getCurrentThreadCpuTime() - c1) / 1e6;
                }
                System.out.printf("| %s | %s | %d | %d | %s | %s | %s | %.1f | %.1f | %.1f | %d | %d | %.1f | %.9f | %.1e | %.1f |%n", label,
                        dims, last.diagnostics().variables(), last.diagnostics().constraints(), v.solver(), v.method(),
                        last.status(), median(cpu), median(processCpu), median(total), rounds, used, median(warmCpu),
                        last.plan().objective(), maxDiff, LOAD.getSystemLoadAverage());
            }
        }
    }

    /** A per-solve time limit of 15 minutes: a loaded machine must not turn a slow solve into a failure. */
    static PlanningInput longTimeout(PlanningInput in) {
        var d = in.settings();
        return in.withSettings(new PlanningInput.Settings(d.weightResponseTime(), d.weightAvailability(), d.weightCost(),
                d.margin(), d.objective(), d.maxParallel(), d.maxAlternate(), d.defaultFailureDetection(),
                d.minObservedSamples(), d.empiricalMinSamples(), 900));
    }

    /** The same instance with the first concrete service 30% slower (a small change). */
    static PlanningInput oneServiceSlower(PlanningInput in) {
        List<ConcreteService> services = new ArrayList<>(in.services());
        ConcreteService s = services.get(0);
        ProviderSla a = s.sla();
        services.set(0, new ConcreteService(s.name(), s.task(), s.endpoint(),
                new ProviderSla(a.responseTime() * 1.3, a.availability(), a.cost(), a.maxRate()), s.mapping()));
        return new PlanningInput(in.composites(), in.classes(), in.classLoad(), services, in.down(), in.observed(),
                in.successSamples(), in.failureDetection(), in.profiles(), in.visits(), in.settings());
    }

    static double relDiff(double a, double b) {
        return Math.abs(a - b) / Math.max(1e-9, Math.max(Math.abs(a), Math.abs(b)));
    }

    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
