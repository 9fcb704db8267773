package io.moses.core.frontend;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What the front-end does with a user's requests above the rate it agreed ({@code l_u}):
 * nothing ({@code off}), or refuse them with HTTP 429 ({@code reject}). Each user has a token
 * bucket of its agreed rate holding at most {@code burstSeconds} of it.
 *
 * @param overRate     off or reject
 * @param burstSeconds how many seconds of the agreed rate a user may send at once, 0.1 to 60
 */
public record RatePolicy(OverRate overRate, double burstSeconds) {
    public enum OverRate { OFF, REJECT }

    public static final double MIN_BURST = 0.1;
    public static final double MAX_BURST = 60;

    public RatePolicy {
        if (overRate == null) throw new IllegalArgumentException("--over-rate is off or reject");
        if (!(burstSeconds >= MIN_BURST && burstSeconds <= MAX_BURST))
            throw new IllegalArgumentException("--rate-burst must be from " + MIN_BURST + " to " + (int) MAX_BURST
                    + " seconds, was " + burstSeconds);
    }

    /** Not policed (the default for now: demos and benchmarks send above their users' rates). */
    public static final RatePolicy OFF = new RatePolicy(OverRate.OFF, 2);

    public boolean polices() {
        return overRate != OverRate.OFF;
    }

    /** Takes {@code --over-rate off|reject} and {@code --rate-burst SECONDS} out of a command line; the rest in {@code rest}. */
    public static Parsed parse(String[] args) {
        OverRate mode = OFF.overRate;
        double burst = OFF.burstSeconds;
        List<String> rest = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--over-rate") || a.equals("--rate-burst")) {
                if (i + 1 >= args.length) throw new IllegalArgumentException(a + " needs a value");
                String v = args[++i];
                if (a.equals("--over-rate")) {
                    try {
                        mode = OverRate.valueOf(v.toUpperCase(Locale.ROOT));
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException("--over-rate is off or reject, got '" + v + "'");
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
        return new Parsed(new RatePolicy(mode, burst), rest.toArray(String[]::new));
    }

    public record Parsed(RatePolicy policy, String[] rest) {}
}
