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
final class LpSolveSolver implements LpSolver {
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
    }

    private static final int LE = 1, GE = 2, EQ = 3;

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

    @Override
    public String description() {
        return "lp_solve " + version + " (" + library + ")";
    }

    @Override
    public Result solve(LinearProgram p, double timeoutSeconds) {
        long t0 = System.nanoTime();
        int n = p.columns();
        Pointer lp = lib.make_lp(0, n);
        if (lp == null) return new Result(Status.FAILED, null, Double.NaN, ms(t0), "make_lp returned NULL");
        try {
            lib.set_verbose(lp, 1); // CRITICAL only: lp_solve prints to stdout otherwise
            lib.set_timeout(lp, new NativeLong(Math.max(1, (long) Math.ceil(timeoutSeconds))));
            double inf = lib.get_infinite(lp);
            int[] cols = new int[n];
            double[] obj = new double[n];
            int nz = 0;
            for (int j = 0; j < n; j++) {
                if (p.objective(j) != 0) {
                    cols[nz] = j + 1;
                    obj[nz++] = p.objective(j);
                }
            }
            if (lib.set_obj_fnex(lp, nz, obj, cols) == 0)
                return new Result(Status.FAILED, null, Double.NaN, ms(t0), "set_obj_fnex failed");
            for (int j = 0; j < n; j++) {
                double lo = p.lower(j), up = p.upper(j);
                if (lo != 0 || up != Double.POSITIVE_INFINITY)
                    lib.set_bounds(lp, j + 1, Double.isInfinite(lo) ? -inf : lo, Double.isInfinite(up) ? inf : up);
            }
            if (p.maximize()) lib.set_maxim(lp);
            else lib.set_minim(lp);
            lib.set_add_rowmode(lp, (byte) 1);
            for (LinearProgram.Row r : p.rows()) {
                int[] idx = r.index();
                int[] one = new int[idx.length];
                for (int i = 0; i < idx.length; i++) one[i] = idx[i] + 1;
                int type = switch (r.kind()) { case LE -> LE; case GE -> GE; case EQ -> EQ; };
                if (lib.add_constraintex(lp, idx.length, r.coef(), one, type, r.rhs()) == 0)
                    return new Result(Status.FAILED, null, Double.NaN, ms(t0), "add_constraintex failed on " + r.name());
            }
            lib.set_add_rowmode(lp, (byte) 0);
            int ret = lib.solve(lp);
            return switch (ret) {
                case 0, 1 -> { // OPTIMAL, SUBOPTIMAL (only for B&B; an LP reports OPTIMAL)
                    double[] x = new double[n];
                    lib.get_variables(lp, x);
                    yield new Result(ret == 0 ? Status.OPTIMAL : Status.FAILED, ret == 0 ? x : null,
                            ret == 0 ? p.evaluate(x) : Double.NaN, ms(t0), code(ret));
                }
                case 2 -> new Result(Status.INFEASIBLE, null, Double.NaN, ms(t0), code(ret));
                case 3 -> new Result(Status.UNBOUNDED, null, Double.NaN, ms(t0), code(ret));
                default -> new Result(Status.FAILED, null, Double.NaN, ms(t0), code(ret));
            };
        } finally {
            lib.delete_lp(lp);
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
