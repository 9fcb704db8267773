package io.moses.monitor;

import io.moses.model.TaskRef;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The Execution Path Analyzer: from executed requests, the visits V^k_i (how many times one
 * class-k request invokes task i), over the last N requests of each class and composite.
 * Measuring visits directly gives the product of branch probabilities and loop iterations
 * along each task's path that docs/model.md ("Workflow and visits") defines, without instrumenting every branch.
 *
 * <p>{@link #record} runs on every composite request's thread, so it takes no lock: each class
 * and composite has a ring of the last N requests' counts, a slot claimed by an atomic counter
 * and written with one reference store. {@link #visits} (the monitor's period) reads the slots
 * as they are; a request recorded while it reads is either in or out, never half.
 */
public final class PathAnalyzer {
    private final int window;
    private final Map<Key, Ring> byClass = new ConcurrentHashMap<>();

    private record Key(String serviceClass, String composite) {}

    /** The last {@code window} requests of one class and composite. */
    private static final class Ring {
        final AtomicReferenceArray<Map<TaskRef, Integer>> slots;
        final AtomicLong recorded = new AtomicLong();

        Ring(int window) {
            slots = new AtomicReferenceArray<>(window);
        }
    }

    public PathAnalyzer(int window) {
        if (window < 1) throw new IllegalArgumentException("window must be at least 1, got " + window);
        this.window = window;
    }

    /** One finished request of {@code serviceClass}: how often it invoked each task. */
    public void record(String serviceClass, String composite, Map<TaskRef, Integer> invokes) {
        Ring ring = byClass.computeIfAbsent(new Key(serviceClass, composite), k -> new Ring(window));
        Map<TaskRef, Integer> counts = Map.copyOf(invokes);
        ring.slots.set((int) (ring.recorded.getAndIncrement() % window), counts);
    }

    /** Per class: visits of each task seen, and how many requests they come from. */
    public Map<String, ClassVisits> visits() {
        Map<String, ClassVisits> out = new HashMap<>();
        for (var e : byClass.entrySet()) {
            Ring ring = e.getValue();
            Map<TaskRef, Double> sum = new HashMap<>(); // every task seen, with its total invokes
            int requests = 0;
            for (int i = 0; i < window; i++) {
                Map<TaskRef, Integer> r = ring.slots.get(i);
                if (r == null) continue;
                requests++;
                r.forEach((t, n) -> sum.merge(t, (double) n, Double::sum));
            }
            if (requests == 0) continue;
            Map<TaskRef, Double> mean = new HashMap<>();
            for (var t : sum.entrySet()) mean.put(t.getKey(), t.getValue() / requests);
            out.merge(e.getKey().serviceClass(), new ClassVisits(mean, requests), (a, b) -> a.merge(b));
        }
        return out;
    }

    /** Mean invokes per request, per task, of one class; {@code requests} requests seen. */
    public record ClassVisits(Map<TaskRef, Double> perTask, int requests) {
        ClassVisits merge(ClassVisits o) {
            Map<TaskRef, Double> m = new HashMap<>(perTask);
            m.putAll(o.perTask);
            return new ClassVisits(m, Math.min(requests, o.requests));
        }
    }
}
