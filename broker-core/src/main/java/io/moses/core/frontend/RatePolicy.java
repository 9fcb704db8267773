package io.moses.core.frontend;

import java.util.ArrayList;
import java.util.List;

/**
 * What the front-end does with a user's requests above the rate it agreed ({@code l_u}):
 * nothing ({@code off}), refuse them with HTTP 429 ({@code reject}), or serve them only with
 * spare capacity ({@code best-effort}: below every conforming request in the overload bound's wait line,
 * and only while fewer than {@code bestEffortShare} of {@code --max-in-flight} run). Each user
 * has a token bucket of its agreed rate holding at most {@code burstSeconds} of it. This is the
 * broker's default; a service class may name its own ({@code overRate} in the seed and the admin API).
 *
 * @param overRate        off, reject or best-effort
 * @param burstSeconds    how many seconds of the agreed rate a user may send at once, 0.1 to 60
 * @param bestEffortShare the share of {@code --max-in-flight} below which best-effort excess gets a place, (0, 1]
 */
public record RatePolicy(OverRate overRate, double burstSeconds, double bestEffortShare) {
    public enum OverRate {
        OFF, REJECT, BEST_EFFORT;

        /** The same policy as the knowledge base names it (a class's own). */
        static OverRate of(io.moses.model.OverRate o) {
            return valueOf(o.name());
        }
    }

    static final double MIN_BURST = 0.1;
    static final double MAX_BURST = 60;
    /** Best-effort excess runs only while fewer than half the places are taken: the other half is kept for conforming arrivals. */
    static final double DEFAULT_BEST_EFFORT_SHARE = 0.5;

    public RatePolicy {
        if (overRate == null) throw new IllegalArgumentException("--over-rate is off, reject or best-effort");
        if (!(burstSeconds >= MIN_BURST && burstSeconds <= MAX_BURST))
            throw new IllegalArgumentException("--rate-burst must be from " + MIN_BURST + " to " + (int) MAX_BURST
                    + " seconds, was " + burstSeconds);
        if (!(bestEffortShare > 0 && bestEffortShare <= 1))
            throw new IllegalArgumentException("--best-effort-share must be above 0 and at most 1, was " + bestEffortShare);
    }

    public RatePolicy(OverRate overRate, double burstSeconds) {
        this(overRate, burstSeconds, DEFAULT_BEST_EFFORT_SHARE);
    }

    /** How many of {@code maxInFlight} places best-effort excess may take: at least one. */
    int bestEffortPlaces(int maxInFlight) {
        return Math.max(1, (int) Math.floor(maxInFlight * bestEffortShare));
    }

    /** Not policed (the default for now: demos and benchmarks send above their users' rates). */
    public static final RatePolicy OFF = new RatePolicy(OverRate.OFF, 2);

    boolean polices() {
        return overRate != OverRate.OFF;
    }

    /**
     * Takes {@code --over-rate off|reject|best-effort}, {@code --rate-burst SECONDS} and
     * {@code --best-effort-share F} out of a command line; the rest in {@code rest}.
     */
    public static Parsed parse(String[] args) {
        OverRate mode = OFF.overRate;
        double burst = OFF.burstSeconds;
        double share = DEFAULT_BEST_EFFORT_SHARE;
        List<String> rest = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--over-rate") || a.equals("--rate-burst") || a.equals("--best-effort-share")) {
                if (i + 1 >= args.length) throw new IllegalArgumentException(a + " needs a value");
                String v = args[++i];
                if (a.equals("--over-rate")) {
                    try {
                        mode = OverRate.of(io.moses.model.OverRate.parse("--over-rate", v));
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException("--over-rate is off, reject or best-effort, got '" + v + "'");
                    }
                } else if (a.equals("--best-effort-share")) {
                    try {
                        share = Double.parseDouble(v);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("--best-effort-share needs a fraction of --max-in-flight, got '" + v + "'");
                    }
                } else {
                    try {
                        burst = Double.parseDouble(v);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("--rate-burst needs seconds, got '" + v + "'");
                    }
                }
            } else {
                rest.add(a);
            }
        }
        return new Parsed(new RatePolicy(mode, burst, share), rest.toArray(String[]::new));
    }

    public record Parsed(RatePolicy policy, String[] rest) {}
}
