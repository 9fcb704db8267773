package io.moses.adaptation;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CallsInFlightTest {
    @Test
    void refusesACallWhenEverySlotIsTakenAndTakesOneAgainOnceACallEnds() {
        CallsInFlight calls = new CallsInFlight(3);
        assertTrue(calls.isEmpty());
        int a = calls.enter(1_000_000_000L), b = calls.enter(2_000_000_000L), c = calls.enter(2_500_000_000L);
        assertTrue(a >= 0 && b >= 0 && c >= 0);
        assertEquals(3, Arrays.stream(new int[] {a, b, c}).distinct().count(), "one slot per call");
        assertEquals(-1, calls.enter(3_000_000_000L), "a fourth call is refused");
        double[] ages = calls.ages(3_000_000_000L);
        Arrays.sort(ages);
        assertArrayEquals(new double[] {0.5, 1.0, 2.0}, ages, 1e-9);
        calls.exit(b);
        assertArrayEquals(new double[] {0.5, 2.0}, sorted(calls.ages(3_000_000_000L)), 1e-9);
        int d = calls.enter(3_000_000_000L);
        assertNotEquals(-1, d, "the slot given back is taken again");
        calls.exit(a);
        calls.exit(c);
        calls.exit(d);
        assertTrue(calls.isEmpty());
        assertEquals(0, calls.ages(4_000_000_000L).length);
    }

    @Test
    void aCallThatStartedAtTheClocksSmallestValueStillHoldsItsSlot() {
        CallsInFlight calls = new CallsInFlight(1);
        int slot = calls.enter(Long.MIN_VALUE);
        assertEquals(0, slot);
        assertFalse(calls.isEmpty());
        assertEquals(-1, calls.enter(0));
    }

    @Test
    void concurrentCallsNeverHoldMoreSlotsThanAllowedNorOneSlotTwice() throws Exception {
        int capacity = 2, threads = 4, rounds = 50_000;
        CallsInFlight calls = new CallsInFlight(capacity);
        AtomicIntegerArray holder = new AtomicIntegerArray(capacity); // 0: nobody, else thread number + 1
        AtomicLong entered = new AtomicLong(), refused = new AtomicLong();
        List<String> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int me = t + 1;
            Thread w = new Thread(() -> {
                try {
                    start.await();
                } catch (Exception e) {
                    errors.add(e.toString());
                    return;
                }
                for (int r = 0; r < rounds; r++) {
                    int slot = calls.enter(r);
                    if (slot < 0) {
                        refused.incrementAndGet();
                        continue;
                    }
                    entered.incrementAndGet();
                    if (!holder.compareAndSet(slot, 0, me)) errors.add("slot " + slot + " held twice");
                    Thread.onSpinWait();
                    if (!holder.compareAndSet(slot, me, 0)) errors.add("slot " + slot + " taken from its holder");
                    calls.exit(slot);
                }
            });
            workers.add(w);
            w.start();
        }
        for (Thread w : workers) w.join();
        assertEquals(List.of(), errors);
        assertEquals((long) threads * rounds, entered.get() + refused.get());
        assertTrue(entered.get() > 0);
        assertTrue(calls.isEmpty(), "every slot given back");
    }

    private static double[] sorted(double[] a) {
        Arrays.sort(a);
        return a;
    }
}
