package io.moses.monitor;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Per service class, the composite requests' observed response time and availability over
 * the last N requests, to compare with the class's SLA.
 *
 * <p>{@link #record} runs on every composite request's thread, takes no lock and allocates nothing:
 * one ring per class, a slot claimed by an atomic counter and written with one store of a
 * {@code long} that holds the request's time and outcome together (a time is never negative, so
 * its sign bit says "failed"), so that a reader sees both or neither.
 */
public final class ClassMonitor {
    /** A slot not written yet: a NaN that {@link Double#doubleToLongBits} never returns. */
    private static final long EMPTY = 0x7ff0_0000_0000_0001L;
    private static final long FAILED = Long.MIN_VALUE;

    private final int window;
    private final Map<String, Ring> rings = new ConcurrentHashMap<>();

    /** Observed behaviour of one class. */
    public record ClassStats(String serviceClass, int requests, double responseTime, double availability) {}

    private static final class Ring {
        final AtomicLongArray slots;
        final AtomicLong recorded = new AtomicLong();

        Ring(int n) {
            long[] empty = new long[n];
            Arrays.fill(empty, EMPTY);
            slots = new AtomicLongArray(empty);
        }
    }

    public ClassMonitor(int window) {
        if (window < 1) throw new IllegalArgumentException("window must be at least 1, got " + window);
        this.window = window;
    }

    public void record(String serviceClass, double seconds, boolean succeeded) {
        if (serviceClass == null) return;
        Ring r = rings.get(serviceClass);
        if (r == null) r = rings.computeIfAbsent(serviceClass, k -> new Ring(window));
        long sample = Double.doubleToLongBits(Math.max(0.0, seconds)) | (succeeded ? 0 : FAILED);
        r.slots.set((int) (r.recorded.getAndIncrement() % window), sample);
    }

    public Map<String, ClassStats> snapshot() {
        Map<String, ClassStats> out = new HashMap<>();
        rings.forEach((k, r) -> {
            int size = 0;
            double sum = 0;
            int ok = 0;
            for (int i = 0; i < window; i++) {
                long sample = r.slots.get(i);
                if (sample == EMPTY) continue; // not written yet
                size++;
                sum += Double.longBitsToDouble(sample & ~FAILED);
                if (sample >= 0) ok++;
            }
            out.put(k, new ClassStats(k, size, size == 0 ? Double.NaN : sum / size, size == 0 ? Double.NaN : ok / (double) size));
        });
        return out;
    }
}
