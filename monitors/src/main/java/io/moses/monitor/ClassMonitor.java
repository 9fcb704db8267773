package io.moses.monitor;

import java.util.HashMap;
import java.util.Map;

/**
 * Per service class, the composite requests' observed response time and availability over
 * the last N requests, to compare with the class's SLA.
 */
public final class ClassMonitor {
    private final int window;
    private final Map<String, Ring> rings = new HashMap<>();

    /** Observed behaviour of one class. */
    public record ClassStats(String serviceClass, int requests, double responseTime, double availability) {}

    private static final class Ring {
        final double[] seconds;
        final boolean[] ok;
        int next;
        int size;

        Ring(int n) {
            seconds = new double[n];
            ok = new boolean[n];
        }
    }

    public ClassMonitor(int window) {
        this.window = window;
    }

    public synchronized void record(String serviceClass, double seconds, boolean succeeded) {
        if (serviceClass == null) return;
        Ring r = rings.computeIfAbsent(serviceClass, k -> new Ring(window));
        r.seconds[r.next] = seconds;
        r.ok[r.next] = succeeded;
        r.next = (r.next + 1) % window;
        r.size = Math.min(r.size + 1, window);
    }

    public synchronized Map<String, ClassStats> snapshot() {
        Map<String, ClassStats> out = new HashMap<>();
        rings.forEach((k, r) -> {
            double sum = 0;
            int ok = 0;
            for (int i = 0; i < r.size; i++) {
                sum += r.seconds[i];
                if (r.ok[i]) ok++;
            }
            out.put(k, new ClassStats(k, r.size, r.size == 0 ? Double.NaN : sum / r.size, r.size == 0 ? Double.NaN : ok / (double) r.size));
        });
        return out;
    }
}
