package io.moses.evaluation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Cutting Grinder's data log into the closed model's steps. */
@Tag("e2e")
class GrinderClosedModelTest {
    private static final String HEADER = "Thread, Run, Test, Start time (ms since Epoch), Test time, Errors, HTTP response code, "
            + "HTTP response length, HTTP response errors, Time to resolve host, Time to establish connection, Time to first byte, New connections";

    @Test
    void requestsFallIntoTheStepTheyStartedInAndTheRampIsLeftOut() {
        long t0 = 1_000_000;
        List<String> log = new ArrayList<>(List.of(HEADER));
        // step 1 (1 worker): 10 requests of 100 ms in the measured second 1..2 s, one in the ramp
        log.add("0, 0, 1, " + (t0 + 500) + ", 900, 0, 200, 10, 0, 0, 0, 0, 1");
        for (int i = 0; i < 10; i++) log.add("0, " + (i + 1) + ", 1, " + (t0 + 1000 + i * 100) + ", 100, 0, 200, 10, 0, 0, 0, 0, 0");
        // step 2 (2 workers): 40 requests of 50 ms in its measured second, two of them failed
        for (int i = 0; i < 40; i++)
            log.add((i % 2) + ", " + i + ", 1, " + (t0 + 3000 + i * 25) + ", 50, " + (i < 2 ? 1 : 0) + ", 200, 10, 0, 0, 0, 0, 0");
        Target t = new Target("static", "http://x", "a", List.of(), List.of(), List.of(), 1);
        List<ClosedStep> steps = GrinderClosedModel.steps(t, new int[]{1, 2}, t0, 2000, log, null);
        assertEquals(2, steps.size());
        assertEquals(10, steps.get(0).requests());
        assertEquals(10.0, steps.get(0).throughput(), 1e-9);
        assertEquals(100.0, steps.get(0).meanMs(), 1e-9);
        assertEquals(40, steps.get(1).requests());
        assertEquals(2, steps.get(1).errors());
        assertEquals(40.0, steps.get(1).throughput(), 1e-9);
        // failed requests' times are not response times
        assertEquals(50.0, steps.get(1).p95Ms(), 1e-9);
        assertEquals(2, steps.get(1).workers());
    }

    @Test
    void theDirectTargetIsScaledToCompositeRequests() {
        long t0 = 0;
        List<String> log = new ArrayList<>(List.of(HEADER));
        for (int i = 0; i < 60; i++) log.add("0, " + i + ", 1, " + (1000 + i * 10) + ", 5, 0, 200, 10, 0, 0, 0, 0, 0");
        Target direct = new Target("direct", "http://x", "a", List.of(), List.of(), List.of(), 6);
        ClosedStep s = GrinderClosedModel.steps(direct, new int[]{1}, t0, 2000, log, null).get(0);
        assertEquals(60.0, s.throughput(), 1e-9);
        assertEquals(10.0, s.composite(), 1e-9);
    }

    @Test
    void saturationIsTheFirstStepAddingUnderTenPercent() {
        List<ClosedStep> rising = List.of(step(1, 10), step(2, 19), step(4, 30));
        assertNull(Summary.saturatedFrom(rising));
        List<ClosedStep> flat = List.of(step(1, 10), step(2, 19), step(4, 20), step(8, 25));
        assertEquals(4, Summary.saturatedFrom(flat));
    }

    private static ClosedStep step(int workers, double composite) {
        return new ClosedStep("static", workers, 1, 1, 0, composite, composite, 1, 1, 1, 1);
    }
}
