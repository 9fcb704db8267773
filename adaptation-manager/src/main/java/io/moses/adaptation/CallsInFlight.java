package io.moses.adaptation;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The calls in flight to one concrete service: at most a fixed number, each holding a slot with
 * its start time, so that more are refused at once and the QoS Monitor sees how long the calls
 * now in flight have waited. A call takes a slot with one compare-and-set and gives it back with
 * one store; this replaced a semaphore and a concurrent map, which allocated a node, locked a bin
 * and updated shared counters for every call.
 */
final class CallsInFlight {
    private static final long FREE = Long.MIN_VALUE;
    /** Start times (clock nanos) of the calls holding a slot; FREE where none does. */
    private final AtomicLongArray starts;
    /** The calls the broker may stop waiting for ({@link Abandonable}), by slot; null for the others. */
    private final AtomicReferenceArray<Abandonable> abandonable;

    /**
     * A call whose invocation may go elsewhere if its provider stalls (an idempotent task's): the
     * broker stops waiting for it, and the call runs on to its own end.
     */
    interface Abandonable {
        /** The call's start (clock nanos), as it entered. */
        long start();

        /** Stops waiting: the invocation goes on as if the call had failed. Called at most once. */
        void abandon();
    }

    CallsInFlight(int capacity) {
        if (capacity < 1) throw new IllegalArgumentException("at least one call must be allowed in flight, not " + capacity);
        starts = new AtomicLongArray(capacity);
        abandonable = new AtomicReferenceArray<>(capacity);
        for (int i = 0; i < capacity; i++) starts.set(i, FREE);
    }

    /**
     * Takes a slot for a call that started at {@code start}; -1 when every slot is taken. The
     * search starts at a random slot: no counter is shared between the threads that call.
     */
    int enter(long start) {
        int n = starts.length();
        long value = start == FREE ? FREE + 1 : start;
        int first = n == 1 ? 0 : ThreadLocalRandom.current().nextInt(n);
        for (int k = 0; k < n; k++) {
            int i = first + k < n ? first + k : first + k - n;
            if (starts.get(i) == FREE && starts.compareAndSet(i, FREE, value)) return i;
        }
        return -1;
    }

    /** The call in {@code slot} may be abandoned if its provider stalls. */
    void abandonable(int slot, Abandonable call) {
        abandonable.set(slot, call);
    }

    /** Gives back the slot {@link #enter} gave. */
    void exit(int slot) {
        // before the slot is free: a call that takes it next must not lose its own
        if (abandonable.get(slot) != null) abandonable.set(slot, null);
        starts.set(slot, FREE);
    }

    /**
     * Abandons each abandonable call that started at or before {@code cutoff}, once; returns how
     * many. A call is taken from its slot with its start, so one that entered the slot since is
     * not taken for it.
     */
    int abandonOlderThan(long cutoff, java.util.function.Consumer<Abandonable> abandon) {
        int n = 0;
        for (int i = 0; i < abandonable.length(); i++) {
            Abandonable a = abandonable.get(i);
            if (a != null && a.start() - cutoff <= 0 && abandonable.compareAndSet(i, a, null)) {
                abandon.accept(a);
                n++;
            }
        }
        return n;
    }

    /**
     * The calls in flight: how many, how many started at or before {@code cutoff}, and the
     * earliest start after it (Long.MAX_VALUE if none).
     */
    Census census(long cutoff) {
        int inFlight = 0, old = 0;
        long earliestYoung = Long.MAX_VALUE;
        for (int i = 0; i < starts.length(); i++) {
            long start = starts.get(i);
            if (start == FREE) continue;
            inFlight++;
            if (start - cutoff <= 0) old++;
            else if (earliestYoung == Long.MAX_VALUE || start - earliestYoung < 0) earliestYoung = start;
        }
        return new Census(inFlight, old, earliestYoung);
    }

    /** What {@link #census} counted; {@code earliestYoung}: the first start after the cutoff. */
    record Census(int inFlight, int old, long earliestYoung) {}

    int capacity() {
        return starts.length();
    }

    boolean isEmpty() {
        for (int i = 0; i < starts.length(); i++)
            if (starts.get(i) != FREE) return false;
        return true;
    }

    /** Ages [s] at {@code now} of the calls in flight (empty if none). */
    double[] ages(long now) {
        double[] ages = new double[starts.length()];
        int k = 0;
        for (int i = 0; i < starts.length(); i++) {
            long start = starts.get(i);
            if (start != FREE) ages[k++] = Math.max(0, now - start) / 1e9;
        }
        return java.util.Arrays.copyOf(ages, k);
    }
}
