package io.moses.monitor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.moses.adaptation.Outcome;
import io.moses.model.TaskRef;
import org.junit.jupiter.api.Test;

class QosMonitorTest {
    static final TaskRef T = TaskRef.of("c", "p", "o");

    static Outcome o(String s, double seconds, Outcome.Kind kind, long at) {
        return new Outcome(s, T, "gold", (long) (seconds * 1e9), kind, true, at);
    }

    @Test
    void meanOfSuccessesAvailabilityAndPercentiles() {
        QosMonitor m = new QosMonitor(1000, 60_000);
        long now = System.nanoTime();
        for (int i = 1; i <= 100; i++) m.record(o("a", i / 1000.0, Outcome.Kind.OK, now));
        for (int i = 0; i < 25; i++) m.record(o("a", 5.0, Outcome.Kind.FAILURE, now));
        for (int i = 0; i < 50; i++) m.record(o("a", 9.0, Outcome.Kind.CANCELLED, now));
        for (int i = 0; i < 40; i++) m.record(o("a", 0.0, Outcome.Kind.REFUSED_LOCALLY, now));
        QosMonitor.ServiceStats s = m.snapshot().get("a");
        assertEquals(0.0505, s.responseTime(), 1e-9);
        assertEquals(0.8, s.availability(), 1e-9);
        assertEquals(0.050, s.p50(), 1e-9);
        assertEquals(0.095, s.p95(), 1e-9);
        assertEquals(100, s.successLatencies().length);
        assertEquals(125, s.samples());
    }

    @Test
    void theWindowForgetsOldAndExcessOutcomes() {
        QosMonitor m = new QosMonitor(10, 1_000);
        long now = System.nanoTime();
        for (int i = 0; i < 10; i++) m.record(o("b", 1.0, Outcome.Kind.FAILURE, now - 5_000_000_000L));
        assertEquals(0.0, m.snapshot().get("b").availability(), 1e-9, "with nothing recent, the last outcomes still count");
        m.record(o("b", 0.01, Outcome.Kind.OK, now));
        assertEquals(1.0, m.snapshot().get("b").availability(), 1e-9, "outcomes older than a second are ignored once recent ones exist");
        m.forget("b");
        assertFalse(m.snapshot().containsKey("b"));
        for (int i = 0; i < 30; i++) m.record(o("b", 0.01, i < 20 ? Outcome.Kind.FAILURE : Outcome.Kind.OK, now));
        assertEquals(1.0, m.snapshot().get("b").availability(), 1e-9, "only the last 10 outcomes count");
    }
}
