package io.moses.monitor;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Per service class, the composite requests' observed response time and availability over
 * the last N requests, to compare with the class's SLA.
 *
 * <p>{@link #record} runs on every composite request's thread and takes no lock: one ring per
 * class, a slot claimed by an atomic counter and written with one reference store, so that a
 * reader sees a request's time and outcome together or not at all.
 */
public final class ClassMonitor {
    private final int window;
    private final Map<String, Ring> rings = new ConcurrentHashMap<>();

    /** Observed behaviour of one class. */
    public record ClassStats(String serviceClass, int requests, double responseTime, double availability) {}

    private record Sample(double seconds, boolean succeeded) {}

    private static final class Ring {
        final AtomicReferenceArray<Sample> slots;
        final AtomicLong recorded = new AtomicLong();

        Ring(int n) {
            slots = new AtomicReferenceArray<>(n);
        }
    }

    public ClassMonitor(int window) {
        if (window < 1) throw new IllegalArgumentException("window must be at least 1, got " + window);
        this.window = window;
    }

    public void record(String serviceClass, double seconds, boolean succeeded) {
        if (serviceClass == null) return;
        Ring r = rings.computeIfAbsent(serviceClass, k -> new Ring(window));
        r.slots.set((int) (r.recorded.getAndIncrement() % window), new Sample(Math.max(0.0, seconds), succeeded));
    }

    public Map<String, ClassStats> snapshot() {
        Map<String, ClassStats> out = new HashMap<>();
        rings.forEach((k, r) -> {
            int size = 0;
            double sum = 0;
            int ok = 0;
            for (int i = 0; i < window; i++) {
                Sample sample = r.slots.get(i);
                if (sample == null) continue; // not written yet
                size++;
                sum += sample.seconds();
                if (sample.succeeded()) ok++;
            }
            out.put(k, new ClassStats(k, size, size == 0 ? Double.NaN : sum / size, size == 0 ? Double.NaN : ok / (double) size));
        });
        return out;
    }
}
