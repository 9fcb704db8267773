package io.moses.loadtest.stubs;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.List;

/**
 * The behaviour of one stub service that can change while it runs: latency distribution,
 * failure probability and kind, up or down. The same field names are used in the config file
 * and in the admin API's JSON.
 *
 * @param distribution       how the latency of one request is drawn
 * @param latencyMs          the mean latency in milliseconds
 * @param sigma              for {@link Distribution#LOGNORMAL}: the standard deviation of the underlying normal
 * @param failureProbability probability in [0, 1] that a request fails
 * @param failureKind        how a failing request fails
 * @param up                 false: every request is refused with HTTP 503 and Connection: close
 */
public record Settings(Distribution distribution, double latencyMs, double sigma, double failureProbability,
                       FailureKind failureKind, boolean up) {
    /** The latency distribution. */
    public enum Distribution { FIXED, EXPONENTIAL, LOGNORMAL }

    /** How a failing request fails: a SOAP fault (HTTP 500) or a connection closed without any response. */
    public enum FailureKind { FAULT, DROP }

    public static final Settings DEFAULT = new Settings(Distribution.FIXED, 0, 0.5, 0, FailureKind.FAULT, true);

    static final List<String> FIELDS = List.of("distribution", "latencyMs", "sigma", "failureProbability", "failureKind", "up");

    public Settings {
        if (distribution == null) throw new IllegalArgumentException("distribution is missing");
        if (failureKind == null) throw new IllegalArgumentException("failureKind is missing");
        if (!(latencyMs >= 0) || Double.isInfinite(latencyMs))
            throw new IllegalArgumentException("latencyMs must be a finite number >= 0, was " + latencyMs);
        if (!(sigma >= 0) || sigma > 5) throw new IllegalArgumentException("sigma must be in [0, 5], was " + sigma);
        if (!(failureProbability >= 0 && failureProbability <= 1))
            throw new IllegalArgumentException("failureProbability must be in [0, 1], was " + failureProbability);
    }

    /**
     * One latency draw in milliseconds. Lognormal: exp(mu + sigma Z) with mu = ln(mean) - sigma^2/2,
     * so that its mean is {@code latencyMs}.
     */
    double sampleLatencyMs(Random random) {
        if (latencyMs == 0) return 0;
        return switch (distribution) {
            case FIXED -> latencyMs;
            case EXPONENTIAL -> -latencyMs * Math.log(1 - random.nextDouble());
            case LOGNORMAL -> Math.exp(Math.log(latencyMs) - sigma * sigma / 2 + sigma * random.nextGaussian());
        };
    }

    /**
     * These settings with the fields present in {@code patch} (a JSON object) changed.
     *
     * @throws IllegalArgumentException naming the field and the reason
     */
    public Settings with(JsonNode patch) {
        if (patch == null || !patch.isObject()) throw new IllegalArgumentException("expected a JSON object with any of " + FIELDS);
        Distribution d = distribution;
        double mean = latencyMs, s = sigma, p = failureProbability;
        FailureKind k = failureKind;
        boolean u = up;
        for (Iterator<Map.Entry<String, JsonNode>> it = patch.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> f = it.next();
            JsonNode v = f.getValue();
            switch (f.getKey()) {
                case "distribution" -> d = parseEnum(Distribution.class, "distribution", v);
                case "latencyMs" -> mean = number("latencyMs", v);
                case "sigma" -> s = number("sigma", v);
                case "failureProbability" -> p = number("failureProbability", v);
                case "failureKind" -> k = parseEnum(FailureKind.class, "failureKind", v);
                case "up" -> {
                    if (!v.isBoolean()) throw new IllegalArgumentException("up must be true or false, was " + v);
                    u = v.booleanValue();
                }
                default -> throw new IllegalArgumentException("unknown field '" + f.getKey() + "' (known: " + FIELDS + ")");
            }
        }
        return new Settings(d, mean, s, p, k, u);
    }

    private static double number(String field, JsonNode v) {
        if (!v.isNumber()) throw new IllegalArgumentException(field + " must be a number, was " + v);
        return v.doubleValue();
    }

    private static <E extends Enum<E>> E parseEnum(Class<E> type, String field, JsonNode v) {
        if (!v.isTextual()) throw new IllegalArgumentException(field + " must be a string, was " + v);
        for (E e : type.getEnumConstants())
            if (e.name().equalsIgnoreCase(v.textValue())) return e;
        StringBuilder known = new StringBuilder();
        for (E e : type.getEnumConstants()) known.append(known.isEmpty() ? "" : ", ").append(e.name().toLowerCase(Locale.ROOT));
        throw new IllegalArgumentException(field + " must be one of " + known + ", was " + v);
    }
}
