package io.moses.adaptation;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLongArray;

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

    CallsInFlight(int capacity) {
        if (capacity < 1) throw new IllegalArgumentException("at least one call must be allowed in flight, not " + capacity);
        starts = new AtomicLongArray(capacity);
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

    /** Gives back the slot {@link #enter} gave. */
    void exit(int slot) {
        starts.set(slot, FREE);
    }

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
