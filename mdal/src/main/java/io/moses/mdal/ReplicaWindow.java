package io.moses.mdal;

import java.time.Instant;

/**
 * One replica's current monitoring window for one concrete service: what its QoS Monitor saw
 * (successes, failures, mean response time of the successes), published for the leader.
 */
public record ReplicaWindow(String replica, String service, long successes, long failures, double responseTime, Instant at) {
    public ReplicaWindow {
        if (successes < 0 || failures < 0) throw new IllegalArgumentException("successes and failures must be >= 0");
        if (!(responseTime >= 0) || Double.isInfinite(responseTime))
            throw new IllegalArgumentException("responseTime must be a number >= 0, was " + responseTime);
    }

    public long samples() {
        return successes + failures;
    }
}
