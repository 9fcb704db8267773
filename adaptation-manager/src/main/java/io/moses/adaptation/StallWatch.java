package io.moses.adaptation;

import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds a concrete service that stopped answering before its calls time out (docs/model.md,
 * "Reaction between plans"). A service stalls when at least {@link #STALLED_CALLS} calls to it
 * have waited longer than its stall time ({@link #stallNanos}: {@link #P99_MULTIPLE} times the
 * p99 of its recent replies, at least {@link #FLOOR_NANOS}) and it answered no call during that
 * time. A provider that is only slow still answers some calls; one that hangs answers none.
 *
 * <p>A stalled service is out for failed calls, as if those calls had failed: new calls go
 * elsewhere and a trial call brings it back. The calls already sent are not failed: they may
 * have been processed, and each runs to its own reply or timeout, which is recorded. But the
 * broker stops waiting for those whose invocation may go elsewhere (an idempotent task's,
 * {@link CallsInFlight.Abandonable}): they go on as if the call had failed, so a retry or the
 * other member of a hedge answers. Once the service is out for failed calls, one such call
 * waiting that long is enough (its trial, say).
 *
 * <p>A service has at most one timer, armed by the first call that finds none for when that call
 * would stall; it re-arms while calls are in flight and lets go when none is, so a service
 * without calls costs nothing and one with many costs a timer per fraction of its stall time.
 * A timer that runs late judges nothing: the broker itself was paused (a collection, starved
 * threads), and the replies that came meanwhile may not have been read yet.
 */
final class StallWatch {
    private static final Logger log = LoggerFactory.getLogger(StallWatch.class);

    /** Calls that must wait past the stall time, unanswered, for a service to stall. */
    static final int STALLED_CALLS = 2;
    /**
     * The stall time in p99s of the service's replies. A lognormal latency with sigma 1 (the
     * stubs') exceeds four times its p99 in 3 calls of 10,000; two such calls at once, with no
     * reply between, is not noise.
     */
    static final double P99_MULTIPLE = 4;
    /**
     * The least stall time: a pause of the provider's process or of this machine shorter than
     * this is not a hang, and a request in flight then still answers well within its SLA.
     */
    static final long FLOOR_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /** Replies a p99 must be made of before it sets a stall time. */
    static final int MIN_REPLIES = 20;
    /** How late a timer may run and still judge (at least this, or a quarter of the stall time). */
    static final long LATE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** A reply updates the service's last answer at most once per this: no write on every reply. */
    static final long ANSWER_GRAIN_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long UNARMED = Long.MIN_VALUE;

    /** Called with the service whose calls stalled and why. */
    interface Stalled {
        void stalled(ProviderHealth.State service, String why);
    }

    private final LongSupplier clock;
    private final HedgeTimer.Scheduler scheduler;
    private final Executor sender;
    private final Stalled stalled;

    /**
     * @param scheduler the timer, whose thread only counts the calls in flight
     * @param sender    where abandoned calls' invocations go on from
     * @param stalled   takes a stalled service out of selection
     */
    StallWatch(LongSupplier clock, HedgeTimer.Scheduler scheduler, Executor sender, Stalled stalled) {
        this.clock = clock;
        this.scheduler = scheduler;
        this.sender = sender;
        this.stalled = stalled;
    }

    /** One service's watch: its stall time, its last answer, its timer. */
    static final class Watch {
        /** 0 until its replies gave a p99: no watch. */
        volatile long stallNanos;
        /** Clock nanos of the service's last answer (reply or fault), to {@link #ANSWER_GRAIN_NANOS}. */
        volatile long lastAnswer;
        /** The deadline the timer is armed for, UNARMED when none is. */
        final java.util.concurrent.atomic.AtomicLong armedFor = new java.util.concurrent.atomic.AtomicLong(UNARMED);

        Watch(long now) {
            this.lastAnswer = now;
        }
    }

    /** Sets the service's stall time from the p99 [s] of its recent replies. */
    static void expect(Watch w, double p99Seconds, int replies) {
        if (replies < MIN_REPLIES || !(p99Seconds > 0)) return; // keeps the last one
        w.stallNanos = Math.max(FLOOR_NANOS, Math.round(P99_MULTIPLE * p99Seconds * 1e9));
    }

    /** The service answered a call now. */
    static void answered(Watch w, long now) {
        if (now - w.lastAnswer > ANSWER_GRAIN_NANOS) w.lastAnswer = now;
    }

    /** A call to the service entered its slot at {@code start}: arms the timer if none is. */
    void entered(ProviderHealth.State s, long start) {
        Watch w = s.watch;
        long stall = w.stallNanos;
        if (stall <= 0 || w.armedFor.get() != UNARMED) return;
        long at = start + stall;
        if (w.armedFor.compareAndSet(UNARMED, at)) schedule(s, at);
    }

    private void schedule(ProviderHealth.State s, long at) {
        try {
            scheduler.schedule(() -> check(s, at), Math.max(0, at - clock.getAsLong()));
        } catch (RuntimeException e) { // the client is closing
            s.watch.armedFor.set(UNARMED);
        }
    }

    private void check(ProviderHealth.State s, long deadline) {
        Watch w = s.watch;
        try {
            long now = clock.getAsLong();
            long stall = w.stallNanos;
            long cutoff = now - stall;
            CallsInFlight.Census c = s.inFlight.census(cutoff);
            if (c.inFlight() == 0) {
                release(s, now, stall);
                return;
            }
            if (now - deadline > Math.max(LATE_NANOS, stall / 4)) {
                rearm(s, now + LATE_NANOS);
                return;
            }
            boolean silent = w.lastAnswer - cutoff <= 0;
            if (silent && c.old() > 0 && (c.old() >= STALLED_CALLS || s.outForCalls)) {
                if (c.old() >= STALLED_CALLS)
                    stalled.stalled(s, c.old() + " calls unanswered for " + TimeUnit.NANOSECONDS.toMillis(stall) + " ms, no reply meanwhile");
                s.inFlight.abandonOlderThan(cutoff, a -> sender.execute(a::abandon));
            }
            long next = c.earliestYoung() == Long.MAX_VALUE ? now + stall : c.earliestYoung() + stall;
            // calls old enough but an answer meanwhile: silent again a stall time after that answer
            if (c.old() > 0 && !silent) next = Math.min(next, w.lastAnswer + stall);
            rearm(s, Math.max(next, now + Math.max(LATE_NANOS, stall / 8)));
        } catch (RuntimeException e) {
            log.warn("the stall watch of {} failed: {}", s.name, e.toString());
            w.armedFor.set(UNARMED);
        }
    }

    private void rearm(ProviderHealth.State s, long at) {
        s.watch.armedFor.set(at);
        schedule(s, at);
    }

    /**
     * No call in flight: the timer lets go. A call that entered meanwhile saw it armed and did not
     * arm it: it is seen here after the release, and arms it.
     */
    private void release(ProviderHealth.State s, long now, long stall) {
        s.watch.armedFor.set(UNARMED);
        if (!s.inFlight.isEmpty() && s.watch.armedFor.compareAndSet(UNARMED, now + stall)) schedule(s, now + stall);
    }
}
