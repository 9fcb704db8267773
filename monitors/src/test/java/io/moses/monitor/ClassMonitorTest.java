package io.moses.monitor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ClassMonitorTest {
    @Test
    void responseTimeAndAvailabilityOverTheLastRequests() {
        ClassMonitor m = new ClassMonitor(4);
        m.record("gold", 0.1, true);
        m.record("gold", 0.3, false);
        m.record("silver", 2.0, true);
        ClassMonitor.ClassStats gold = m.snapshot().get("gold");
        assertEquals(2, gold.requests());
        assertEquals(0.2, gold.responseTime(), 1e-9);
        assertEquals(0.5, gold.availability(), 1e-9);
        for (int i = 0; i < 4; i++) m.record("gold", 1.0, true); // the first two leave the window of 4
        gold = m.snapshot().get("gold");
        assertEquals(4, gold.requests());
        assertEquals(1.0, gold.responseTime(), 1e-9);
        assertEquals(1.0, gold.availability(), 1e-9);
        assertEquals(2.0, m.snapshot().get("silver").responseTime(), 1e-9);
    }

    @Test
    void concurrentRecordsAreNeitherLostNorTorn() throws Exception {
        ClassMonitor m = new ClassMonitor(1000);
        Thread[] threads = new Thread[8];
        for (int t = 0; t < threads.length; t++) {
            boolean ok = t % 2 == 0;
            double seconds = ok ? 0.5 : 1.5;
            threads[t] = new Thread(() -> {
                for (int i = 0; i < 10_000; i++) m.record("gold", seconds, ok);
            });
        }
        for (Thread t : threads) t.start();
        for (Thread t : threads) t.join();
        ClassMonitor.ClassStats s = m.snapshot().get("gold");
        assertEquals(1000, s.requests());
        // every slot pairs a time with its own outcome: successes took 0.5 s, failures 1.5 s
        assertEquals(0.5 + (1 - s.availability()), s.responseTime(), 1e-9);
    }
}
