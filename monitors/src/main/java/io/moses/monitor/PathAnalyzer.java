package io.moses.monitor;

import io.moses.model.TaskRef;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

/**
 * The Execution Path Analyzer: from executed requests, the visits V^k_i (how many times one
 * class-k request invokes task i), over the last N requests of each class and composite.
 * Measuring visits directly gives the product of branch probabilities and loop iterations
 * along each task's path that docs/model.md ("Workflow and visits") defines, without instrumenting every branch.
 *
 * <p>{@link #record} runs on every composite request's thread: each class and composite has a
 * ring of the last N requests' counts and, beside it, their running totals per task, both changed
 * together under the ring's own lock (a few array writes, nothing allocated), so that
 * {@link #visits} (the monitor's period) reads the totals instead of the N requests, and a request
 * recorded meanwhile is either in or out, never half. Neither holds the lock longer than a few
 * array writes per task: not the one lock over every class that the period held while it summed
 * the window, which once blocked request threads (docs/benchmarks.md).
 */
public final class PathAnalyzer {
    private final int window;
    /** The rings by class, then by composite. */
    private final Map<String, Map<String, Ring>> byClass = new ConcurrentHashMap<>();

    /**
     * The last {@code window} requests of one class and composite. Each task seen has a column:
     * its invokes by each slot's request, whether that request named it at all, and the totals of
     * both over the window. A task no request in the window named is not seen (as before it came).
     */
    private static final class Ring implements BiConsumer<TaskRef, Integer> {
        private final int window;
        private final Map<TaskRef, Integer> columns = new HashMap<>();
        private int taskCount;
        private TaskRef[] tasks = new TaskRef[8];
        private int[][] invokes = new int[8][];
        private boolean[][] named = new boolean[8][];
        private long[] total = new long[8];
        private int[] namedBy = new int[8];
        /** The request being recorded, read in full before the window changes (a map with a null in it changes nothing). */
        private int[] stagedColumn = new int[8];
        private int[] stagedCount = new int[8];
        private int staged;
        private long recorded;

        Ring(int window) {
            this.window = window;
        }

        synchronized void add(Map<TaskRef, Integer> counts) {
            staged = 0;
            counts.forEach(this);
            int slot = (int) (recorded % window);
            for (int c = 0; c < taskCount; c++) { // the request that held the slot leaves the window
                if (!named[c][slot]) continue;
                total[c] -= invokes[c][slot];
                namedBy[c]--;
                named[c][slot] = false;
                invokes[c][slot] = 0;
            }
            for (int i = 0; i < staged; i++) { // a map names a task once
                int c = stagedColumn[i];
                named[c][slot] = true;
                invokes[c][slot] = stagedCount[i];
                total[c] += stagedCount[i];
                namedBy[c]++;
            }
            recorded++;
        }

        /** One task's invokes by the request being recorded. */
        @Override
        public void accept(TaskRef task, Integer n) {
            int count = n;
            Integer c = columns.get(Objects.requireNonNull(task, "task"));
            if (staged == stagedColumn.length) {
                stagedColumn = Arrays.copyOf(stagedColumn, 2 * staged);
                stagedCount = Arrays.copyOf(stagedCount, 2 * staged);
            }
            stagedColumn[staged] = c != null ? c : column(task);
            stagedCount[staged++] = count;
        }

        private int column(TaskRef task) {
            int column = taskCount++;
            if (column == tasks.length) {
                int more = 2 * column;
                tasks = Arrays.copyOf(tasks, more);
                invokes = Arrays.copyOf(invokes, more);
                named = Arrays.copyOf(named, more);
                total = Arrays.copyOf(total, more);
                namedBy = Arrays.copyOf(namedBy, more);
            }
            tasks[column] = task;
            invokes[column] = new int[window];
            named[column] = new boolean[window];
            columns.put(task, column);
            return column;
        }

        /** Mean invokes per request of each task seen, over the requests in the window; null before the first. */
        synchronized ClassVisits visits() {
            int requests = (int) Math.min(recorded, window);
            if (requests == 0) return null;
            Map<TaskRef, Double> mean = new HashMap<>();
            for (int c = 0; c < taskCount; c++)
                if (namedBy[c] > 0) mean.put(tasks[c], (double) total[c] / requests);
            return new ClassVisits(mean, requests);
        }
    }

    public PathAnalyzer(int window) {
        if (window < 1) throw new IllegalArgumentException("window must be at least 1, got " + window);
        this.window = window;
    }

    /** One finished request of {@code serviceClass}: how often it invoked each task. */
    public void record(String serviceClass, String composite, Map<TaskRef, Integer> invokes) {
        Map<String, Ring> composites = byClass.get(serviceClass);
        if (composites == null) composites = byClass.computeIfAbsent(serviceClass, k -> new ConcurrentHashMap<>());
        Ring ring = composites.get(composite);
        if (ring == null) ring = composites.computeIfAbsent(composite, k -> new Ring(window));
        ring.add(invokes);
    }

    /** Per class: visits of each task seen, and how many requests they come from. */
    public Map<String, ClassVisits> visits() {
        Map<String, ClassVisits> out = new HashMap<>();
        byClass.forEach((serviceClass, composites) -> composites.values().forEach(ring -> {
            ClassVisits v = ring.visits();
            if (v != null) out.merge(serviceClass, v, ClassVisits::merge);
        }));
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
