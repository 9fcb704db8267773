package io.moses.monitor;

import java.util.Arrays;

/**
 * The robust linear trend of one figure of a concrete service (its mean response time) over the
 * last {@link #windowSeconds} seconds of monitor periods (docs/model.md, "Forecasts"). Immutable:
 * {@link #next} returns the trend after one more period.
 *
 * <p>A point is the mean of at least {@code minSamples} replies: a period with fewer is pooled
 * with the next ones until they have that many, so a provider with little traffic gives fewer
 * points, not noisier ones. The slope is Theil and Sen's (the median of the slopes between every
 * two points) and the level the median of the points' intercepts at the newest period: one large
 * window mean (lognormal samples have rare large ones) moves neither. Its confidence bounds are
 * distribution-free (Sen 1968): the slope's lower bound at {@code k} is the order statistic that
 * Mann and Kendall's test of the points' ranks puts {@code k} standard deviations below the
 * median, so it is above 0 exactly when that test finds a rise with {@code k} standard deviations
 * of confidence; the level's is the order statistic of its intercepts {@code k} standard
 * deviations below their median. On windows that are independent noise around a constant,
 * whatever their distribution, the chance that a bound is crossed is the normal tail at {@code k}.
 */
public final class Trend {
    /** Seconds of points the trend is fitted on. */
    private final double windowSeconds;
    private final int minSamples;
    /** The points in the window, oldest first: when [s] and the mean. */
    private final double[] times, values;
    /** Now [s]: the end of the newest period seen. */
    private final double now;
    /** Replies of the periods pooled so far towards the next point: their sum, count and count-weighted time. */
    private final double pendingSum, pendingTime;
    private final int pendingCount;
    /** The slopes between every two points, ascending: made on first use (the value is immutable, so they never change). */
    private double[] slopes;

    private Trend(double windowSeconds, int minSamples, double[] times, double[] values, double now,
                  double pendingSum, double pendingTime, int pendingCount) {
        this.windowSeconds = windowSeconds;
        this.minSamples = minSamples;
        this.times = times;
        this.values = values;
        this.now = now;
        this.pendingSum = pendingSum;
        this.pendingTime = pendingTime;
        this.pendingCount = pendingCount;
    }

    /**
     * No point yet.
     *
     * @param windowSeconds the seconds of points it fits on (> 0)
     * @param minSamples    the replies a point is the mean of, at least (>= 1)
     */
    public static Trend empty(double windowSeconds, int minSamples) {
        if (!(windowSeconds > 0) || Double.isInfinite(windowSeconds)) throw new IllegalArgumentException("windowSeconds must be > 0, was " + windowSeconds);
        if (minSamples < 1) throw new IllegalArgumentException("minSamples must be at least 1, was " + minSamples);
        return new Trend(windowSeconds, minSamples, new double[0], new double[0], Double.NEGATIVE_INFINITY, 0, 0, 0);
    }

    /**
     * After one more period, ending at {@code atSeconds} (increasing from call to call), whose
     * {@code samples} replies had the mean {@code mean}; a period with no reply or a mean that is
     * not a number only moves the clock, and points older than the window leave it.
     */
    public Trend next(double atSeconds, double mean, int samples) {
        if (!Double.isFinite(atSeconds)) throw new IllegalArgumentException("atSeconds must be finite, was " + atSeconds);
        double at = Math.max(now, atSeconds);
        double sum = pendingSum, time = pendingTime;
        int count = pendingCount;
        if (samples > 0 && Double.isFinite(mean)) {
            sum += mean * samples;
            time += at * samples;
            count += samples;
        }
        int from = 0;
        while (from < times.length && times[from] <= at - windowSeconds) from++;
        double[] t = Arrays.copyOfRange(times, from, times.length), v = Arrays.copyOfRange(values, from, values.length);
        if (count >= minSamples) {
            t = Arrays.copyOf(t, t.length + 1);
            v = Arrays.copyOf(v, v.length + 1);
            t[t.length - 1] = time / count;
            v[v.length - 1] = sum / count;
            sum = 0;
            time = 0;
            count = 0;
            int from2 = stepAt(t, v);
            if (from2 > 0) {
                t = Arrays.copyOfRange(t, from2, t.length);
                v = Arrays.copyOfRange(v, from2, v.length);
            }
        } else if (count > 0 && time / count <= at - windowSeconds) { // pooled for longer than the window: too old to be a point
            sum = 0;
            time = 0;
            count = 0;
        }
        return new Trend(windowSeconds, minSamples, t, v, at, sum, time, count);
    }

    /**
     * Where the points rose at once, if they did: the index of the first point after a step up,
     * else 0. A step is two runs of points about their own medians that fit the points better
     * (in absolute deviations) than the Theil-Sen line by a clear margin ({@link #STEP_FIT}); a
     * ramp fits its line better than any two levels. The trend then keeps only the points after
     * the step: a level that moved at once is the drift rule's, not a trend to extrapolate.
     */
    static int stepAt(double[] t, double[] v) {
        int n = t.length;
        if (n < 2 * STEP_RUN) return 0;
        // only a step up matters (a trend down predicts nothing), and its newest points are all
        // above the others' median: the full test runs on those periods only (1 in 32 on noise)
        double before = median(sorted(Arrays.copyOfRange(v, 0, n - STEP_RUN)));
        for (int i = n - STEP_RUN; i < n; i++) if (!(v[i] > before)) return 0;
        double[] slopes = new double[n * (n - 1) / 2];
        int m = 0;
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                if (t[j] > t[i]) slopes[m++] = (v[j] - v[i]) / (t[j] - t[i]);
        if (m == 0) return 0;
        slopes = Arrays.copyOf(slopes, m);
        Arrays.sort(slopes);
        double b = median(slopes);
        double[] r = new double[n];
        for (int i = 0; i < n; i++) r[i] = v[i] - b * t[i];
        double a = median(sorted(r));
        double line = 0;
        for (int i = 0; i < n; i++) line += Math.abs(r[i] - a);
        double best = Double.POSITIVE_INFINITY;
        int at = 0;
        for (int k = STEP_RUN; k <= n - STEP_RUN; k++) {
            double c = deviation(v, 0, k) + deviation(v, k, n);
            if (c < best) {
                best = c;
                at = k;
            }
        }
        return best < STEP_FIT * line ? at : 0;
    }

    /** Points on each side of a step, at least: fewer are not a level. */
    static final int STEP_RUN = 5;
    /** How much better two levels must fit than the line to be a step: their absolute deviations at most this share of the line's. */
    static final double STEP_FIT = 0.6;

    private static double deviation(double[] v, int from, int to) {
        double[] x = sorted(Arrays.copyOfRange(v, from, to));
        double med = median(x), d = 0;
        for (double y : x) d += Math.abs(y - med);
        return d;
    }

    private static double[] sorted(double[] x) {
        double[] y = x.clone();
        Arrays.sort(y);
        return y;
    }

    /** The same figures with no point: the service changed at once, and its past says nothing of its trend. */
    public Trend cleared() {
        return new Trend(windowSeconds, minSamples, new double[0], new double[0], now, 0, 0, 0);
    }

    /** Points in the window. */
    public int points() {
        return times.length;
    }

    /**
     * Whether the trend may speak: at least {@code minPoints} points, spread over at least half
     * the window (a slope fitted on a few seconds is the noise of those seconds).
     */
    public boolean ready(int minPoints) {
        return times.length >= Math.max(3, minPoints) && times[times.length - 1] - times[0] >= windowSeconds / 2;
    }

    /** Theil and Sen's slope [figure per second]: the median of the slopes between every two points (0 with fewer than two). */
    public double slope() {
        double[] s = slopes();
        return s.length == 0 ? 0 : median(s);
    }

    /**
     * The slope's lower confidence bound at {@code k} standard deviations (Sen 1968): negative
     * infinity where the points are too few for that confidence.
     */
    public double slopeLowerBound(double k) {
        double[] s = slopes();
        int n = times.length;
        if (s.length == 0) return Double.NEGATIVE_INFINITY;
        double c = k * Math.sqrt(n * (n - 1.0) * (2 * n + 5) / 18);
        int rank = (int) Math.ceil((s.length - c) / 2); // 1-based, ascending
        return rank < 1 ? Double.NEGATIVE_INFINITY : s[rank - 1];
    }

    /** Mann and Kendall's z of the points (with continuity correction): how many standard deviations their ranks rise (0 with fewer than three). */
    public double z() {
        int n = times.length;
        if (n < 3) return 0;
        long s = 0;
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++) s += Long.signum(Double.compare(values[j], values[i]));
        double sd = Math.sqrt(n * (n - 1.0) * (2 * n + 5) / 18);
        return s == 0 ? 0 : (s - Long.signum(s)) / sd;
    }

    /** The level now: the median of the points' intercepts at now on {@link #slope} (NaN without a point). */
    public double level() {
        double[] r = intercepts(slope());
        return r.length == 0 ? Double.NaN : median(r);
    }

    /**
     * The level now that the figure is above with {@code k} standard deviations of confidence:
     * the order statistic of the intercepts (on the slope's lower bound) {@code k} standard
     * deviations of their median's rank below it; negative infinity with too few points.
     */
    public double levelLowerBound(double k) {
        double b = slopeLowerBound(k);
        if (b == Double.NEGATIVE_INFINITY) return b;
        double[] r = intercepts(b);
        int rank = (int) Math.floor(r.length / 2.0 - k * Math.sqrt(r.length) / 2); // 1-based, ascending
        return rank < 1 ? Double.NEGATIVE_INFINITY : r[rank - 1];
    }

    /** The value forecast {@code seconds} from now: the level plus the slope times them. */
    public double at(double seconds) {
        return level() + slope() * seconds;
    }

    /**
     * The value {@code seconds} from now that the figure is past with {@code k} standard
     * deviations of confidence, on the level's and the slope's lower bounds; negative infinity
     * where the points do not give that confidence.
     */
    public double lowerBound(double seconds, double k) {
        double b = slopeLowerBound(k);
        return b == Double.NEGATIVE_INFINITY ? b : levelLowerBound(k) + b * seconds;
    }

    /** Now [s]: the end of the newest period seen (negative infinity before the first). */
    public double now() {
        return now;
    }

    private double[] slopes() {
        if (slopes == null) slopes = pairSlopes();
        return slopes;
    }

    private double[] pairSlopes() {
        int n = times.length;
        double[] s = new double[n * (n - 1) / 2];
        int m = 0;
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                if (times[j] > times[i]) s[m++] = (values[j] - values[i]) / (times[j] - times[i]);
        s = m == s.length ? s : Arrays.copyOf(s, m);
        Arrays.sort(s);
        return s;
    }

    /** Each point's intercept at now on slope {@code b}, ascending. */
    private double[] intercepts(double b) {
        double[] r = new double[times.length];
        for (int i = 0; i < r.length; i++) r[i] = values[i] + b * (now - times[i]);
        Arrays.sort(r);
        return r;
    }

    private static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    @Override
    public String toString() {
        return String.format("Trend[%d points, level %.4f, slope %.5f/s, z %.1f]", times.length, level(), slope(), z());
    }
}
