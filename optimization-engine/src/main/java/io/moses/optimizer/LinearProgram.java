package io.moses.optimizer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A linear program in a solver-neutral form: columns with bounds (default [0, +inf)) and
 * objective coefficients, sparse rows. Solvers translate it into their own model.
 */
final class LinearProgram {
    /** Sense of a row. */
    enum Kind { LE, GE, EQ }

    /** One sparse row: sum coef[i] * x[index[i]] (kind) rhs. */
    record Row(String name, int[] index, double[] coef, Kind kind, double rhs) {}

    private double[] objective = new double[64];
    private double[] lower = new double[64];
    private double[] upper = new double[64];
    private int columns;
    private boolean maximize;
    private double objectiveConstant;
    private final List<Row> rows = new ArrayList<>();

    int addColumn(double objectiveCoef) {
        if (columns == objective.length) {
            int n = columns * 2;
            objective = Arrays.copyOf(objective, n);
            lower = Arrays.copyOf(lower, n);
            upper = Arrays.copyOf(upper, n);
        }
        objective[columns] = objectiveCoef;
        lower[columns] = 0;
        upper[columns] = Double.POSITIVE_INFINITY;
        return columns++;
    }

    void setBounds(int column, double lo, double up) {
        lower[column] = lo;
        upper[column] = up;
    }

    void setObjective(int column, double coef) {
        objective[column] = coef;
    }

    void clearObjective() {
        Arrays.fill(objective, 0, columns, 0);
        objectiveConstant = 0;
    }

    void addRow(String name, int[] index, double[] coef, Kind kind, double rhs) {
        rows.add(new Row(name, index, coef, kind, rhs));
    }

    void addRow(String name, LinearExpression e, Kind kind, double rhs) {
        rows.add(new Row(name, e.indices(), e.coefficients(), kind, rhs - e.constant()));
    }

    void setMaximize(boolean max) {
        maximize = max;
    }

    boolean maximize() {
        return maximize;
    }

    void setObjectiveConstant(double c) {
        objectiveConstant = c;
    }

    double objectiveConstant() {
        return objectiveConstant;
    }

    int columns() {
        return columns;
    }

    double objective(int column) {
        return objective[column];
    }

    double lower(int column) {
        return lower[column];
    }

    double upper(int column) {
        return upper[column];
    }

    List<Row> rows() {
        return rows;
    }

    /** Objective value of x including the constant. */
    double evaluate(double[] x) {
        double v = objectiveConstant;
        for (int j = 0; j < columns; j++) v += objective[j] * x[j];
        return v;
    }

    /** The largest violation of any row or bound by x, in the row's own units. */
    double maxViolation(double[] x) {
        double worst = 0;
        for (int j = 0; j < columns; j++) {
            worst = Math.max(worst, lower[j] - x[j]);
            worst = Math.max(worst, x[j] - upper[j]);
        }
        for (Row r : rows) {
            double lhs = 0;
            for (int i = 0; i < r.index().length; i++) lhs += r.coef()[i] * x[r.index()[i]];
            double v = switch (r.kind()) {
                case LE -> lhs - r.rhs();
                case GE -> r.rhs() - lhs;
                case EQ -> Math.abs(lhs - r.rhs());
            };
            worst = Math.max(worst, v);
        }
        return worst;
    }

    /** A copy whose rows and columns can be extended without touching this one. */
    LinearProgram copy() {
        LinearProgram c = new LinearProgram();
        c.objective = objective.clone();
        c.lower = lower.clone();
        c.upper = upper.clone();
        c.columns = columns;
        c.maximize = maximize;
        c.objectiveConstant = objectiveConstant;
        c.rows.addAll(rows);
        return c;
    }
}
