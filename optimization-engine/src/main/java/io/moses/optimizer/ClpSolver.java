package io.moses.optimizer;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * COIN-OR Clp through JNA on its C interface (Clp_C_Interface.h; Debian package
 * {@code coinor-libclp1}). Measured faster than lp_solve on the large programs (docs/benchmarks/2026-11-23-optimization-engine.md,
 * "Optimization Engine"), where column generation keeps one Clp model open between pricing rounds:
 * the first solve is Clp's dual simplex from scratch, every later one its primal simplex from the
 * last basis (added columns enter non-basic at their lower bound, so the basis stays primal
 * feasible).
 */
final class ClpSolver implements LpSolver, IncrementalSolver {
    /** The part of Clp_C_Interface.h we use. CoinBigIndex is an int in Debian's build. */
    interface Lib extends Library {
        String Clp_Version();
        Pointer Clp_newModel();
        void Clp_deleteModel(Pointer model);
        void Clp_loadProblem(Pointer model, int numcols, int numrows, int[] start, int[] index, double[] value,
                             double[] collb, double[] colub, double[] obj, double[] rowlb, double[] rowub);
        void Clp_addColumns(Pointer model, int number, double[] columnLower, double[] columnUpper, double[] objective,
                            int[] columnStarts, int[] rows, double[] elements);
        void Clp_chgObjCoefficients(Pointer model, double[] obj);
        void Clp_chgColumnUpper(Pointer model, double[] columnUpper);
        void Clp_setOptimizationDirection(Pointer model, double value);
        void Clp_setLogLevel(Pointer model, int value);
        void Clp_setPrimalTolerance(Pointer model, double value);
        void Clp_setDualTolerance(Pointer model, double value);
        void Clp_setMaximumSeconds(Pointer model, double value);
        int Clp_numberColumns(Pointer model);
        int Clp_initialSolve(Pointer model);
        int Clp_dual(Pointer model, int ifValuesPass);
        int Clp_primal(Pointer model, int ifValuesPass);
        int Clp_status(Pointer model);
        int Clp_secondaryStatus(Pointer model);
        double Clp_getObjValue(Pointer model);
        Pointer Clp_getColSolution(Pointer model);
        Pointer Clp_getRowPrice(Pointer model);
        Pointer Clp_getColUpper(Pointer model);
    }

    /** Clp's infinity (COIN_DBL_MAX). */
    private static final double INF = Double.MAX_VALUE;

    private final Lib lib;
    private final Path library;
    private final String version;

    private ClpSolver(Lib lib, Path library) {
        this.lib = lib;
        this.library = library;
        this.version = lib.Clp_Version();
    }

    /** Loads the library at {@code library}; throws UnsatisfiedLinkError if it cannot. */
    static ClpSolver load(Path library) {
        return new ClpSolver(Native.load(library.toString(), Lib.class), library);
    }

    @Override
    public String name() {
        return "Clp";
    }

    /**
     * Measured: Clp's dual simplex on the whole program is as fast as column generation up to
     * about 20,000 columns (10 x 30 x 6), and 1.7x slower at 42,720 (20 x 30 x 6).
     */
    @Override
    public int columnGenerationFrom() {
        return 20_000;
    }

    @Override
    public String description() {
        return "Clp " + version + " (" + library + ")";
    }

    @Override
    public Result solve(LinearProgram p, double timeoutSeconds) {
        return solveWhole(p, timeoutSeconds);
    }

    @Override
    public Session open(LinearProgram p, int[] columns, double timeoutSeconds) {
        int n = columns.length, m = p.rows().size();
        int[] position = new int[p.columns()];
        Arrays.fill(position, -1);
        for (int i = 0; i < n; i++) position[columns[i]] = i;
        // rows to compressed sparse columns over the session's columns
        int[] start = new int[n + 1];
        for (LinearProgram.Row r : p.rows()) for (int j : r.index()) if (position[j] >= 0) start[position[j] + 1]++;
        for (int i = 0; i < n; i++) start[i + 1] += start[i];
        int[] index = new int[start[n]];
        double[] value = new double[start[n]];
        int[] fill = Arrays.copyOf(start, n);
        double[] rowLower = new double[m], rowUpper = new double[m];
        for (int i = 0; i < m; i++) {
            LinearProgram.Row r = p.rows().get(i);
            for (int k = 0; k < r.index().length; k++) {
                int at = position[r.index()[k]];
                if (at < 0) continue; // a column left out of this session
                index[fill[at]] = i;
                value[fill[at]++] = r.coef()[k];
            }
            rowLower[i] = r.kind() == LinearProgram.Kind.LE ? -INF : r.rhs();
            rowUpper[i] = r.kind() == LinearProgram.Kind.GE ? INF : r.rhs();
        }
        double largest = 0;
        for (int j = 0; j < p.columns(); j++) largest = Math.max(largest, Math.abs(p.objective(j)));
        double scale = largest > 0 ? 1 / largest : 1;
        double[] lower = new double[n], upper = new double[n], obj = new double[n];
        for (int i = 0; i < n; i++) {
            lower[i] = clp(p.lower(columns[i]));
            upper[i] = clp(p.upper(columns[i]));
            obj[i] = p.objective(columns[i]) * scale;
        }
        Pointer model = lib.Clp_newModel();
        if (model == null) throw new IllegalStateException("Clp_newModel returned NULL");
        ClpSession s = new ClpSession(model, m, n, scale);
        lib.Clp_setLogLevel(model, 0); // Clp prints to stdout otherwise
        lib.Clp_setMaximumSeconds(model, timeoutSeconds);
        // Clp's default tolerances (1e-7) are absolute and its optimum fell short of lp_solve's by
        // up to 5e-7 (relative). With the objective scaled to a largest coefficient of 1 (above),
        // a dual tolerance of 1e-11 is what brings phase 1 of the relaxed program to within 1e-12
        // of the other solvers (1e-9 left 1.3e-8, and phase 2 is steep in phase 1's optimum:
        // docs/model.md, "When the program is infeasible"); measured at no cost in time.
        lib.Clp_setDualTolerance(model, 1e-11);
        lib.Clp_setPrimalTolerance(model, 1e-9);
        lib.Clp_loadProblem(model, n, m, start, orNull(index), orNull(value), orNull(lower), orNull(upper), orNull(obj),
                orNull(rowLower), orNull(rowUpper));
        lib.Clp_setOptimizationDirection(model, p.maximize() ? -1 : 1);
        return s;
    }

    // JNA cannot pass an empty array; Clp reads nothing from a NULL of length 0
    private static int[] orNull(int[] a) {
        return a.length == 0 ? null : a;
    }

    private static double[] orNull(double[] a) {
        return a.length == 0 ? null : a;
    }

    private static double clp(double bound) {
        return bound == Double.POSITIVE_INFINITY ? INF : bound == Double.NEGATIVE_INFINITY ? -INF : bound;
    }

    /**
     * One Clp model kept open. Added columns are buffered and reach Clp in one call before the next
     * solve (Clp copies its arrays on every addition).
     */
    private final class ClpSession implements Session {
        private Pointer model;
        private final int rows;
        private int columns, inModel;
        private boolean solved;
        // columns waiting to be added: bounds, objective, CSC
        private double[] addLower = new double[64], addUpper = new double[64], addObj = new double[64];
        private int[] addStart = new int[65], addRow = new int[256];
        private double[] addValue = new double[256];
        private int pending, pendingNz;
        /** The objective Clp sees is the program's times this (its largest coefficient 1). */
        private double scale;

        ClpSession(Pointer model, int rows, int columns, double scale) {
            this.model = model;
            this.scale = scale;
            this.rows = rows;
            this.columns = columns;
            this.inModel = columns;
        }

        @Override
        public void addColumn(double objective, int[] rowIdx, double[] coefs, double lower, double upper) {
            if (pending == addObj.length) {
                int c = pending * 2;
                addLower = Arrays.copyOf(addLower, c);
                addUpper = Arrays.copyOf(addUpper, c);
                addObj = Arrays.copyOf(addObj, c);
                addStart = Arrays.copyOf(addStart, c + 1);
            }
            if (pendingNz + rowIdx.length > addRow.length) {
                int c = Math.max(addRow.length * 2, pendingNz + rowIdx.length);
                addRow = Arrays.copyOf(addRow, c);
                addValue = Arrays.copyOf(addValue, c);
            }
            addLower[pending] = clp(lower);
            addUpper[pending] = clp(upper);
            addObj[pending] = objective * scale;
            System.arraycopy(rowIdx, 0, addRow, pendingNz, rowIdx.length);
            System.arraycopy(coefs, 0, addValue, pendingNz, coefs.length);
            pendingNz += rowIdx.length;
            addStart[++pending] = pendingNz;
            columns++;
        }

        private void flush() {
            if (pending == 0) return;
            lib.Clp_addColumns(model, pending, addLower, addUpper, addObj, addStart, pendingNz == 0 ? null : addRow,
                    pendingNz == 0 ? null : addValue);
            inModel += pending;
            pending = 0;
            pendingNz = 0;
        }

        @Override
        public void setObjective(double[] objective, boolean maximize) {
            flush();
            double largest = 0;
            for (double c : objective) largest = Math.max(largest, Math.abs(c));
            scale = largest > 0 ? 1 / largest : 1;
            double[] scaled = new double[inModel];
            for (int j = 0; j < Math.min(objective.length, inModel); j++) scaled[j] = objective[j] * scale;
            lib.Clp_chgObjCoefficients(model, scaled);
            lib.Clp_setOptimizationDirection(model, maximize ? -1 : 1);
        }

        @Override
        public void setUpper(int column, double upper) {
            flush();
            double[] up = lib.Clp_getColUpper(model).getDoubleArray(0, inModel);
            up[column] = clp(upper);
            lib.Clp_chgColumnUpper(model, up);
        }

        @Override
        public int columns() {
            return columns;
        }

        @Override
        public Result solve() {
            long t0 = System.nanoTime();
            flush();
            // first solve: Clp's own choice (dual simplex, presolve); later ones: primal simplex
            // from the last basis, which the added columns leave primal feasible
            if (!solved) lib.Clp_initialSolve(model);
            else lib.Clp_primal(model, 0);
            int status = lib.Clp_status(model);
            solved = status == 0;
            return switch (status) {
                case 0 -> new Result(Status.OPTIMAL, lib.Clp_getColSolution(model).getDoubleArray(0, inModel),
                        lib.Clp_getObjValue(model) / scale, ms(t0), "OPTIMAL");
                case 1 -> new Result(Status.INFEASIBLE, null, Double.NaN, ms(t0), "INFEASIBLE");
                case 2 -> new Result(Status.UNBOUNDED, null, Double.NaN, ms(t0), "UNBOUNDED");
                case 3 -> new Result(Status.FAILED, null, Double.NaN, ms(t0), "TIMEOUT (Clp stopped on its limits)");
                default -> new Result(Status.FAILED, null, Double.NaN, ms(t0),
                        "Clp status " + status + "/" + lib.Clp_secondaryStatus(model));
            };
        }

        @Override
        public double[] duals() {
            // Clp's row prices y make c_j - y a_j the reduced cost in the program's own sense
            // (ColumnGenerationTest checks it for both senses, as for lp_solve)
            double[] y = lib.Clp_getRowPrice(model).getDoubleArray(0, rows);
            for (int i = 0; i < rows; i++) y[i] /= scale;
            return y;
        }

        @Override
        public void close() {
            if (model != null) lib.Clp_deleteModel(model);
            model = null;
        }
    }

    private static double ms(long t0) {
        return (System.nanoTime() - t0) / 1e6;
    }
}
