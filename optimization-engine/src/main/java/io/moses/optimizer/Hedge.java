package io.moses.optimizer;

import io.moses.model.Implementation;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Hedged pairs (docs/model.md, "Hedged requests"): hedge(a,b) calls a; if a has not answered
 * after d, or failed before, it calls b too; the first successful reply wins. d is the
 * {@value #QUANTILE} quantile of a's recent successful latencies, so b is paid for about the
 * slowest 5 % of a's calls (and a's failures). Time, availability and cost come from the raw
 * samples, with the machinery of 1-out-of-n's empirical E[min] ({@link EmpiricalMin}). Without
 * {@value #MIN_SAMPLES} samples of a there is no distribution to take d from, and no hedged pair.
 * b, which a hedge calls only for a's slow fraction, may have fewer: then its mean stands for its
 * distribution, which over-estimates E[min(X_a, d + X_b)] (min is concave in X_b: the safe side).
 */
final class Hedge {
    /** The quantile of the first member's latencies after which the second is called. */
    static final double QUANTILE = 0.95;
    /** Samples of a member's successful latencies that give its distribution (20 of them beyond d). */
    static final int MIN_SAMPLES = 50;

    private Hedge() {}

    /** Every ordered pair of distinct members whose first member has enough samples. */
    static List<ImplementationQos> pairs(List<Candidates.Member> ms) {
        List<ImplementationQos> out = new ArrayList<>();
        for (Candidates.Member a : ms)
            for (Candidates.Member b : ms)
                if (a != b && enough(a)) out.add(pair(a, b, delay(a.samples())));
        return out;
    }

    private static boolean enough(Candidates.Member m) {
        return m.samples() != null && m.samples().length >= MIN_SAMPLES;
    }

    /** d: the {@value #QUANTILE} quantile (nearest rank) of the samples, rounded up to 0.1 ms so the plan's text holds it exactly. */
    static double delay(double[] samples) {
        double[] s = samples.clone();
        Arrays.sort(s);
        double q = s[Math.max(0, (int) Math.ceil(QUANTILE * s.length) - 1)];
        return Math.max(1e-4, Math.ceil(q * 1e4) / 1e4);
    }

    /**
     * hedge(a,b) with delay d. With X_a, X_b the latencies of successful replies (the samples),
     * a's failure known after f_a and L = min(f_a, d) the time b is called when a fails:
     * <pre>
     * r = a_a [a_b E[min(X_a, d + X_b)] + (1 - a_b) E[X_a]]
     *   + (1 - a_a) [a_b (L + E[X_b]) + (1 - a_b) max(f_a, L + f_b)]
     * a = 1 - (1 - a_a)(1 - a_b)
     * c = c_a + p c_b,  p = (1 - a_a) + a_a P(X_a > d), the share of calls that reach b
     * </pre>
     */
    static ImplementationQos pair(Candidates.Member a, Candidates.Member b, double d) {
        double[] xa = a.samples(), xb = enough(b) ? b.samples() : new double[]{b.r()};
        double late = 0;
        for (double x : xa) if (x > d) late++;
        late /= xa.length;
        double[] shifted = new double[xb.length];
        for (int i = 0; i < xb.length; i++) shifted[i] = d + xb[i];
        double eMin = EmpiricalMin.expectedMin(xa, shifted);
        double aa = a.a(), ab = b.a();
        double start = Math.min(a.f(), d);
        double r = aa * (ab * eMin + (1 - ab) * mean(xa))
                + (1 - aa) * (ab * (start + mean(xb)) + (1 - ab) * Math.max(a.f(), start + b.f()));
        double second = (1 - aa) + aa * late;
        // capacity: the second member's load with the lower end of a's availability, as an alternate's backup
        double secondLow = (1 - a.aLow()) + a.aLow() * late;
        Map<String, Double> share = new LinkedHashMap<>();
        share.put(a.endpoint(), 1.0);
        share.merge(b.endpoint(), secondLow, Double::sum);
        return new ImplementationQos(Implementation.hedged(a.service().name(), b.service().name(), d), r,
                1 - (1 - aa) * (1 - ab), a.c() + second * b.c(), share);
    }

    private static double mean(double[] xs) {
        double s = 0;
        for (double x : xs) s += x;
        return s / xs.length;
    }
}
