package io.moses.monitor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.adaptation.CallEnd;
import io.moses.adaptation.ServiceCall;
import io.moses.model.TaskRef;
import org.junit.jupiter.api.Test;

class QosMonitorTest {
    static final TaskRef T = TaskRef.of("c", "p", "o");

    static ServiceCall o(String s, double seconds, CallEnd kind, long at) {
        return new ServiceCall(s, T, "gold", (long) (seconds * 1e9), kind, true, at);
    }

    @Test
    void meanOfSuccessesAvailabilityAndPercentiles() {
        QosMonitor m = new QosMonitor(1000, 60_000);
        long now = System.nanoTime();
        for (int i = 1; i <= 100; i++) m.record(o("a", i / 1000.0, CallEnd.REPLY, now));
        for (int i = 0; i < 25; i++) m.record(o("a", 5.0, CallEnd.PROTOCOL, now));
        for (int i = 0; i < 50; i++) m.record(o("a", 9.0, CallEnd.CANCELLED, now));
        for (int i = 0; i < 40; i++) m.record(o("a", 0.0, CallEnd.REFUSED_LOCALLY, now));
        QosMonitor.ServiceStats s = m.snapshot().get("a");
        // 50 cancelled losers that took at least 9 s each: censored samples of 9 s
        assertEquals((0.0505 * 100 + 50 * 9.0) / 150, s.responseTime(), 1e-9);
        assertEquals(50, s.censored());
        assertEquals(5.0, s.failureTime(), 1e-9);
        assertEquals(0.8, s.availability(), 1e-9);
        assertEquals(0.050, s.p50(), 1e-9);
        assertEquals(0.095, s.p95(), 1e-9);
        assertEquals(100, s.successLatencies().length);
        assertEquals(125, s.samples());
    }

    @Test
    void aCensoredSampleBelowTheMeanAddsNothingAndOneAboveRaisesIt() {
        long now = 1_000_000_000_000L;
        QosMonitor m = new QosMonitor(100, 5_000, 1, () -> now);
        for (int i = 0; i < 10; i++) m.record(o("c", 0.1, CallEnd.REPLY, now));
        for (int i = 0; i < 10; i++) m.record(o("c", 0.02, CallEnd.CANCELLED, now));
        assertEquals(0.1, m.snapshot().get("c").responseTime(), 1e-9, "a loser cancelled after 20 ms says only T >= 20 ms");
        assertEquals(1.0, m.snapshot().get("c").availability(), 1e-9, "censored samples are not failures");
        // a loser that only ever loses: its time is at least the winners'
        for (int i = 0; i < 4; i++) m.record(o("loser", 0.04, CallEnd.CANCELLED, now));
        assertEquals(0.04, m.snapshot().get("loser").responseTime(), 1e-9);
    }

    @Test
    void callsInFlightLongerThanExpectedShowASlowdownBeforeTheyAnswer() {
        long now = 1_000_000_000_000L;
        QosMonitor m = new QosMonitor(100, 5_000, 1, () -> now);
        for (int i = 0; i < 10; i++) m.record(o("d", 0.01, CallEnd.REPLY, now));
        double before = m.snapshot().get("d").responseTime();
        double during = m.snapshot(java.util.Map.of("d", new double[] {0.25, 0.25, 0.25, 0.25, 0.25})).get("d").responseTime();
        assertEquals(0.01, before, 1e-9);
        assertEquals((10 * 0.01 + 5 * 0.25) / 15, during, 1e-9);
        assertEquals(0.25, m.snapshot(java.util.Map.of("new", new double[] {0.25})).get("new").responseTime(), 1e-9,
                "a service seen only in flight");
    }

    @Test
    void availabilityIsABetaPosteriorCentredOnThePromise() {
        long now = 1_000_000_000_000L;
        QosMonitor m = new QosMonitor(1000, 5_000, 1, () -> now);
        for (int i = 0; i < 50; i++) m.record(o("e", 0.01, CallEnd.REPLY, now));
        QosMonitor.ServiceStats s = m.snapshot().get("e");
        assertEquals(1.0, s.availability(), 1e-12, "the raw ratio");
        double beta = s.availability(0.96, 30);
        assertEquals((0.96 * 30 + 50) / 80, beta, 1e-12);
        assertTrue(beta < 0.99, "fifty successes do not read as 1.0: " + beta);
        for (int i = 0; i < 10; i++) m.record(o("e", 0.002, CallEnd.PROTOCOL, now));
        assertEquals((0.96 * 30 + 50) / 90, m.snapshot().get("e").availability(0.96, 30), 1e-12);
    }

    @Test
    void aRarelyCalledServiceKeepsItsNewestOutcomesAndForgetOldDropsThem() {
        long[] now = {1_000_000_000_000L};
        QosMonitor m = new QosMonitor(100, 1_000, 5, () -> now[0]);
        for (int i = 0; i < 20; i++) m.record(o("f", 0.3, CallEnd.REPLY, now[0]));
        now[0] += 10_000_000_000L;
        m.record(o("f", 0.04, CallEnd.REPLY, now[0]));
        QosMonitor.ServiceStats s = m.snapshot().get("f");
        assertEquals(5, s.successes(), "one recent outcome and the four newest old ones");
        assertEquals((0.04 + 4 * 0.3) / 5, s.responseTime(), 1e-9);
        assertEquals(1, m.recent().get("f").successes());
        m.forgetOld("f");
        assertEquals(0.04, m.snapshot().get("f").responseTime(), 1e-9);
    }

    @Test
    void forgettingBeforeAChangePointKeepsTheNewestMinimum() {
        long[] now = {1_000_000_000_000L};
        QosMonitor m = new QosMonitor(100, 5_000, 4, () -> now[0]);
        for (int i = 0; i < 50; i++) m.record(o("g", 0.01, CallEnd.REPLY, now[0] + i));
        long change = now[0] + 1_000;
        for (int i = 0; i < 2; i++) m.record(o("g", 1.0, CallEnd.REPLY, change + i));
        now[0] = change + 10;
        assertEquals((2 * 1.0 + 50 * 0.01) / 52, m.snapshot().get("g").responseTime(), 1e-9);
        m.forgetBefore("g", change);
        assertEquals((2 * 1.0 + 2 * 0.01) / 4, m.snapshot().get("g").responseTime(), 1e-9, "two after the change and the two newest before");
    }

    @Test
    void theWindowForgetsOldAndExcessOutcomes() {
        QosMonitor m = new QosMonitor(10, 1_000);
        long now = System.nanoTime();
        for (int i = 0; i < 10; i++) m.record(o("b", 1.0, CallEnd.PROTOCOL, now - 5_000_000_000L));
        assertEquals(0.0, m.snapshot().get("b").availability(), 1e-9, "with nothing recent, the last outcomes still count");
        m.record(o("b", 0.01, CallEnd.REPLY, now));
        assertEquals(1.0, m.snapshot().get("b").availability(), 1e-9, "outcomes older than a second are ignored once recent ones exist");
        m.forget("b");
        assertFalse(m.snapshot().containsKey("b"));
        for (int i = 0; i < 30; i++) m.record(o("b", 0.01, i < 20 ? CallEnd.PROTOCOL : CallEnd.REPLY, now));
        assertEquals(1.0, m.snapshot().get("b").availability(), 1e-9, "only the last 10 outcomes count");
    }

    @Test
    void theLatestPeriodIsNotDilutedByTheSecondsBefore() {
        long[] now = {1_000_000_000_000L};
        QosMonitor m = new QosMonitor(100, 5_000, 1, () -> now[0]);
        for (int i = 0; i < 40; i++) m.record(o("h", 0.01, CallEnd.REPLY, now[0] - 2_000_000_000L));
        for (int i = 0; i < 5; i++) m.record(o("h", 0.3, CallEnd.REPLY, now[0] - 100_000_000L));
        assertEquals((40 * 0.01 + 5 * 0.3) / 45, m.snapshot().get("h").responseTime(), 1e-9);
        var latest = m.latest(java.util.Map.of("h", new double[] {0.2}), 1_000).get("h");
        assertEquals((5 * 0.3 + 0.3) / 6, latest.responseTime(), 1e-9, "a call in flight for 0.2 s counts as at least the mean");
        assertEquals(5, latest.successes());
    }

    @Test
    void aPeriodsOutcomesRecordedTogetherReadAsOneByOneAndEachViewFollowsNewOnes() {
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(1_000_000_000_000L);
        QosMonitor batch = new QosMonitor(10, 5_000, 1, now::get);
        QosMonitor single = new QosMonitor(10, 5_000, 1, now::get);
        io.moses.adaptation.ServiceCallLog log = new io.moses.adaptation.ServiceCallLog(64);
        for (int i = 0; i < 10; i++) {
            ServiceCall c = o("e", 0.01 * (i + 1), i == 3 ? CallEnd.PROTOCOL : CallEnd.REPLY, now.get());
            log.add(c);
            single.record(c);
        }
        assertEquals(0, batch.recordAll(log));
        assertEquals(single.snapshot().get("e").responseTime(), batch.snapshot().get("e").responseTime());
        assertEquals(9, batch.snapshot().get("e").successes());
        assertEquals(9, batch.latest(java.util.Map.of(), 1_000).get("e").successes(), "the same outcomes, every view");
        // a new outcome and calls in flight change every view, however often they were read
        now.addAndGet(2_000_000_000L);
        log.add(o("e", 1.0, CallEnd.REPLY, now.get()));
        batch.recordAll(log);
        // the window is full: the first (0.01 s) left it for the new one (1 s)
        assertEquals(9, batch.snapshot().get("e").successes());
        assertEquals(1.5 / 9, batch.snapshot().get("e").responseTime(), 1e-9);
        assertEquals(1, batch.latest(java.util.Map.of(), 1_000).get("e").successes(), "only the last period's");
        assertEquals(1, batch.latest(java.util.Map.of("e", new double[] {3.0}), 1_000).get("e").censored());
        assertEquals(2.0, batch.latest(java.util.Map.of("e", new double[] {3.0}), 1_000).get("e").responseTime(), 1e-9);
        assertEquals(1.0, batch.latest(java.util.Map.of(), 1_000).get("e").responseTime(), 1e-9);
    }
}
