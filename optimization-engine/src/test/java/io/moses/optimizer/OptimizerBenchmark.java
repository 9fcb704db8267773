package io.moses.optimizer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Solve time against size (classes x tasks x services per task) for both solvers. Not a test:
 * run by loadtest/bench-optimizer.sh. Prints one Markdown table row per (size, solver): the
 * median over the repetitions of the whole plan() (build + solve) and of the solver time alone.
 */
public final class OptimizerBenchmark {
    public static void main(String[] args) {
        int reps = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        LpSolver lp = Solvers.lpSolve().orElse(null);
        List<LpSolver> solvers = new ArrayList<>();
        if (lp != null) solvers.add(lp);
        solvers.add(Solvers.ojAlgo());
        System.out.println("| instance | classes x tasks x services | variables | constraints | solver | status | plan() median [ms] | solver median [ms] | runs |");
        System.out.println("|---|---|---|---|---|---|---|---|---|");
        int[][] sizes = {{0, 5, 6, 0}, {1, 5, 10, 4}, {1, 10, 20, 4}, {1, 10, 30, 6}, {1, 20, 30, 6}};
        for (int[] s : sizes) {
            boolean trip = s[0] == 0;
            PlanningInput in = trip ? Fixtures.tripPlannerInput(s[1], 1).build() : Fixtures.synthetic(s[1], s[2], s[3], 1).build();
            String label = trip ? "trip planner" : "synthetic";
            String dims = trip ? s[1] + " x 6 x 2-4" : s[1] + " x " + s[2] + " x " + s[3];
            for (LpSolver solver : solvers) {
                OptimizationEngine e = new OptimizationEngine(solver, null);
                int n = Math.max(3, (trip ? 20 : reps) * (solver.name().equals("ojAlgo") && s[1] * s[2] * s[3] > 2000 ? 1 : 2) / 2);
                for (int w = 0; w < (trip ? 20 : 1); w++) e.plan(in); // warm-up (JIT, library load)
                double[] total = new double[n], solve = new double[n];
                PlanResult last = null;
                for (int i = 0; i < n; i++) {
                    long t0 = System.nanoTime();
                    last = e.plan(in);
                    total[i] = (System.nanoTime() - t0) / 1e6;
                    solve[i] = last.diagnostics().solveMillis();
                }
                System.out.printf("| %s | %s | %d | %d | %s | %s | %.1f | %.1f | %d |%n", label, dims,
                        last.diagnostics().variables(), last.diagnostics().constraints(), solver.name(), last.status(),
                        median(total), median(solve), n);
            }
        }
    }

    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
