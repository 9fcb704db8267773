package io.moses.core.loop;

import io.moses.monitor.QosMonitor;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the monitors' observations say of a concrete service, where they replace its provider's
 * promise (docs/model.md, "Estimates from observations"): shared by the drift rules, the
 * baselines they compare against and the planning input, so that all three read one estimate.
 */
final class ServiceEstimates {
    /**
     * Weight of the Beta prior on a provider's promised availability, in calls: a few seconds of
     * successes do not read as 1.0 (docs/model.md, "Estimates from observations").
     */
    static final double PRIOR_WEIGHT = 30;

    private final int minSamples;
    /**
     * Services whose response time drifted: their outcomes from before the change are forgotten,
     * and what they did since stands for them even with fewer than the minimum samples.
     */
    private final Map<String, Long> changed = new ConcurrentHashMap<>();

    /** @param minSamples replies (censored included) a window needs before it replaces a promise */
    ServiceEstimates(int minSamples) {
        this.minSamples = minSamples;
    }

    /**
     * The observed response time that replaces the provider's promise: once the window holds
     * the minimum samples (replies, censored included), or at once for a service whose
     * response time drifted (what it does since the change); null to keep the promise.
     */
    Double responseTime(String service, QosMonitor.ServiceStats s) {
        if (Double.isNaN(s.responseTime())) return null;
        if (s.successes() + s.censored() >= minSamples) {
            changed.remove(service);
            return s.responseTime();
        }
        return changed.containsKey(service) ? s.responseTime() : null;
    }

    /** The availability estimate: the Beta posterior on the promise, honest with few samples (no minimum). */
    static double availability(double promised, QosMonitor.ServiceStats s) {
        return s.availability(promised, PRIOR_WEIGHT);
    }

    /** The service's response time changed about {@code sinceNanos}: what it does since stands for it. */
    void changed(String service, long sinceNanos) {
        changed.put(service, sinceNanos);
    }
}
