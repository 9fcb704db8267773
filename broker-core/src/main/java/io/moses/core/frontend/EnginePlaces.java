package io.moses.core.frontend;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * The places in the engine under the overload bound ({@link OverloadBound}), with a wait line
 * ordered by class worth: places go to waiting requests highest worth first, first come first
 * served within a worth.
 * When the line is full, a newcomer worth more than the least worth waiting takes the place of
 * the last of those (that request is {@link Verdict#DISPLACED}); one worth no more is
 * {@link Verdict#REFUSED} at once. A waiter not given a place within {@code maxWait} is
 * {@link Verdict#TIMED_OUT}.
 *
 * <p>Best-effort requests (a user's excess above its agreed rate, worth {@link ClassWorth#BEST_EFFORT},
 * below every class) take a place only while fewer than {@link #bestEffortPlaces} are running and
 * no other request waits: the rest of the places are kept for conforming requests (a running
 * request cannot be pre-empted, so excess holding the last places would make conforming arrivals
 * wait for it). Otherwise they wait last in line, are the first a full line displaces, and get a place freed
 * only while the running count is within their limit.
 *
 * <p>One monitor guards the counts and the line, held for a few map operations per request; a
 * waiting thread parks on its own and is unparked when its verdict is given. The clock is
 * injectable, so the order, displacement and timeouts are unit-tested without threads.
 */
final class EnginePlaces {
    enum Verdict { WAITING, PLACED, REFUSED, DISPLACED, TIMED_OUT }

    /** One request's claim on a place: {@link #verdict} is final once it is not {@code WAITING}. */
    static final class Ticket {
        final double worth;
        final long deadline;
        private final Thread thread;
        private volatile Verdict verdict;

        private Ticket(double worth, long deadline, Thread thread, Verdict verdict) {
            this.worth = worth;
            this.deadline = deadline;
            this.thread = thread;
            this.verdict = verdict;
        }

        Verdict verdict() {
            return verdict;
        }
    }

    private final OverloadBound bound;
    private final LongSupplier nanos;
    /** Waiting tickets by worth; each worth's line is first come first served. */
    private final TreeMap<Double, ArrayDeque<Ticket>> line = new TreeMap<>();
    private int waiting;
    private int running;
    private int bestEffortPlaces;

    EnginePlaces(OverloadBound bound, LongSupplier nanos) {
        this.bound = bound;
        this.nanos = nanos;
        this.bestEffortPlaces = RatePolicy.OFF.bestEffortPlaces(bound.maxInFlight());
    }

    /** How many running requests best-effort ones may join (1 to maxInFlight). */
    synchronized void bestEffortPlaces(int places) {
        bestEffortPlaces = Math.max(1, Math.min(bound.maxInFlight(), places));
    }

    private int limit(double worth) {
        return worth == ClassWorth.BEST_EFFORT ? bestEffortPlaces : bound.maxInFlight();
    }

    /** A place for {@code worth} at once: running below its limit and nobody of its worth or more waiting. */
    private boolean freeFor(double worth) {
        return running < limit(worth) && (line.isEmpty() || line.lastKey() < worth);
    }

    /** A place at once if one is free and nobody waits (the cheap path: no class needed); else {@link #enter}. */
    synchronized boolean tryTake() {
        if (running < bound.maxInFlight() && waiting == 0) {
            running++;
            return true;
        }
        return false;
    }

    /**
     * A request of {@code worth} asks for a place: PLACED (it holds one until {@link #release}),
     * REFUSED, or WAITING (then {@link #await} it). A request it displaced gets its verdict here.
     */
    Ticket enter(double worth) {
        Ticket displaced = null;
        Ticket t;
        synchronized (this) {
            if (freeFor(worth)) {
                running++;
                return new Ticket(worth, 0, null, Verdict.PLACED);
            }
            if (waiting >= bound.maxQueued()) {
                Map.Entry<Double, ArrayDeque<Ticket>> least = line.firstEntry();
                if (least == null || least.getKey() >= worth) return new Ticket(worth, 0, null, Verdict.REFUSED);
                displaced = least.getValue().pollLast(); // the last in line of the least worth
                if (least.getValue().isEmpty()) line.remove(least.getKey());
                waiting--;
                displaced.verdict = Verdict.DISPLACED;
            }
            t = new Ticket(worth, nanos.getAsLong() + bound.maxWait().toNanos(), Thread.currentThread(), Verdict.WAITING);
            line.computeIfAbsent(worth, w -> new ArrayDeque<>()).addLast(t);
            waiting++;
        }
        if (displaced != null) LockSupport.unpark(displaced.thread);
        return t;
    }

    /**
     * Parks until {@code t} has its verdict or its deadline passes (by the clock); a waiter whose
     * deadline has passed leaves the line TIMED_OUT. Returns the final verdict.
     */
    Verdict await(Ticket t) {
        while (t.verdict == Verdict.WAITING) {
            long left = t.deadline - nanos.getAsLong();
            if (left <= 0) {
                leave(t);
                break;
            }
            LockSupport.parkNanos(this, left);
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                leave(t);
                break;
            }
        }
        return t.verdict;
    }

    /** A waiter gives up (deadline or interrupt), unless its verdict came first. */
    private synchronized void leave(Ticket t) {
        if (t.verdict != Verdict.WAITING) return;
        ArrayDeque<Ticket> same = line.get(t.worth);
        same.remove(t);
        if (same.isEmpty()) line.remove(t.worth);
        waiting--;
        t.verdict = Verdict.TIMED_OUT;
    }

    /**
     * A request that held a place is done: its place goes to the first waiter of the highest worth, if
     * any (a best-effort one only if the running count without this one is below its limit).
     */
    void release() {
        Ticket next;
        synchronized (this) {
            Map.Entry<Double, ArrayDeque<Ticket>> best = line.lastEntry();
            if (best == null || running > limit(best.getKey())) {
                running--;
                return;
            }
            next = best.getValue().pollFirst();
            if (best.getValue().isEmpty()) line.remove(best.getKey());
            waiting--;
            next.verdict = Verdict.PLACED; // the place passes on: running stays the same
        }
        LockSupport.unpark(next.thread);
    }

    synchronized int waiting() {
        return waiting;
    }

    synchronized int bestEffortPlaces() {
        return bestEffortPlaces;
    }

    synchronized int running() {
        return running;
    }
}
