package io.moses.adaptation;

import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hedged pairs' timer: runs a hedge's second call when its first has not answered by the
 * deadline. One timer stands for every hedge that waits: it is armed for the earliest deadline,
 * and a hedge whose first call answers in time clears its entry instead of cancelling a timer.
 * A timer per hedge, cancelled when the first call answered (most do), woke the timer's thread
 * twice per hedge: once when armed on an empty queue, once at the cancelled timer's deadline.
 * Now it wakes about twice per delay at most (armed, then due) while hedges come in, whatever
 * their number.
 */
final class HedgeTimer {
    private static final Logger log = LoggerFactory.getLogger(HedgeTimer.class);

    /** Runs a brief task after a delay (nanoseconds) on a timer's thread. */
    interface Scheduler {
        void schedule(Runnable task, long delayNanos);
    }

    /** A hedge waiting for its deadline; {@link #clear} when its first call has answered. */
    static final class Entry {
        final long deadline;
        private volatile Runnable second;

        Entry(long deadline, Runnable second) {
            this.deadline = deadline;
            this.second = second;
        }

        /** The hedge no longer needs its second call: the timer drops the entry without running it. */
        void clear() {
            second = null;
        }
    }

    private final Scheduler scheduler;
    private final Executor sender;
    private final LongSupplier clock;
    private final ConcurrentLinkedQueue<Entry> waiting = new ConcurrentLinkedQueue<>();
    /** The deadline a timer is armed for, the earliest of those armed; MAX_VALUE when none is. */
    private final AtomicLong armedFor = new AtomicLong(Long.MAX_VALUE);

    /**
     * @param scheduler the timer, whose thread only looks for the hedges due
     * @param sender    where their second calls are sent from
     */
    HedgeTimer(Scheduler scheduler, Executor sender, LongSupplier clock) {
        this.scheduler = scheduler;
        this.sender = sender;
        this.clock = clock;
    }

    /** Runs {@code second} after {@code delayNanos} unless the entry returned is cleared first. */
    Entry after(long delayNanos, Runnable second) {
        Entry e = new Entry(clock.getAsLong() + delayNanos, second);
        waiting.add(e);
        arm(e.deadline);
        return e;
    }

    /** Hedges waiting, cleared ones included until the timer next runs: for tests. */
    int waiting() {
        return waiting.size();
    }

    /**
     * Makes sure a timer runs at {@code deadline} or earlier. A timer armed before for a later
     * deadline stays armed, and does nothing when it runs (see {@link #run}).
     */
    private void arm(long deadline) {
        for (long armed; (armed = armedFor.get()) > deadline; )
            if (armedFor.compareAndSet(armed, deadline)) {
                scheduler.schedule(() -> run(deadline), Math.max(0, deadline - clock.getAsLong()));
                return;
            }
    }

    /**
     * The timer armed for {@code deadline}: runs the second calls due, drops the cleared entries
     * and arms for the earliest deadline left. Every entry waiting has a timer armed for its
     * deadline or an earlier one, or is seen by a timer running: a timer armed for a deadline that
     * is no longer {@link #armedFor} (an earlier one came) has nothing to do. The one that is
     * disarms first, so that an entry added meanwhile arms a timer itself or is seen here.
     */
    private void run(long deadline) {
        if (!armedFor.compareAndSet(deadline, Long.MAX_VALUE)) return;
        long now = clock.getAsLong();
        long next = Long.MAX_VALUE;
        for (Iterator<Entry> it = waiting.iterator(); it.hasNext(); ) {
            Entry e = it.next();
            Runnable second = e.second;
            if (second == null) {
                it.remove();
            } else if (e.deadline <= now) {
                it.remove();
                e.clear();
                try {
                    sender.execute(second);
                } catch (RuntimeException ex) { // the client is closing
                    log.warn("a hedge's second call could not be sent: {}", ex.toString());
                }
            } else {
                next = Math.min(next, e.deadline);
            }
        }
        if (next != Long.MAX_VALUE) arm(next);
    }
}
