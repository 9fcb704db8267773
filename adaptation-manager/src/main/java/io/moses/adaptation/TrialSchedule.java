package io.moses.adaptation;

import java.util.concurrent.TimeUnit;

/**
 * When a concrete service ejected for failed calls gets its trial call (docs/model.md, "Reaction
 * between plans"): the half-open state of a circuit breaker. The first trial is due a back-off
 * after the ejection; each failed trial doubles it (1 s, 2 s, 4 s ... at most 60 s), so a
 * provider that hangs while its WSDL still answers receives a number of calls bounded by this
 * schedule. One trial at a time. A service ejected again soon (within the longest back-off)
 * after it came back resumes the back-off where it was, so a provider that flaps does not get a
 * trial a second.
 */
final class TrialSchedule {
    static final long FIRST_NANOS = TimeUnit.SECONDS.toNanos(1);
    static final long MAX_NANOS = TimeUnit.SECONDS.toNanos(60);

    private long backoff = FIRST_NANOS;
    private long dueAt;
    private boolean trialInFlight;
    private boolean reinstated;
    private long reinstatedAt;

    /** The service is out for failed calls, from {@code now} (clock nanos). */
    synchronized void ejected(long now) {
        backoff = reinstated && now - reinstatedAt < MAX_NANOS ? Math.min(2 * backoff, MAX_NANOS) : FIRST_NANOS;
        dueAt = now + backoff;
        trialInFlight = false;
    }

    /** True if a trial is due and none is in flight: the caller's call is the trial. */
    synchronized boolean tryTrial(long now) {
        if (trialInFlight || now - dueAt < 0) return false;
        trialInFlight = true;
        return true;
    }

    /**
     * A call to the service ended, with an answer or with a failure that blames the provider;
     * returns true if it was the trial (calls are not told apart: any call that ends while the
     * trial is in flight stands for it). An answered trial reinstates it; a failed one doubles the
     * back-off.
     */
    synchronized boolean callEnded(long now, boolean answered) {
        if (!trialInFlight) return false;
        trialInFlight = false;
        if (answered) {
            reinstated = true;
            reinstatedAt = now;
        } else {
            backoff = Math.min(2 * backoff, MAX_NANOS);
            dueAt = now + backoff;
        }
        return true;
    }

    /** A probe found the service back after it was down: the next call may be the trial, whatever the back-off. */
    synchronized void dueNow(long now) {
        if (now - dueAt < 0) dueAt = now;
    }

    /** The trial said nothing of the provider (cancelled, refused locally): the next call may be one. */
    synchronized void trialUndecided() {
        trialInFlight = false;
    }

    synchronized long backoffMillis() {
        return TimeUnit.NANOSECONDS.toMillis(backoff);
    }

    /** Clock nanos when the next trial is due. */
    synchronized long dueAt() {
        return dueAt;
    }
}
