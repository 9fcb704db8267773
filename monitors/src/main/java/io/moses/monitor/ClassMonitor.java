package io.moses.monitor;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Per service class, the composite requests' observed response time and availability over
 * the last N requests, to compare with the class's SLA.
 *
 * <p>{@link #record} runs on every composite request's thread and takes no lock: one ring per
 * class, a slot claimed by an atomic counter, the response time and the outcome packed into
 * one long (the sign bit, unused by a non-negative time, marks a failure) so that a reader
 * never sees one without the other.
 */
public final class ClassMonitor {
    private static final long FAILED = Long.MIN_VALUE;
    /** A slot no request has written yet (a NaN: no time is one). */
    private static final long EMPTY = Double.doubleToRawLongBits(Double.NaN);
    private final int window;
    private final Map<String, Ring> rings = new ConcurrentHashMap<>();

    /** Observed behaviour of one class. */
    public record ClassStats(String serviceClass, int requests, double responseTime, double availability) {}

    private static final class Ring {
        final AtomicLongArray slots;
        final AtomicLong recorded = new AtomicLong();

        Ring(int n) {
            slots = new AtomicLongArray(n);
            for (int i = 0; i < n; i++) slots.set(i, EMPTY);
        }
    }

    public ClassMonitor(int window) {
        if (window < 1) throw new IllegalArgumentException("window must be at least 1, got " + window);
        this.window = window;
    }

    public void record(String serviceClass, double seconds, boolean succeeded) {
        if (serviceClass == null) return;
        Ring r = rings.computeIfAbsent(serviceClass, k -> new Ring(window));
        long bits = Double.doubleToRawLongBits(Math.max(0.0, seconds)) | (succeeded ? 0 : FAILED);
        long i = r.recorded.getAndIncrement();
        r.slots.set((int) (i % window), bits);
    }

    public Map<String, ClassStats> snapshot() {
        Map<String, ClassStats> out = new HashMap<>();
        rings.forEach((k, r) -> {
            int size = 0;
            double sum = 0;
            int ok = 0;
            for (int i = 0; i < window; i++) {
                long bits = r.slots.get(i);
                if (bits == EMPTY) continue; // claimed by a request still being written, or never
                size++;
                sum += Double.longBitsToDouble(bits & ~FAILED);
                if ((bits & FAILED) == 0) ok++;
            }
            out.put(k, new ClassStats(k, size, size == 0 ? Double.NaN : sum / size, size == 0 ? Double.NaN : ok / (double) size));
        });
        return out;
    }
}
