package io.moses.optimizer;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;
import java.nio.file.Path;

/**
 * lp_solve 5.5 through JNA on its C API (lp_lib.h). One lprec per solve, deleted afterwards;
 * rows are added in row mode, which lp_solve needs to build large models fast.
 */
final class LpSolveSolver implements LpSolver, IncrementalSolver {
    /** The part of lp_lib.h we use. MYBOOL is an unsigned char. */
    interface Lib extends Library {
        Pointer make_lp(int rows, int columns);
        void delete_lp(Pointer lp);
        byte set_add_rowmode(Pointer lp, byte turnon);
        byte set_obj_fnex(Pointer lp, int count, double[] row, int[] colno);
        byte add_constraintex(Pointer lp, int count, double[] row, int[] colno, int constrType, double rh);
        byte set_bounds(Pointer lp, int colnr, double lower, double upper);
        void set_minim(Pointer lp);
        void set_maxim(Pointer lp);
        void set_verbose(Pointer lp, int verbose);
        void set_timeout(Pointer lp, NativeLong seconds);
        int solve(Pointer lp);
        byte get_variables(Pointer lp, double[] var);
        double get_objective(Pointer lp);
        double get_infinite(Pointer lp);
        void lp_solve_version(int[] major, int[] minor, int[] release, int[] build);
        byte add_columnex(Pointer lp, int count, double[] column, int[] rowno);
        byte set_upbo(Pointer lp, int colnr, double value);
        byte get_dual_solution(Pointer lp, double[] duals);
        int get_Nrows(Pointer lp);
        int get_Ncolumns(Pointer lp);
        byte get_basis(Pointer lp, int[] bascolumn, byte nonbasic);
        byte set_basis(Pointer lp, int[] bascolumn, byte nonbasic);
        void set_simplextype(Pointer lp, int simplextype);
    }

    private static final int LE = 1, GE = 2, EQ = 3, PRIMAL_PRIMAL = 5;


    private final Lib lib;
    private final Path library;
    private final String version;

    private LpSolveSolver(Lib lib, Path library) {
        this.lib = lib;
        this.library = library;
        int[] ma = new int[1], mi = new int[1], re = new int[1], bu = new int[1];
        lib.lp_solve_version(ma, mi, re, bu);
        this.version = ma[0] + "." + mi[0] + "." + re[0] + "." + bu[0];
    }

    /** Loads the library at {@code library}; throws UnsatisfiedLinkError if it cannot. */
    static LpSolveSolver load(Path library) {
        return new LpSolveSolver(Native.load(library.toString(), Lib.class), library);
    }

    @Override
    public String name() {
        return "lp_solve";
    }

    /** Measured: at 1,310 columns column generation is already 1.3x faster than the whole program. */
    @Override
    public int columnGenerationFrom() {
        return 2_000;
    }

    @Override
    public String description() {
        return "lp_solve " + version + " (" + library + ")";
    }

    @Override
    public Result solve(LinearProgram p, double timeoutSeconds) {
        return solveWhole(p, timeoutSeconds);
    }

    @Override
    public Session open(LinearProgram p, int[] columns, double timeoutSeconds) {
        int n = columns.length;
        Pointer lp = lib.make_lp(0, n);
        if (lp == null) throw new IllegalStateException("make_lp returned NULL");
        LpSession session = new LpSession(lp, p.rows().size(), p.maximize());
        try {
            lib.set_verbose(lp, 1); // CRITICAL only: lp_solve prints to stdout otherwise
            lib.set_timeout(lp, new NativeLong(Math.max(1, (long) Math.ceil(timeoutSeconds))));
            session.inf = lib.get_infinite(lp);
            int[] position = new int[p.columns()];
            java.util.Arrays.fill(position, -1);
            for (int i = 0; i < n; i++) position[columns[i]] = i;
            double[] obj = new double[n];
            for (int i = 0; i < n; i++) obj[i] = p.objective(columns[i]);
            session.setObjective(obj, p.maximize());
            for (int i = 0; i < n; i++) {
                double lo = p.lower(columns[i]), up = p.upper(columns[i]);
                if (lo != 0 || up != Double.POSITIVE_INFINITY)
                    lib.set_bounds(lp, i + 1, Double.isInfinite(lo) ? -session.inf : lo, Double.isInfinite(up) ? session.inf : up);
            }
            lib.set_add_rowmode(lp, (byte) 1);
            for (LinearProgram.Row r : p.rows()) {
                int[] idx = r.index();
                int[] one = new int[idx.length];
                double[] coef = new double[idx.length];
                int nz = 0;
                for (int i = 0; i < idx.length; i++) {
                    int at = position[idx[i]];
                    if (at < 0) continue; // a column left out of this session
                    one[nz] = at + 1;
                    coef[nz++] = r.coef()[i];
                }
                int type = switch (r.kind()) { case LE -> LE; case GE -> GE; case EQ -> EQ; };
                if (lib.add_constraintex(lp, nz, coef, one, type, r.rhs()) == 0)
                    throw new IllegalStateException("add_constraintex failed on " + r.name());
            }
            lib.set_add_rowmode(lp, (byte) 0);
            session.columns = n;
            return session;
        } catch (RuntimeException e) {
            session.close();
            throw e;
        }
    }

    /** One lprec kept open. lp_solve re-solves from the last basis after columns are added. */
    private final class LpSession implements Session {
        private Pointer lp;
        private final int rows;
        private boolean maximize;
        private int columns;
        private double inf;

        LpSession(Pointer lp, int rows, boolean maximize) {
            this.lp = lp;
            this.rows = rows;
            this.maximize = maximize;
        }

        @Override
        public void addColumn(double objective, int[] rowIdx, double[] coefs, double lower, double upper) {
            int[] no = new int[rowIdx.length + 1];
            double[] v = new double[rowIdx.length + 1];
            no[0] = 0; // the objective row
            v[0] = objective;
            for (int i = 0; i < rowIdx.length; i++) {
                no[i + 1] = rowIdx[i] + 1;
                v[i + 1] = coefs[i];
            }
            if (lib.add_columnex(lp, no.length, v, no) == 0) throw new IllegalStateException("add_columnex failed");
            columns++;
            if (lower != 0 || upper != Double.POSITIVE_INFINITY)
                lib.set_bounds(lp, columns, Double.isInfinite(lower) ? -inf : lower, Double.isInfinite(upper) ? inf : upper);
        }

        @Override
        public void setObjective(double[] objective, boolean max) {
            int[] cols = new int[objective.length];
            double[] obj = new double[objective.length];
            int nz = 0;
            for (int j = 0; j < objective.length; j++) {
                if (objective[j] != 0) {
                    cols[nz] = j + 1;
                    obj[nz++] = objective[j];
                }
            }
            // set_obj_fnex sets every coefficient not listed to 0
            if (lib.set_obj_fnex(lp, nz, obj, cols) == 0) throw new IllegalStateException("set_obj_fnex failed");
            maximize = max;
            if (max) lib.set_maxim(lp);
            else lib.set_minim(lp);
        }

        @Override
        public void setUpper(int column, double upper) {
            lib.set_upbo(lp, column + 1, Double.isInfinite(upper) ? inf : upper);
        }

        @Override
        public int columns() {
            return columns;
        }

        private int[] basis; // of the last optimum, 1 + rows + columns entries

        @Override
        public Result solve() {
            long t0 = System.nanoTime();
            if (basis != null) {
                // columns added since are non-basic at their lower bound: the last basis stays primal
                // feasible, and the primal simplex goes on from it
                int[] b = java.util.Arrays.copyOf(basis, 1 + rows + columns);
                for (int j = basis.length - rows - 1; j < columns; j++) b[1 + rows + j] = -(rows + j + 1);
                lib.set_basis(lp, b, (byte) 1);
                lib.set_simplextype(lp, PRIMAL_PRIMAL);
            }
            int ret = lib.solve(lp);
            if (ret == 0) {
                basis = new int[1 + rows + columns];
                lib.get_basis(lp, basis, (byte) 1);
            } else basis = null;
            return switch (ret) {
                case 0 -> {
                    double[] x = new double[columns];
                    lib.get_variables(lp, x);
                    yield new Result(Status.OPTIMAL, x, lib.get_objective(lp), ms(t0), code(ret));
                }
                case 2 -> new Result(Status.INFEASIBLE, null, Double.NaN, ms(t0), code(ret));
                case 3 -> new Result(Status.UNBOUNDED, null, Double.NaN, ms(t0), code(ret));
                default -> new Result(Status.FAILED, null, Double.NaN, ms(t0), code(ret));
            };
        }

        @Override
        public double[] duals() {
            double[] all = new double[1 + rows + columns];
            if (lib.get_dual_solution(lp, all) == 0) throw new IllegalStateException("get_dual_solution failed");
            // element 0 is unused; rows, then reduced costs of the columns. lp_solve's signs already
            // make c_j - y a_j the reduced cost for either sense (ColumnGenerationTest checks it).
            return java.util.Arrays.copyOfRange(all, 1, 1 + rows);
        }

        @Override
        public void close() {
            if (lp != null) lib.delete_lp(lp);
            lp = null;
        }
    }

    private static String code(int ret) {
        return switch (ret) {
            case -2 -> "NOMEMORY";
            case 0 -> "OPTIMAL";
            case 1 -> "SUBOPTIMAL";
            case 2 -> "INFEASIBLE";
            case 3 -> "UNBOUNDED";
            case 4 -> "DEGENERATE";
            case 5 -> "NUMFAILURE";
            case 6 -> "USERABORT";
            case 7 -> "TIMEOUT";
            default -> "lp_solve code " + ret;
        };
    }

    private static double ms(long t0) {
        return (System.nanoTime() - t0) / 1e6;
    }
}
