package io.moses.optimizer;

import org.ojalgo.optimisation.Expression;
import org.ojalgo.optimisation.ExpressionsBasedModel;
import org.ojalgo.optimisation.Optimisation;
import org.ojalgo.optimisation.Variable;

/** ojAlgo's pure-Java simplex through its ExpressionsBasedModel: the solver when lp_solve is absent. */
final class OjAlgoSolver implements LpSolver {

    @Override
    public String name() {
        return "ojAlgo";
    }

    @Override
    public String description() {
        Package p = ExpressionsBasedModel.class.getPackage();
        String v = p == null ? null : p.getImplementationVersion();
        return "ojAlgo " + (v == null ? "55" : v) + " (pure Java)";
    }

    @Override
    public Result solve(LinearProgram p, double timeoutSeconds) {
        long t0 = System.nanoTime();
        try {
            Optimisation.Options options = new Optimisation.Options();
            options.time_abort = (long) (timeoutSeconds * 1000);
            options.time_suffice = options.time_abort;
            ExpressionsBasedModel model = new ExpressionsBasedModel(options);
            int n = p.columns();
            Variable[] v = new Variable[n];
            for (int j = 0; j < n; j++) {
                v[j] = model.addVariable("x" + j);
                if (Double.isFinite(p.lower(j))) v[j].lower(p.lower(j));
                if (Double.isFinite(p.upper(j))) v[j].upper(p.upper(j));
                if (p.objective(j) != 0) v[j].weight(p.objective(j));
            }
            int r = 0;
            for (LinearProgram.Row row : p.rows()) {
                Expression e = model.addExpression("r" + r++);
                int[] idx = row.index();
                double[] c = row.coef();
                for (int i = 0; i < idx.length; i++) e.set(v[idx[i]], c[i]);
                switch (row.kind()) {
                    case LE -> e.upper(row.rhs());
                    case GE -> e.lower(row.rhs());
                    case EQ -> e.level(row.rhs());
                }
            }
            Optimisation.Result res = p.maximize() ? model.maximise() : model.minimise();
            Optimisation.State s = res.getState();
            if (s.isOptimal() || s == Optimisation.State.DISTINCT) {
                double[] x = new double[n];
                for (int j = 0; j < n; j++) x[j] = res.doubleValue(j);
                return new Result(Status.OPTIMAL, x, p.evaluate(x), ms(t0), s.name());
            }
            if (s == Optimisation.State.INFEASIBLE) return new Result(Status.INFEASIBLE, null, Double.NaN, ms(t0), s.name());
            if (s == Optimisation.State.UNBOUNDED) return new Result(Status.UNBOUNDED, null, Double.NaN, ms(t0), s.name());
            return new Result(Status.FAILED, null, Double.NaN, ms(t0), s.name());
        } catch (RuntimeException e) {
            return new Result(Status.FAILED, null, Double.NaN, ms(t0), "ojAlgo: " + e);
        }
    }

    private static double ms(long t0) {
        return (System.nanoTime() - t0) / 1e6;
    }
}
