package io.moses.monitor;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The condition of the drift rules (docs/model.md, "What triggers a new plan"): an observed value that differs from
 * the value the current plan assumed by more than a threshold, for longer than a hold time,
 * fires once per episode. The difference is relative to the baseline, but never measured
 * against less than {@code floor} (so tiny baselines do not fire on noise).
 *
 * @param <K> what is observed: a concrete service, a (class, task), ...
 */
public final class DriftDetector<K> {
    private final double threshold;
    private final double floor;
    private final long holdNanos;
    private final boolean proportional;
    private final Map<K, Long> driftingSince = new HashMap<>();
    private final Map<K, Boolean> fired = new HashMap<>();

    /** A value that drifted: what the plan assumed, what is observed now, since when [nanos] it drifts. */
    public record Drift<K>(K key, double baseline, double observed, long sinceNanos) {}

    public DriftDetector(double threshold, double floor, long holdMillis) {
        this(threshold, floor, holdMillis, false);
    }

    private DriftDetector(double threshold, double floor, long holdMillis, boolean proportional) {
        this.threshold = threshold;
        this.floor = floor;
        this.holdNanos = holdMillis * 1_000_000L;
        this.proportional = proportional;
    }

    /**
     * A detector whose hold shrinks as the drift grows: a drift of d times the threshold must
     * last hold / d (a drift just past the threshold the whole hold; 10 ms -> 300 ms with a 50 %
     * threshold, 1/58 of it). Small drifts still need to persist; large ones act at once.
     */
    public static <K> DriftDetector<K> proportional(double threshold, double floor, long holdMillis) {
        return new DriftDetector<>(threshold, floor, holdMillis, true);
    }

    /** Checks every key observed now against its baseline; keys without a baseline are skipped. */
    public synchronized List<Drift<K>> check(Map<K, Double> observed, Map<K, Double> baseline, long nowNanos) {
        return check(observed, baseline, nowNanos, 0);
    }

    /**
     * Like {@link #check(Map, Map, long)} for observations that summarize the last {@code spanNanos}
     * (the mean of a monitor period): a new drift episode began at least that long ago.
     */
    public synchronized List<Drift<K>> check(Map<K, Double> observed, Map<K, Double> baseline, long nowNanos, long spanNanos) {
        List<Drift<K>> out = new ArrayList<>();
        for (var e : observed.entrySet()) {
            Double base = baseline.get(e.getKey());
            double obs = e.getValue();
            if (base == null || Double.isNaN(obs)) continue;
            double allowed = threshold * Math.max(Math.abs(base), floor);
            boolean drifting = Math.abs(obs - base) > allowed;
            if (!drifting) {
                driftingSince.remove(e.getKey());
                fired.remove(e.getKey());
                continue;
            }
            long since = driftingSince.computeIfAbsent(e.getKey(), k -> nowNanos - spanNanos);
            long hold = proportional && allowed > 0 ? (long) (holdNanos * Math.min(1, allowed / Math.abs(obs - base))) : holdNanos;
            if (nowNanos - since >= hold && !fired.getOrDefault(e.getKey(), false)) {
                fired.put(e.getKey(), true);
                out.add(new Drift<>(e.getKey(), base, obs, since));
            }
        }
        return out;
    }

    /** Forgets every episode: after a new plan, its values are the new baselines. */
    public synchronized void reset() {
        driftingSince.clear();
        fired.clear();
    }
}
