package io.moses.optimizer;

import java.util.Arrays;

/**
 * A sparse linear expression sum c_j x_j + constant, built by accumulation. Terms are appended;
 * repeated columns are merged when the expression is read.
 */
final class LinearExpression {
    private int[] index = new int[8];
    private double[] coef = new double[8];
    private int size;
    private boolean compact = true;
    private double constant;

    LinearExpression add(int column, double c) {
        if (c == 0) return this;
        if (size == index.length) {
            index = Arrays.copyOf(index, Math.max(8, size * 2));
            coef = Arrays.copyOf(coef, Math.max(8, size * 2));
        }
        if (size > 0 && index[size - 1] >= column) compact = false;
        index[size] = column;
        coef[size] = c;
        size++;
        return this;
    }

    LinearExpression add(LinearExpression e, double factor) {
        if (factor == 0) return this;
        for (int i = 0; i < e.size; i++) add(e.index[i], e.coef[i] * factor);
        constant += e.constant * factor;
        return this;
    }

    LinearExpression addConstant(double c) {
        constant += c;
        return this;
    }

    double constant() {
        return constant;
    }

    boolean isConstant() {
        compact();
        for (int i = 0; i < size; i++) if (coef[i] != 0) return false;
        return true;
    }

    int[] indices() {
        compact();
        return Arrays.copyOf(index, size);
    }

    double[] coefficients() {
        compact();
        return Arrays.copyOf(coef, size);
    }

    double evaluate(double[] x) {
        double v = constant;
        for (int i = 0; i < size; i++) v += coef[i] * x[index[i]];
        return v;
    }

    private void compact() {
        if (compact) return;
        Integer[] order = new Integer[size];
        for (int i = 0; i < size; i++) order[i] = i;
        Arrays.sort(order, (a, b) -> Integer.compare(index[a], index[b]));
        int[] ni = new int[size];
        double[] nc = new double[size];
        int n = 0;
        for (int k = 0; k < size; k++) {
            int i = order[k];
            if (n > 0 && ni[n - 1] == index[i]) nc[n - 1] += coef[i];
            else {
                ni[n] = index[i];
                nc[n] = coef[i];
                n++;
            }
        }
        index = ni;
        coef = nc;
        size = n;
        compact = true;
    }
}
