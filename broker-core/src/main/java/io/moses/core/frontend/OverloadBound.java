package io.moses.core.frontend;

import java.time.Duration;

/**
 * The overload bound: how many composite requests the broker runs at once, and how many more may
 * wait for a turn (not SLA admission control, which decides who may subscribe: io.moses.sla).
 * Past saturation more requests in the engine only add threads and lock contention: throughput
 * falls while every request gets slower. Beyond {@code maxInFlight + maxQueued} (or after
 * {@code maxWait} in the queue) a request is refused at once (the class worth least first:
 * {@link EnginePlaces}) with HTTP 503, a SOAP fault that says why, and {@code Retry-After},
 * before its body is even parsed.
 *
 * @param maxInFlight composite requests running at once (each holds a request thread and a process instance)
 * @param maxQueued   requests that may wait for one of them to finish
 * @param maxWait     how long a queued request waits before it is refused
 */
public record OverloadBound(int maxInFlight, int maxQueued, Duration maxWait) {
    public OverloadBound {
        if (maxInFlight < 1) throw new IllegalArgumentException("max in flight must be at least 1, got " + maxInFlight);
        if (maxQueued < 0) throw new IllegalArgumentException("max queued must not be negative, got " + maxQueued);
        if (maxWait.isNegative()) throw new IllegalArgumentException("max wait must not be negative");
    }

    /**
     * 64 at once: enough for ~600 composite req/s with partners answering in 100 ms, the most
     * two cores serve; as many again queued for up to 2 s.
     */
    public static OverloadBound defaults() {
        return new OverloadBound(64, 64, Duration.ofSeconds(2));
    }

    /** Request threads the front-end needs: every running and queued request holds one, plus room for health, metrics and admin. */
    public int threads() {
        return maxInFlight + maxQueued + 32;
    }
}
