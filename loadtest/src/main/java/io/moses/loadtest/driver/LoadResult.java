package io.moses.loadtest.driver;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a closed-loop run measured; warm-up requests are not in any figure.
 *
 * @param requests       measured requests (successes + errors)
 * @param errors         per kind of error: count and a few distinct example messages
 * @param elapsedSeconds from the first measured request sent to the last measured reply
 * @param throughput     requests / elapsedSeconds [req/s]
 * @param latency        of successful requests only (failures count against availability, not response time)
 * @param tally          capture group 1 value -> occurrences in successful replies; empty without a tally regex
 * @param perUser        per Basic-auth user; empty without credentials
 */
public record LoadResult(long requests, long successes, Map<ErrorKind, ErrorStats> errors, long warmupRequests, int clients,
                         double elapsedSeconds, double throughput, Latency latency, Map<String, Long> tally,
                         Map<String, UserStats> perUser) {

    public LoadResult {
        errors = Map.copyOf(errors);
        tally = Map.copyOf(tally);
        perUser = Map.copyOf(perUser);
    }

    /** @param examples up to {@value ErrorStats#MAX_EXAMPLES} distinct messages */
    public record ErrorStats(long count, List<String> examples) {
        public static final int MAX_EXAMPLES = 3;

        public ErrorStats {
            examples = List.copyOf(examples);
        }
    }

    /** Latency figures in milliseconds, exact (from all samples); NaN when there were no samples. */
    public record Latency(long samples, double meanMs, double p50Ms, double p95Ms, double p99Ms, double maxMs) {
        static final Latency NONE = new Latency(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);

        /** @param sortedNanos ascending */
        static Latency of(long[] sortedNanos) {
            int n = sortedNanos.length;
            if (n == 0) return NONE;
            double sum = 0;
            for (long v : sortedNanos) sum += v;
            return new Latency(n, sum / n / 1e6, rank(sortedNanos, 0.50), rank(sortedNanos, 0.95), rank(sortedNanos, 0.99),
                    sortedNanos[n - 1] / 1e6);
        }

        /** Nearest-rank percentile: the smallest sample with at least q of all samples at or below it. */
        static double rank(long[] sorted, double q) {
            int i = (int) Math.ceil(q * sorted.length) - 1;
            return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
        }
    }

    public record UserStats(long requests, long errors, Latency latency) {}

    public long errorCount() {
        long n = 0;
        for (ErrorStats e : errors.values()) n += e.count();
        return n;
    }

    public long errorCount(ErrorKind kind) {
        ErrorStats e = errors.get(kind);
        return e == null ? 0 : e.count();
    }

    public String report() {
        StringBuilder s = new StringBuilder();
        s.append(f("requests    %d (%d ok, %d errors), %d clients", requests, successes, errorCount(), clients));
        if (warmupRequests > 0) s.append(f(", %d warm-up requests not counted", warmupRequests));
        s.append(f("%nelapsed     %.2f s, throughput %.1f req/s", elapsedSeconds, throughput));
        s.append(f("%nlatency ms  %s  (successful requests)", latencyLine(latency)));
        for (ErrorKind k : ErrorKind.values()) {
            ErrorStats e = errors.get(k);
            if (e == null) continue;
            s.append(f("%nerrors      %s x%d", k, e.count()));
            for (String example : e.examples()) s.append(f("%n              e.g. %s", example));
        }
        if (!tally.isEmpty()) {
            long total = tally.values().stream().mapToLong(Long::longValue).sum();
            s.append(f("%ntally       "));
            String sep = "";
            for (Map.Entry<String, Long> t : sorted(tally).entrySet()) {
                s.append(sep).append(f("%s %d (%.1f%%)", t.getKey(), t.getValue(), 100.0 * t.getValue() / total));
                sep = ", ";
            }
        }
        for (Map.Entry<String, UserStats> u : sorted(perUser).entrySet()) {
            UserStats us = u.getValue();
            s.append(f("%nuser %-10s %d requests, %d errors, %s", u.getKey(), us.requests(), us.errors(), latencyLine(us.latency())));
        }
        return s.toString();
    }

    /** One line of JSON: every figure above, milliseconds rounded to microseconds. */
    public String toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("requests", requests);
        m.put("successes", successes);
        m.put("errorCount", errorCount());
        Map<String, Object> errs = new LinkedHashMap<>();
        for (ErrorKind k : ErrorKind.values()) {
            ErrorStats e = errors.get(k);
            if (e != null) errs.put(k.name(), ordered("count", e.count(), "examples", e.examples()));
        }
        m.put("errors", errs);
        m.put("warmupRequests", warmupRequests);
        m.put("clients", clients);
        m.put("elapsedSeconds", round(elapsedSeconds));
        m.put("throughput", round(throughput));
        m.put("latencyMs", latencyJson(latency));
        m.put("tally", sorted(tally));
        Map<String, Object> users = new LinkedHashMap<>();
        sorted(perUser).forEach((u, us) -> users.put(u, ordered("requests", us.requests(), "errors", us.errors(),
                "latencyMs", latencyJson(us.latency()))));
        m.put("perUser", users);
        try {
            return JSON.writeValueAsString(m);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write result as JSON", e); // only maps of strings and numbers: cannot happen
        }
    }

    @Override
    public String toString() {
        return toJson();
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private static Map<String, Object> latencyJson(Latency l) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("samples", l.samples());
        m.put("mean", round(l.meanMs()));
        m.put("p50", round(l.p50Ms()));
        m.put("p95", round(l.p95Ms()));
        m.put("p99", round(l.p99Ms()));
        m.put("max", round(l.maxMs()));
        return m;
    }

    /** JSON has no NaN: figures without samples become null. */
    private static Double round(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? null : Math.round(v * 1000) / 1000.0;
    }

    private static Map<String, Object> ordered(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        return m;
    }

    private static String latencyLine(Latency l) {
        if (l.samples() == 0) return "no samples";
        return f("mean %.1f  p50 %.1f  p95 %.1f  p99 %.1f  max %.1f", l.meanMs(), l.p50Ms(), l.p95Ms(), l.p99Ms(), l.maxMs());
    }

    private static <V> Map<String, V> sorted(Map<String, V> m) {
        return new java.util.TreeMap<>(m);
    }

    private static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
