package io.moses.optimizer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Column generation (docs/model.md, "Column generation"): solves a large program over a
 * restricted set of its columns, prices the columns left out with the row duals of the
 * restricted optimum, adds those whose reduced cost improves the objective (the best few of
 * each group), and repeats until none does. The answer is then an optimum of the whole program:
 * a column that prices out at zero or worse cannot improve it.
 *
 * <p>When the restricted program is infeasible, a feasibility phase runs first: one artificial
 * column per row (two for an equality) and the sum of artificials minimized, with columns priced
 * against that objective. Its optimum is 0 exactly when the whole program is feasible; the
 * artificials are then fixed at 0 and the real objective takes over from that feasible basis.
 */
final class ColumnGeneration {
    /** Outcome: the solve over the whole program's columns, and how it went. */
    record Outcome(LpSolver.Result result, int pricingRounds, int columnsUsed, int feasibilityRounds) {}

    /** Columns added per (class, task) and round: the most improving one (measured: 1 beats 2 and 4). */
    static final int PER_GROUP = 1;
    /** A round gives up after this many; the caller then solves the whole program. */
    static final int MAX_ROUNDS = 500;
    private static final Logger log = LoggerFactory.getLogger(ColumnGeneration.class);

    private final LinearProgram full;
    private final int[] group;
    // the whole program by column (compressed sparse columns)
    private final int[] colStart, rowOf;
    private final double[] valueOf;

    /**
     * @param full  the whole program
     * @param group per column of {@code full}: the group it competes in (the best few of a group
     *              enter per round), or -1 for a column that is always in; columns past the end
     *              of the array are always in
     */
    ColumnGeneration(LinearProgram full, int[] group) {
        this.full = full;
        int n = full.columns();
        this.group = Arrays.copyOf(group, n);
        for (int j = group.length; j < n; j++) this.group[j] = -1;
        int[] count = new int[n + 1];
        List<LinearProgram.Row> rows = full.rows();
        for (LinearProgram.Row r : rows) for (int j : r.index()) count[j + 1]++;
        colStart = new int[n + 1];
        for (int j = 0; j < n; j++) colStart[j + 1] = colStart[j] + count[j + 1];
        rowOf = new int[colStart[n]];
        valueOf = new double[colStart[n]];
        int[] fill = Arrays.copyOf(colStart, n);
        for (int i = 0; i < rows.size(); i++) {
            LinearProgram.Row r = rows.get(i);
            for (int k = 0; k < r.index().length; k++) {
                int j = r.index()[k];
                rowOf[fill[j]] = i;
                valueOf[fill[j]++] = r.coef()[k];
            }
        }
    }

    /**
     * Solves {@code full} starting from the columns in {@code initial} (plus every column that
     * is always in).
     */
    Outcome solve(IncrementalSolver solver, BitSet initial, double timeoutSeconds) {
        long t0 = System.nanoTime();
        int n = full.columns();
        BitSet active = new BitSet(n);
        for (int j = 0; j < n; j++) if (group[j] < 0 || initial.get(j)) active.set(j);
        int[] columns = active.stream().toArray();
        List<Integer> sessionColumn = new ArrayList<>(); // session column -> full column (-1: artificial)
        for (int j : columns) sessionColumn.add(j);
        int rows = full.rows().size();
        int rounds = 0, feasibilityRounds = 0;
        try (IncrementalSolver.Session s = solver.open(full, columns, timeoutSeconds)) {
            LpSolver.Result r = s.solve();
            if (log.isDebugEnabled())
                log.debug("column generation: start {} in {} ms over {} columns", r.status(), fmt(r.millis()), s.columns());
            if (r.status() == LpSolver.Status.INFEASIBLE) {
                // Feasibility phase: artificials a >= 0 on every row, minimize their sum.
                int firstArtificial = s.columns();
                for (int i = 0; i < rows; i++) {
                    LinearProgram.Row row = full.rows().get(i);
                    int[] at = {i};
                    if (row.kind() != LinearProgram.Kind.LE) { s.addColumn(0, at, new double[] {1}, 0, Double.POSITIVE_INFINITY); sessionColumn.add(-1); }
                    if (row.kind() != LinearProgram.Kind.GE) { s.addColumn(0, at, new double[] {-1}, 0, Double.POSITIVE_INFINITY); sessionColumn.add(-1); }
                }
                double[] phaseCost = new double[s.columns()];
                for (int c = firstArtificial; c < phaseCost.length; c++) phaseCost[c] = 1;
                s.setObjective(phaseCost, false);
                while (true) {
                    r = s.solve();
                    if (r.status() != LpSolver.Status.OPTIMAL) return failed(r, rounds, s.columns(), t0);
                    if (timedOut(t0, timeoutSeconds)) return failed(timeout(t0), rounds, s.columns(), t0);
                    double[] y = s.duals();
                    int added = price(s, y, active, sessionColumn, false, true);
                    if (log.isDebugEnabled())
                        log.debug("column generation: feasibility round, infeasibility {}, {} columns added, at {} ms",
                                r.objective(), added, fmt(ms(t0)));
                    feasibilityRounds++;
                    if (added == 0) break;
                    if (feasibilityRounds > MAX_ROUNDS) return failed(stalled(t0), rounds, s.columns(), t0);
                }
                if (r.objective() > feasibilityTolerance())
                    return new Outcome(new LpSolver.Result(LpSolver.Status.INFEASIBLE, null, Double.NaN, ms(t0),
                            "INFEASIBLE (feasibility phase of column generation ended at " + r.objective() + ")"),
                            rounds, active.cardinality(), feasibilityRounds);
                for (int c = firstArtificial; c < s.columns(); c++) if (sessionColumn.get(c) < 0) s.setUpper(c, 0);
                double[] cost = new double[s.columns()];
                for (int c = 0; c < cost.length; c++) {
                    int j = sessionColumn.get(c);
                    cost[c] = j < 0 ? 0 : full.objective(j);
                }
                s.setObjective(cost, full.maximize());
                r = s.solve();
            }
            while (true) {
                if (r.status() != LpSolver.Status.OPTIMAL)
                    return new Outcome(new LpSolver.Result(r.status(), null, Double.NaN, ms(t0), r.detail()), rounds,
                            active.cardinality(), feasibilityRounds);
                rounds++;
                if (timedOut(t0, timeoutSeconds)) return failed(timeout(t0), rounds, s.columns(), t0);
                int added = price(s, s.duals(), active, sessionColumn, full.maximize(), false);
                if (log.isDebugEnabled())
                    log.debug("column generation: round {}, objective {}, {} columns, {} added, at {} ms", rounds,
                            r.objective(), s.columns(), added, fmt(ms(t0)));
                if (added == 0) break;
                if (rounds > MAX_ROUNDS) return failed(stalled(t0), rounds, s.columns(), t0);
                r = s.solve();
            }
            double[] x = new double[n];
            for (int c = 0; c < sessionColumn.size(); c++) {
                int j = sessionColumn.get(c);
                if (j >= 0) x[j] = r.x()[c];
            }
            return new Outcome(new LpSolver.Result(LpSolver.Status.OPTIMAL, x, full.evaluate(x), ms(t0),
                    r.detail() + " after " + rounds + " pricing round(s)"), rounds, active.cardinality(), feasibilityRounds);
        } catch (IllegalStateException e) {
            return new Outcome(new LpSolver.Result(LpSolver.Status.FAILED, null, Double.NaN, ms(t0), e.getMessage()), rounds,
                    active.cardinality(), feasibilityRounds);
        }
    }

    /**
     * Prices every column not yet in and adds the best {@link #PER_GROUP} improving ones of each
     * group. In the feasibility phase the columns cost nothing (the objective is the artificials').
     *
     * @return how many columns entered
     */
    private int price(IncrementalSolver.Session s, double[] y, BitSet active, List<Integer> sessionColumn, boolean maximize,
                      boolean feasibility) {
        int n = full.columns();
        double scale = 0;
        for (int j = 0; j < n; j++) scale = Math.max(scale, Math.abs(full.objective(j)));
        double tol = feasibility ? 1e-9 : 1e-9 * Math.max(1, scale);
        // best PER_GROUP per group: small arrays keyed by group id
        int groups = 0;
        for (int g : group) groups = Math.max(groups, g + 1);
        int[][] best = new int[groups][PER_GROUP];
        double[][] gain = new double[groups][PER_GROUP];
        for (int[] b : best) Arrays.fill(b, -1);
        for (int j = active.nextClearBit(0); j < n; j = active.nextClearBit(j + 1)) {
            int g = group[j];
            if (g < 0) continue;
            double d = feasibility ? 0 : full.objective(j);
            for (int k = colStart[j]; k < colStart[j + 1]; k++) d -= y[rowOf[k]] * valueOf[k];
            double improve = (maximize && !feasibility) ? d : -d;
            if (improve <= tol) continue;
            int[] b = best[g];
            double[] v = gain[g];
            int slot = -1; // an empty place, else the least improving one
            for (int k = 0; k < PER_GROUP; k++) {
                if (b[k] < 0) { slot = k; break; }
                if (slot < 0 || v[k] < v[slot]) slot = k;
            }
            if (b[slot] < 0 || improve > v[slot]) {
                b[slot] = j;
                v[slot] = improve;
            }
        }
        int added = 0;
        for (int[] b : best)
            for (int j : b) {
                if (j < 0) continue;
                int len = colStart[j + 1] - colStart[j];
                s.addColumn(feasibility ? 0 : full.objective(j), Arrays.copyOfRange(rowOf, colStart[j], colStart[j] + len),
                        Arrays.copyOfRange(valueOf, colStart[j], colStart[j] + len), full.lower(j), full.upper(j));
                sessionColumn.add(j);
                active.set(j);
                added++;
            }
        return added;
    }

    private double feasibilityTolerance() {
        double scale = 1;
        for (LinearProgram.Row r : full.rows()) scale = Math.max(scale, Math.abs(r.rhs()));
        return 1e-9 * scale;
    }

    private static boolean timedOut(long t0, double timeoutSeconds) {
        return (System.nanoTime() - t0) / 1e9 > timeoutSeconds;
    }

    private static LpSolver.Result timeout(long t0) {
        return new LpSolver.Result(LpSolver.Status.FAILED, null, Double.NaN, ms(t0), "TIMEOUT in column generation");
    }

    private static LpSolver.Result stalled(long t0) {
        return new LpSolver.Result(LpSolver.Status.FAILED, null, Double.NaN, ms(t0),
                "column generation did not converge in " + MAX_ROUNDS + " rounds");
    }

    private static Outcome failed(LpSolver.Result r, int rounds, int columns, long t0) {
        return new Outcome(new LpSolver.Result(LpSolver.Status.FAILED, null, Double.NaN, ms(t0), r.detail()), rounds, columns, 0);
    }

    private static String fmt(double millis) {
        return String.format("%.1f", millis);
    }

    private static double ms(long t0) {
        return (System.nanoTime() - t0) / 1e6;
    }
}
