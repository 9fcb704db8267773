package io.moses.monitor;

import io.moses.model.TaskRef;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The Execution Path Analyzer: from executed requests, the visits V^k_i (how many times one
 * class-k request invokes task i), over the last N requests of each class and composite.
 * Measuring visits directly gives the product of branch probabilities and loop iterations
 * along each task's path that docs/model.md ("Workflow and visits") defines, without instrumenting every branch.
 */
public final class PathAnalyzer {
    private final int window;
    private final Map<String, Deque<Map<TaskRef, Integer>>> byClass = new HashMap<>();

    public PathAnalyzer(int window) {
        this.window = window;
    }

    /** One finished request of {@code serviceClass}: how often it invoked each task. */
    public synchronized void record(String serviceClass, String composite, Map<TaskRef, Integer> invokes) {
        Deque<Map<TaskRef, Integer>> q = byClass.computeIfAbsent(serviceClass + "\u0000" + composite, k -> new ArrayDeque<>());
        q.addLast(Map.copyOf(invokes));
        if (q.size() > window) q.removeFirst();
    }

    /** Per class: visits of each task seen, and how many requests they come from. */
    public synchronized Map<String, Visits> visits() {
        Map<String, Visits> out = new HashMap<>();
        for (var e : byClass.entrySet()) {
            String cls = e.getKey().substring(0, e.getKey().indexOf('\u0000'));
            Deque<Map<TaskRef, Integer>> q = e.getValue();
            Map<TaskRef, Double> sum = new HashMap<>();
            Set<TaskRef> tasks = new HashSet<>();
            for (Map<TaskRef, Integer> r : q) {
                tasks.addAll(r.keySet());
                r.forEach((t, n) -> sum.merge(t, (double) n, Double::sum));
            }
            Map<TaskRef, Double> mean = new HashMap<>();
            for (TaskRef t : tasks) mean.put(t, sum.getOrDefault(t, 0.0) / q.size());
            out.merge(cls, new Visits(mean, q.size()), (a, b) -> a.merge(b));
        }
        return out;
    }

    /** Mean invokes per request, per task, of one class; {@code requests} requests seen. */
    public record Visits(Map<TaskRef, Double> perTask, int requests) {
        Visits merge(Visits o) {
            Map<TaskRef, Double> m = new HashMap<>(perTask);
            m.putAll(o.perTask);
            return new Visits(m, Math.min(requests, o.requests));
        }
    }
}
