package io.moses.monitor;

/**
 * Holt's linear exponential smoothing of one figure of a concrete service (its mean response
 * time, or its availability), one value per monitor period (docs/model.md, "Forecasts"): a
 * level, a trend per period, and the smoothed squared one-step error. Immutable: {@link #next}
 * returns the forecast after one more window.
 *
 * <p>The uncertainties are those of the forecast <em>mean</em>, not of one future window: the
 * plan's expected response time of a class is made of the providers' mean r_j, and the question
 * is whether that mean will be past a bound. They are exact for windows that are independent
 * noise around a constant (the case a prediction must not fire on): the level and the trend are
 * linear filters of the windows, whose variance on white noise is the window variance times the
 * sum of the squared impulse response; the window variance is read off the one-step errors
 * through the same filter.
 *
 * @param level   the smoothed value now
 * @param trend   its change per monitor period
 * @param meanSquaredError exponentially smoothed squared one-step error (NaN until the second window)
 * @param windows windows seen
 */
public record Forecast(double level, double trend, double meanSquaredError, int windows) {
    /**
     * Weight of a new window in the level. 0.2: the level follows a change within a few periods
     * while one noisy window (lognormal samples: skewed, with rare large means) moves it by a
     * fifth of its error.
     */
    public static final double LEVEL_WEIGHT = 0.2;
    /**
     * Weight of a new one-step error in the trend. 0.02: on windows of lognormal sigma-1 samples
     * a trend that learns faster (0.05, 0.1) is mostly noise, and its forecast ten periods ahead
     * wider than the rise it should see (docs/model.md, "Forecasts": the weights were chosen on
     * simulated ramps and noise).
     */
    public static final double TREND_WEIGHT = 0.02;
    /** Weight of a new squared error in the error's smoothing: about the last ten periods. */
    static final double ERROR_WEIGHT = 0.1;
    /**
     * Windows before the forecast speaks ({@link #ready}): the trend starts at 0 and needs about
     * its memory to learn a slope, the error needs as many to be an estimate.
     */
    public static final int WARM_UP = 10;

    private static final int RESPONSE_LENGTH = 500;
    /** Impulse responses of the level, the trend and the one-step error to one unit window. */
    /** Sums over the impulse responses to one unit window: of the squared error, level, level x trend, trend. */
    private static final double ERROR_GAIN, LEVEL_GAIN, CROSS_GAIN, TREND_GAIN;

    static {
        double l = 0, b = 0, g2 = 0, l2 = 0, lb = 0, b2 = 0;
        for (int t = 0; t < RESPONSE_LENGTH; t++) {
            double e = (t == 0 ? 1 : 0) - (l + b);
            g2 += e * e;
            l = l + b + LEVEL_WEIGHT * e;
            b = b + TREND_WEIGHT * e;
            l2 += l * l;
            lb += l * b;
            b2 += b * b;
        }
        ERROR_GAIN = g2;
        LEVEL_GAIN = l2;
        CROSS_GAIN = lb;
        TREND_GAIN = b2;
    }

    public Forecast {
        if (!Double.isFinite(level) || !Double.isFinite(trend)) throw new IllegalArgumentException("level and trend must be finite");
        if (windows < 1) throw new IllegalArgumentException("windows must be at least 1, was " + windows);
    }

    /** The forecast of a figure first seen as {@code value}: no trend, no error yet. */
    public static Forecast first(double value) {
        return new Forecast(value, 0, Double.NaN, 1);
    }

    /** After one more window whose value is {@code value}; a value that is not a number leaves it as it is. */
    public Forecast next(double value) {
        if (!Double.isFinite(value)) return this;
        double e = value - (level + trend);
        double mse = Double.isNaN(meanSquaredError) ? e * e : (1 - ERROR_WEIGHT) * meanSquaredError + ERROR_WEIGHT * e * e;
        return new Forecast(level + trend + LEVEL_WEIGHT * e, trend + TREND_WEIGHT * e, mse, windows + 1);
    }

    /** Whether it has seen enough windows to forecast ({@link #WARM_UP}). */
    public boolean ready() {
        return windows >= WARM_UP;
    }

    /** The value forecast {@code periods} monitor periods ahead: level + periods x trend. */
    public double at(double periods) {
        return level + periods * trend;
    }

    /**
     * The value {@code periods} ahead that the figure exceeds with confidence: {@link #at} less
     * {@code k} of its standard deviations.
     */
    public double lowerBound(double periods, double k) {
        return at(periods) - k * spread(periods);
    }

    /** The standard deviation of {@link #at} on stationary noise with this one-step error. */
    public double spread(double periods) {
        return windowError() * Math.sqrt(LEVEL_GAIN + 2 * periods * CROSS_GAIN + periods * periods * TREND_GAIN);
    }

    /** The standard deviation of the trend on stationary noise with this one-step error. */
    public double trendError() {
        return windowError() * Math.sqrt(TREND_GAIN);
    }

    /**
     * Whether the trend is upward with confidence: more than {@code k} of its standard deviations
     * on stationary noise, after the warm-up.
     */
    public boolean rising(double k) {
        return ready() && trend > 0 && trend > k * trendError();
    }

    /** The standard deviation of one window around a constant, read off the one-step errors (0 before the second window). */
    private double windowError() {
        return Double.isNaN(meanSquaredError) ? 0 : Math.sqrt(meanSquaredError / ERROR_GAIN);
    }
}
