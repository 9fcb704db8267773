package io.moses.monitor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DriftDetectorTest {
    static final long MS = 1_000_000L;

    @Test
    void firesOnceAfterTheHoldTimeAndAgainOnlyAfterRecovery() {
        DriftDetector<String> d = new DriftDetector<>(0.5, 0.001, 1000);
        Map<String, Double> base = Map.of("a", 0.010);
        assertTrue(d.check(Map.of("a", 0.012), base, 0).isEmpty(), "within 50%");
        assertTrue(d.check(Map.of("a", 0.300), base, 100 * MS).isEmpty(), "drifting, but not for a second yet");
        var fired = d.check(Map.of("a", 0.300), base, 1200 * MS);
        assertEquals(1, fired.size());
        assertEquals(0.300, fired.get(0).observed(), 1e-12);
        assertTrue(d.check(Map.of("a", 0.300), base, 5000 * MS).isEmpty(), "once per episode");
        assertTrue(d.check(Map.of("a", 0.011), base, 6000 * MS).isEmpty(), "recovered");
        d.check(Map.of("a", 0.300), base, 7000 * MS);
        assertEquals(1, d.check(Map.of("a", 0.300), base, 8100 * MS).size(), "a new episode fires again");
    }

    @Test
    void aShortSpikeDoesNotFire() {
        DriftDetector<String> d = new DriftDetector<>(0.5, 0.001, 1000);
        Map<String, Double> base = Map.of("a", 0.010);
        d.check(Map.of("a", 0.300), base, 0);
        d.check(Map.of("a", 0.010), base, 500 * MS);
        assertTrue(d.check(Map.of("a", 0.300), base, 1100 * MS).isEmpty());
    }

    @Test
    void smallBaselinesAreMeasuredAgainstTheFloor() {
        DriftDetector<String> d = new DriftDetector<>(0.25, 0.1, 0);
        assertTrue(d.check(Map.of("v", 0.02), Map.of("v", 0.0), 0).isEmpty(), "0.02 is within 25% of the 0.1 floor");
        assertEquals(1, d.check(Map.of("v", 0.5), Map.of("v", 0.0), 1).size());
    }

    @Test
    void aProportionalHoldActsSoonerOnALargerDrift() {
        DriftDetector<String> d = DriftDetector.proportional(0.5, 0.001, 1000);
        Map<String, Double> base = Map.of("big", 0.010, "small", 0.010);
        // big: 10 -> 300 ms is 58 times the allowed 5 ms; small: 10 -> 16 ms is 1.2 times
        assertTrue(d.check(Map.of("big", 0.300, "small", 0.016), base, 0).isEmpty(), "both start drifting");
        var at20 = d.check(Map.of("big", 0.300, "small", 0.016), base, 20 * MS);
        assertEquals(List.of("big"), at20.stream().map(DriftDetector.Drift::key).toList(), "big fires after 1000/58 ms");
        assertTrue(d.check(Map.of("big", 0.300, "small", 0.016), base, 700 * MS).isEmpty(), "small needs 1000/1.2 ms");
        assertEquals(1, d.check(Map.of("big", 0.300, "small", 0.016), base, 900 * MS).size());
    }

    @Test
    void anObservationOverAPeriodStartsItsEpisodeAPeriodAgo() {
        DriftDetector<String> d = DriftDetector.proportional(0.5, 0.001, 2000);
        Map<String, Double> base = Map.of("a", 0.040);
        // 40 -> 300 ms, the mean of the last second: 13 times the allowed 20 ms, hold 2000/13 ms
        assertEquals(1, d.check(Map.of("a", 0.300), base, 5000 * MS, 1000 * MS).size(), "fires at the first period that shows it");
        DriftDetector<String> small = DriftDetector.proportional(0.5, 0.001, 2000);
        assertTrue(small.check(Map.of("a", 0.065), base, 5000 * MS, 1000 * MS).isEmpty(), "a small drift still waits");
        assertEquals(1, small.check(Map.of("a", 0.065), base, 6700 * MS, 1000 * MS).size());
    }
}
