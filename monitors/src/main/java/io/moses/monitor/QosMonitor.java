package io.moses.monitor;

import io.moses.adaptation.CallEnd;
import io.moses.adaptation.ServiceCall;
import io.moses.adaptation.ServiceCallLog;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The QoS Monitor: per concrete service, the recent outcomes of its calls, hence its observed
 * response time (mean of successful replies, and percentiles), its availability, its
 * failure-detection time (mean latency of its failures) and the raw success latencies the
 * optimizer's empirical E[min] needs. A sliding window of the last N outcomes, no older than a
 * maximum age, but never fewer than the newest {@code minSamples} (a service the plan calls
 * rarely keeps its last known behaviour instead of reading as unknown). One thread feeds it
 * ({@link #record}, or a period's at once with {@link #recordAll}); snapshots may be taken from any thread.
 *
 * <p>Censored samples (docs/model.md, "Estimates from observations"): a cancelled 1-out-of-n
 * loser took at least as long as the winner, and a call still in flight has taken at least its
 * age. Each counts in the response time as {@code max(bound, mean of the uncensored replies)}
 * (for any distribution E[T | T >= c] is at least both), and not in the availability.
 */
public final class QosMonitor {
    private static final byte OK = 0, FAILED = 1, CENSORED = 2;

    private final int capacity;
    private final long maxAgeNanos;
    private final int minSamples;
    private final LongSupplier clock;
    private final Map<String, Window> windows = new HashMap<>();

    /**
     * What the monitor has seen of one service.
     *
     * @param successes        uncensored successful replies
     * @param failures         failures that blame the provider (faults, timeouts, errors)
     * @param censored         censored samples (cancelled losers, slow calls in flight)
     * @param responseTime     mean response time of a reply [s], censored samples included as
     *                         above; NaN with neither replies nor censored samples
     * @param availability     successes / (successes + failures), the raw ratio
     * @param failureTime      mean latency of the failures [s] (NaN without failures)
     * @param successLatencies uncensored reply latencies, sorted
     */
    public record ServiceStats(String service, int successes, int failures, int censored, double responseTime,
                               double availability, double failureTime, double p50, double p95, double p99,
                               double[] successLatencies) {
        public int samples() {
            return successes + failures;
        }

        /**
         * The availability estimate that stays honest with little data: the posterior mean of a
         * Beta prior centred on the provider's promise {@code promised} and worth {@code weight}
         * calls, updated by the successes and failures seen: (a0 w + s) / (w + s + f).
         */
        public double availability(double promised, double weight) {
            return (promised * weight + successes) / (weight + successes + failures);
        }
    }

    private static final class Window {
        final long[] at;
        final double[] seconds;
        final byte[] kind;
        int next;
        int size;
        /**
         * The last figures computed from this window, from its newest {@code cachedCount} outcomes and
         * the in-flight ages {@code cachedInFlight}; dropped by the next outcome. A monitor period
         * asks for the same outcomes several times (the window, the last period, the recent ones):
         * under load they are all the newest {@code capacity}, and their sort is done once.
         */
        ServiceStats cached;
        int cachedCount;
        double[] cachedInFlight;

        Window(int capacity) {
            at = new long[capacity];
            seconds = new double[capacity];
            kind = new byte[capacity];
        }

        void add(long when, double s, byte k) {
            at[next] = when;
            seconds[next] = s;
            kind[next] = k;
            next = (next + 1) % at.length;
            size = Math.min(size + 1, at.length);
            cached = null;
        }

        /** Index of the i-th newest outcome (0 = newest). */
        int newest(int i) {
            return Math.floorMod(next - 1 - i, at.length);
        }
    }

    /**
     * @param capacity     outcomes kept per service
     * @param maxAgeMillis older outcomes are ignored, except to make up {@code minSamples}
     */
    QosMonitor(int capacity, long maxAgeMillis) { // on the system clock: tests only, the broker passes its own
        this(capacity, maxAgeMillis, 1, System::nanoTime);
    }

    /**
     * @param minSamples the newest outcomes that count however old (at least 1)
     * @param clock      nanosecond clock, the one {@link ServiceCall#atNanos()} is read on
     */
    public QosMonitor(int capacity, long maxAgeMillis, int minSamples, LongSupplier clock) {
        this.capacity = capacity;
        this.maxAgeNanos = TimeUnit.MILLISECONDS.toNanos(maxAgeMillis);
        this.minSamples = Math.max(1, minSamples);
        this.clock = clock;
    }

    /**
     * A call the broker refused itself (too many in flight, never sent) says nothing about the
     * service and is not counted; a cancelled 1-out-of-n loser is a censored sample.
     */
    public synchronized void record(ServiceCall o) {
        add(o);
    }

    /**
     * Records every outcome {@code log} took since its last drain (as {@link #record} does each), under
     * one lock: the monitor period's thousands of outcomes do not take it one by one.
     *
     * @return how many calls the log could not record since its last drain (full: its reader fell behind)
     */
    public synchronized long recordAll(ServiceCallLog log) {
        return log.drain(this::add);
    }

    private void add(ServiceCall o) {
        if (o.kind() == CallEnd.REFUSED_LOCALLY) return;
        byte k = switch (o.kind()) {
            case REPLY -> OK;
            case CANCELLED -> CENSORED;
            default -> FAILED;
        };
        Window w = windows.get(o.service());
        if (w == null) windows.put(o.service(), w = new Window(capacity));
        w.add(o.atNanos(), o.nanos() / 1e9, k);
    }

    public synchronized Map<String, ServiceStats> snapshot() {
        return snapshot(Map.of());
    }

    /**
     * @param inFlight per service, ages [s] of calls still in flight that already took longer
     *                 than expected: counted as censored samples
     */
    public synchronized Map<String, ServiceStats> snapshot(Map<String, double[]> inFlight) {
        long now = clock.getAsLong();
        Map<String, ServiceStats> out = new HashMap<>();
        for (var e : windows.entrySet()) {
            ServiceStats s = stats(e.getKey(), e.getValue(), now, minSamples, inFlight.get(e.getKey()));
            if (s != null) out.put(e.getKey(), s);
        }
        inFlight.forEach((name, ages) -> {
            if (!out.containsKey(name) && ages.length > 0) out.put(name, stats(name, new Window(1), now, 0, ages));
        });
        return out;
    }

    /**
     * The outcomes of the last {@code periodMillis} only, and the calls in flight: the freshest
     * view, which a drift rule reads so that a slowdown is not diluted by the seconds before it.
     */
    public synchronized Map<String, ServiceStats> latest(Map<String, double[]> inFlight, long periodMillis) {
        long now = clock.getAsLong();
        long age = TimeUnit.MILLISECONDS.toNanos(periodMillis);
        Map<String, ServiceStats> out = new HashMap<>();
        for (var e : windows.entrySet()) {
            ServiceStats s = stats(e.getKey(), e.getValue(), now, 0, inFlight.get(e.getKey()), age);
            if (s != null) out.put(e.getKey(), s);
        }
        inFlight.forEach((name, ages) -> {
            if (!out.containsKey(name) && ages.length > 0) out.put(name, stats(name, new Window(1), now, 0, ages, age));
        });
        return out;
    }

    /**
     * Only the outcomes within the maximum age, however few: what a service the plan does not
     * use (explored now and then) looks like now.
     */
    public synchronized Map<String, ServiceStats> recent() {
        long now = clock.getAsLong();
        Map<String, ServiceStats> out = new HashMap<>();
        for (var e : windows.entrySet()) {
            ServiceStats s = stats(e.getKey(), e.getValue(), now, 0, null);
            if (s != null) out.put(e.getKey(), s);
        }
        return out;
    }

    /** Forgets a service's outcomes: it came back up and its past failures no longer describe it. */
    public synchronized void forget(String service) {
        windows.remove(service);
    }

    /** Forgets a service's outcomes older than the maximum age: they no longer describe it. */
    public synchronized void forgetOld(String service) {
        keep(service, clock.getAsLong() - maxAgeNanos, 0);
    }

    /**
     * Forgets a service's outcomes from before {@code nanos} (a change point: the service changed
     * then), keeping at least the newest {@code minSamples} so that its estimate stays observed.
     */
    public synchronized void forgetBefore(String service, long nanos) {
        keep(service, nanos, minSamples);
    }

    /** Like {@link #forgetBefore(String, long)}, keeping at least the newest {@code keepAtLeast}. */
    public synchronized void forgetBefore(String service, long nanos, int keepAtLeast) {
        keep(service, nanos, keepAtLeast);
    }

    private void keep(String service, long fromNanos, int atLeast) {
        Window w = windows.get(service);
        if (w == null) return;
        int kept = 0;
        while (kept < w.size && (w.at[w.newest(kept)] >= fromNanos || kept < atLeast)) kept++;
        Window fresh = new Window(capacity);
        for (int i = kept - 1; i >= 0; i--) {
            int j = w.newest(i);
            fresh.add(w.at[j], w.seconds[j], w.kind[j]);
        }
        if (fresh.size == 0) windows.remove(service);
        else windows.put(service, fresh);
    }

    private ServiceStats stats(String service, Window w, long now, int atLeast, double[] inFlight) {
        return stats(service, w, now, atLeast, inFlight, maxAgeNanos);
    }

    private static ServiceStats stats(String service, Window w, long now, int atLeast, double[] inFlight, long maxAgeNanos) {
        int taken = 0; // the newest outcomes that count: newest first, the rest is older
        while (taken < w.size && (now - w.at[w.newest(taken)] <= maxAgeNanos || taken < atLeast)) taken++;
        if (w.cached != null && w.cachedCount == taken && Arrays.equals(w.cachedInFlight, inFlight)) return w.cached;
        ServiceStats s = stats(service, w, taken, inFlight);
        if (s != null) {
            w.cached = s;
            w.cachedCount = taken;
            w.cachedInFlight = inFlight == null ? null : inFlight.clone();
        }
        return s;
    }

    /** The figures of the newest {@code taken} outcomes of {@code w} and the calls in flight. */
    private static ServiceStats stats(String service, Window w, int taken, double[] inFlight) {
        int replies = 0, cancelled = 0; // counted first: the arrays are made to size, once a period
        for (int i = 0; i < taken; i++) {
            byte k = w.kind[w.newest(i)];
            if (k == OK) replies++;
            else if (k == CENSORED) cancelled++;
        }
        double[] ok = new double[replies];
        int n = 0, failures = 0, censored = 0;
        double failureSum = 0;
        double[] bounds = new double[cancelled + (inFlight == null ? 0 : inFlight.length)];
        for (int i = 0; i < taken; i++) {
            int j = w.newest(i);
            switch (w.kind[j]) {
                case OK -> ok[n++] = w.seconds[j];
                case FAILED -> {
                    failures++;
                    failureSum += w.seconds[j];
                }
                default -> bounds[censored++] = w.seconds[j];
            }
        }
        if (inFlight != null) for (double age : inFlight) bounds[censored++] = age;
        if (n + failures + censored == 0) return null;
        double[] successes = ok; // n == replies
        Arrays.sort(successes);
        double uncensored = n == 0 ? 0 : Arrays.stream(successes).sum() / n;
        double sum = uncensored * n;
        for (int i = 0; i < censored; i++) sum += Math.max(bounds[i], uncensored);
        double mean = n + censored == 0 ? Double.NaN : sum / (n + censored);
        return new ServiceStats(service, n, failures, censored, mean,
                n + failures == 0 ? Double.NaN : n / (double) (n + failures), failures == 0 ? Double.NaN : failureSum / failures,
                percentile(successes, 0.50), percentile(successes, 0.95), percentile(successes, 0.99), successes);
    }

    static double percentile(double[] sorted, double q) {
        if (sorted.length == 0) return Double.NaN;
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }
}
