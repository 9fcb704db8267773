package io.moses.optimizer;

import java.util.Arrays;

/**
 * E[min_j T_j] of independent latencies from raw samples (docs/model.md, "Implementations"):
 * the integral over t of prod_j S_j(t), with S_j member j's empirical survival function. The
 * integrand is constant between consecutive merged sample points, so the integral is an exact
 * finite sum.
 */
final class EmpiricalMin {
    private EmpiricalMin() {}

    static double expectedMin(double[]... samples) {
        if (samples.length == 0) throw new IllegalArgumentException("expectedMin needs at least one sample set");
        int m = samples.length;
        double[][] sorted = new double[m][];
        for (int j = 0; j < m; j++) {
            if (samples[j].length == 0) throw new IllegalArgumentException("expectedMin: member " + j + " has no samples");
            sorted[j] = samples[j].clone();
            Arrays.sort(sorted[j]);
            if (sorted[j][0] < 0) throw new IllegalArgumentException("expectedMin: latencies must be >= 0");
        }
        int[] pos = new int[m];      // samples of member j that are <= the current point
        double t = 0, integral = 0;
        while (true) {
            double survival = 1;
            double next = Double.POSITIVE_INFINITY;
            for (int j = 0; j < m; j++) {
                survival *= (double) (sorted[j].length - pos[j]) / sorted[j].length;
                if (pos[j] < sorted[j].length) next = Math.min(next, sorted[j][pos[j]]);
            }
            if (survival == 0 || next == Double.POSITIVE_INFINITY) return integral;
            integral += survival * (next - t);
            t = next;
            for (int j = 0; j < m; j++)
                while (pos[j] < sorted[j].length && sorted[j][pos[j]] <= t) pos[j]++;
        }
    }
}
