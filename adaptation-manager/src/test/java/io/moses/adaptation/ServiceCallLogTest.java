package io.moses.adaptation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.model.TaskRef;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class ServiceCallLogTest {
    static ServiceCall outcome(int i) {
        return new ServiceCall("s" + i, TaskRef.of("c", "p", "o"), "gold", i, CallEnd.REPLY, true, i);
    }

    @Test
    void concurrentWritersLoseNothingWhenTheReaderKeepsUp() throws Exception {
        ServiceCallLog log = new ServiceCallLog(1 << 16);
        List<Thread> writers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int base = t * 10_000;
            writers.add(new Thread(() -> { for (int i = 0; i < 10_000; i++) log.add(outcome(base + i)); }));
        }
        writers.forEach(Thread::start);
        for (Thread w : writers) w.join();
        Set<String> seen = new HashSet<>();
        assertEquals(0, log.drain(o -> seen.add(o.service())));
        assertEquals(40_000, seen.size());
    }

    @Test
    void aReaderDrainingWhileWritersWriteGetsWholeRecordsOnceAndCountsTheRest() throws Exception {
        // a small queue, so that it is often full and writers wait on the reader's slots: every
        // record handed over must be one call's fields (service sI with latency I and end I),
        // none twice, and what is handed over and what is counted as not recorded add up to
        // what was written
        ServiceCallLog log = new ServiceCallLog(64);
        int writers = 4, each = 50_000;
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < writers; t++) {
            int base = t * each;
            threads.add(new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < each; i++) log.add(outcome(base + i));
            }));
        }
        threads.forEach(Thread::start);
        Set<String> seen = new HashSet<>();
        List<String> broken = new ArrayList<>();
        Consumer<ServiceCall> check = o -> {
            long i = Long.parseLong(o.service().substring(1));
            if (o.nanos() != i || o.atNanos() != i || !seen.add(o.service())) broken.add(o.toString());
        };
        long lost = 0;
        go.countDown();
        while (threads.stream().anyMatch(Thread::isAlive)) lost += log.drain(check);
        for (Thread w : threads) w.join();
        lost += log.drain(check);
        assertEquals(List.of(), broken);
        assertEquals(writers * each, seen.size() + lost, seen.size() + " handed over, " + lost + " not recorded");
        assertTrue(seen.size() >= 64, seen.size() + " handed over");
    }

    @Test
    void whenTheReaderFallsACapacityBehindTheNewestAreNotRecordedAndTheReaderIsToldHowMany() {
        ServiceCallLog log = new ServiceCallLog(8);
        for (int i = 0; i < 20; i++) log.add(outcome(i));
        List<ServiceCall> got = new ArrayList<>();
        long lost = log.drain(got::add);
        assertEquals(12, lost);
        assertEquals(8, got.size());
        assertEquals("s0", got.get(0).service());
        assertEquals("s7", got.get(7).service());
        got.clear();
        assertEquals(0, log.drain(got::add));
        assertTrue(got.isEmpty());
        // drained, the slots are free again, for the next lap
        for (int i = 20; i < 28; i++) log.add(outcome(i));
        assertEquals(0, log.drain(got::add));
        assertEquals(8, got.size());
        assertEquals("s20", got.get(0).service());
    }
}
