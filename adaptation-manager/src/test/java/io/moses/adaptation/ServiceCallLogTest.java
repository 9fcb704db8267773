package io.moses.adaptation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.model.TaskRef;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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
    void aReaderThatFallsBehindLosesTheOldestAndIsToldHowMany() {
        ServiceCallLog log = new ServiceCallLog(8);
        for (int i = 0; i < 20; i++) log.add(outcome(i));
        List<ServiceCall> got = new ArrayList<>();
        long lost = log.drain(got::add);
        assertEquals(12, lost);
        assertEquals(8, got.size());
        assertEquals("s12", got.get(0).service());
        assertEquals("s19", got.get(7).service());
        got.clear();
        assertEquals(0, log.drain(got::add));
        assertTrue(got.isEmpty());
    }
}
