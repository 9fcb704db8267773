package io.moses.adaptation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The stall watch on a clock and a timer the test moves: a service stalls when two calls wait
 * past four p99s (at least 500 ms) with no answer meanwhile; its abandonable calls are abandoned,
 * the others run on; one answer, one call, a missing p99 or a late timer stall nothing.
 */
class StallWatchTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    /** The timer's tasks, with the clock nanos each is due at; the test runs them. */
    private final List<long[]> dueAt = new ArrayList<>();
    private final List<Runnable> tasks = new ArrayList<>();
    private final ProviderHealth health = new ProviderHealth(16, 3, now::get, Clock.fixed(Instant.EPOCH, ZoneOffset.UTC),
            (task, delay) -> {
                dueAt.add(new long[] {now.get() + delay});
                tasks.add(task);
            }, Runnable::run);
    private final ProviderHealth.State a = health.state("a");

    /** A call that counts its abandonment. */
    private final class Call implements CallsInFlight.Abandonable {
        final long start = now.get();
        final AtomicInteger abandoned = new AtomicInteger();
        final int slot;

        Call(boolean abandonable) {
            slot = a.inFlight.enter(start);
            if (abandonable) a.inFlight.abandonable(slot, this);
            health.entered(a, start);
        }

        @Override
        public long start() {
            return start;
        }

        @Override
        public void abandon() {
            abandoned.incrementAndGet();
        }

        void answered() {
            a.inFlight.exit(slot);
            health.observe("a", CallEnd.REPLY, now.get());
        }
    }

    private void advance(long millis) {
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    /** Runs the timer's tasks that are due now, as its thread would (those they schedule wait their turn). */
    private int runDue() {
        int ran = 0;
        for (int i = 0; i < tasks.size(); i++)
            if (dueAt.get(i)[0] <= now.get()) {
                Runnable t = tasks.remove(i);
                dueAt.remove(i--);
                t.run();
                ran++;
            }
        return ran;
    }

    @Test
    void twoCallsUnansweredPastTheStallTimeEjectTheServiceAndAbandonOnlyTheAbandonableOnes() {
        health.expect("a", 0.010, 100); // p99 10 ms: the stall time is the floor, 500 ms
        Call idempotent = new Call(true);
        Call once = new Call(false);
        assertEquals(1, tasks.size(), "one timer for the service, however many calls");
        advance(499);
        assertEquals(0, runDue());
        advance(1);
        assertEquals(1, runDue());
        assertTrue(health.ejected("a"), "two calls unanswered for 500 ms, no reply meanwhile");
        assertEquals(1, idempotent.abandoned.get(), "the idempotent call goes elsewhere");
        assertEquals(0, once.abandoned.get(), "the other call runs on: it may have been processed");
        assertEquals(2, a.inFlight.census(now.get()).inFlight(), "both calls are still in flight");
        // the timer keeps watching while calls are in flight, and abandons a call once
        advance(1000);
        runDue();
        advance(StallWatch.LATE_NANOS / 1_000_000);
        runDue();
        assertEquals(1, idempotent.abandoned.get());
    }

    @Test
    void aReplyMeanwhileOrASingleCallStallsNothing() {
        health.expect("a", 0.010, 100);
        Call first = new Call(true);
        Call second = new Call(true);
        advance(300);
        Call quick = new Call(true);
        quick.answered(); // the provider answers: it is slow for some calls, not hung
        advance(200);
        runDue();
        assertFalse(health.ejected("a"));
        assertEquals(0, first.abandoned.get() + second.abandoned.get());
        // 500 ms after that answer, with both still waiting, it has answered nothing for the whole stall time
        advance(300);
        runDue();
        assertTrue(health.ejected("a"));

        ProviderHealth.State b = health.state("b");
        health.expect("b", 0.010, 100);
        int slot = b.inFlight.enter(now.get());
        health.entered(b, now.get());
        advance(2000);
        runDue();
        assertFalse(health.ejected("b"), "one call that waits long is a slow call, not a hang");
        b.inFlight.exit(slot);
    }

    @Test
    void onceOutForFailedCallsOneAbandonableCallWaitingPastTheStallTimeIsAbandoned() {
        health.expect("a", 0.010, 100);
        for (int i = 0; i < 3; i++) health.observe("a", CallEnd.TIMEOUT);
        assertTrue(health.ejected("a"));
        Call trial = new Call(true);
        advance(500);
        runDue();
        assertEquals(1, trial.abandoned.get(), "a trial of an idempotent task that hangs does not hold its request");
    }

    @Test
    void noTimerWithoutAP99OfEnoughRepliesAndNoneLeftWhenNoCallIsInFlight() {
        health.expect("a", 0.010, StallWatch.MIN_REPLIES - 1);
        new Call(true);
        assertEquals(0, tasks.size(), "no stall time yet: no watch");

        health.expect("a", 0.200, 100); // p99 200 ms: four of them, 800 ms
        Call c = new Call(true);
        Call d = new Call(true);
        advance(500);
        runDue();
        assertFalse(health.ejected("a"), "the stall time is four p99s, above the floor");
        c.answered();
        d.answered();
        advance(1000);
        runDue();
        // the first call (no watch then) is still in flight and holds the timer; once it ends, the timer lets go
        for (int i = 0; i < a.inFlight.capacity(); i++) a.inFlight.exit(i);
        advance(1000);
        runDue();
        assertEquals(0, tasks.size(), "no call in flight: no timer");
        new Call(true);
        assertEquals(1, tasks.size(), "the next call arms it again");
    }

    @Test
    void aTimerThatRunsLateJudgesNothing() {
        health.expect("a", 0.010, 100);
        new Call(true);
        new Call(true);
        advance(500 + 200); // the timer's thread was held 200 ms past its deadline: so were the replies' threads
        runDue();
        assertFalse(health.ejected("a"), "a late timer judges nothing");
        advance(StallWatch.LATE_NANOS / 1_000_000);
        runDue();
        assertTrue(health.ejected("a"), "the next, on time, does");
    }
}
