package io.moses.monitor;

import io.moses.adaptation.Outcome;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The QoS Monitor: per concrete service, the recent outcomes of its calls, hence its observed
 * response time (mean of successful replies, and percentiles), its availability, and the raw
 * success latencies the optimizer's empirical E[min] needs. A sliding window of the last N
 * outcomes, no older than a maximum age. One thread feeds it ({@link #record}); snapshots may
 * be taken from any thread.
 */
public final class QosMonitor {
    private final int capacity;
    private final long maxAgeNanos;
    private final Map<String, Window> windows = new HashMap<>();

    /** What the monitor has seen of one service. */
    public record ServiceStats(String service, int successes, int failures, double responseTime, double availability,
                               double p50, double p95, double p99, double[] successLatencies) {
        public int samples() {
            return successes + failures;
        }
    }

    private static final class Window {
        final long[] at;
        final double[] seconds;
        final boolean[] ok;
        int next;
        int size;

        Window(int capacity) {
            at = new long[capacity];
            seconds = new double[capacity];
            ok = new boolean[capacity];
        }

        void add(long when, double s, boolean success) {
            at[next] = when;
            seconds[next] = s;
            ok[next] = success;
            next = (next + 1) % at.length;
            size = Math.min(size + 1, at.length);
        }
    }

    /**
     * @param capacity outcomes kept per service
     * @param maxAgeMillis older outcomes are ignored
     */
    public QosMonitor(int capacity, long maxAgeMillis) {
        this.capacity = capacity;
        this.maxAgeNanos = TimeUnit.MILLISECONDS.toNanos(maxAgeMillis);
    }

    /**
     * A cancelled 1-out-of-n loser and a call the broker refused itself (too many in flight,
     * never sent) say nothing about the service and are not counted.
     */
    public synchronized void record(Outcome o) {
        if (o.kind() == Outcome.Kind.CANCELLED || o.kind() == Outcome.Kind.REFUSED_LOCALLY) return;
        windows.computeIfAbsent(o.service(), s -> new Window(capacity))
                .add(o.atNanos(), o.nanos() / 1e9, o.kind() == Outcome.Kind.OK);
    }

    public synchronized Map<String, ServiceStats> snapshot() {
        long now = System.nanoTime();
        Map<String, ServiceStats> out = new HashMap<>();
        for (var e : windows.entrySet()) {
            ServiceStats s = stats(e.getKey(), e.getValue(), now);
            if (s != null) out.put(e.getKey(), s);
        }
        return out;
    }

    /**
     * The window's outcomes no older than the maximum age; if there are none (the plan stopped
     * calling the service), the last ones seen, however old: forgetting them would make the
     * optimizer fall back to the provider's promise and send the traffic straight back.
     */
    private ServiceStats stats(String service, Window w, long now) {
        ServiceStats recent = stats(service, w, now, maxAgeNanos);
        return recent != null ? recent : stats(service, w, now, Long.MAX_VALUE);
    }

    /** Forgets a service's outcomes: it came back up and its past failures no longer describe it. */
    public synchronized void forget(String service) {
        windows.remove(service);
    }

    private static ServiceStats stats(String service, Window w, long now, long maxAgeNanos) {
        double[] ok = new double[w.size];
        int n = 0;
        int failures = 0;
        for (int i = 0; i < w.size; i++) {
            if (now - w.at[i] > maxAgeNanos) continue;
            if (w.ok[i]) ok[n++] = w.seconds[i];
            else failures++;
        }
        if (n + failures == 0) return null;
        double[] successes = Arrays.copyOf(ok, n);
        Arrays.sort(successes);
        double mean = n == 0 ? Double.NaN : Arrays.stream(successes).sum() / n;
        return new ServiceStats(service, n, failures, mean, n / (double) (n + failures),
                percentile(successes, 0.50), percentile(successes, 0.95), percentile(successes, 0.99), successes);
    }

    static double percentile(double[] sorted, double q) {
        if (sorted.length == 0) return Double.NaN;
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }
}
