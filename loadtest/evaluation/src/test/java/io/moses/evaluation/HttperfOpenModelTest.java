package io.moses.evaluation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Reading httperf 0.9's -v -v output (two real runs against the trip planner, kept as resources). */
@Tag("e2e")
class HttperfOpenModelTest {
    private static String resource(String name) throws IOException {
        try (InputStream in = HttperfOpenModelTest.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void lightLoadEveryReplyBackAndPercentilesFromTheHistogram() throws IOException {
        OpenStep s = HttperfOpenModel.parse("static", 10, 10, 40, false, resource("httperf-light.txt"), 400);
        assertEquals(40, s.replies());
        assertEquals(0, s.errors());
        assertEquals(4.028, s.seconds(), 1e-9);
        assertEquals(40 / 4.028, s.achievedRps(), 1e-9);
        assertEquals(117.2, s.meanMs(), 1e-9);
        assertEquals(278.5, s.maxMs(), 1e-9);
        // httperf prints the median itself (119.5): the histogram's must agree
        assertEquals(119.5, s.p50Ms(), 1e-9);
        assertEquals(230.5, s.p95Ms(), 1e-9);
        assertEquals(278.5, s.p99Ms(), 1e-9);
        assertEquals(10.0, s.cpuMsPerRequest(), 1e-9);
        assertFalse(HttperfOpenModel.saturated(s, s.p50Ms()));
    }

    @Test
    void overloadCountsTheMissingReplyAndIsBeyondSaturation() throws IOException {
        OpenStep s = HttperfOpenModel.parse("static", 80, 80, 320, false, resource("httperf-overloaded.txt"), Double.NaN);
        assertEquals(319, s.replies());
        assertEquals(1, s.errors());
        assertEquals(2701.5, s.p50Ms(), 1e-9);
        assertEquals(4513.5, s.p95Ms(), 1e-9);
        // 320 requests sent in 4 s took 7.4 s to answer (a backlog), median 20 times the light run's
        assertTrue(HttperfOpenModel.saturated(s, 119.5));
        assertTrue(HttperfOpenModel.saturated(s, Double.NaN), "the backlog alone");
    }

    @Test
    void anInterruptedRunIsBeyondSaturationAndUnsentRequestsAreErrors() throws IOException {
        OpenStep s = HttperfOpenModel.parse("adaptive", 10, 10, 60, true, resource("httperf-light.txt"), Double.NaN);
        assertEquals(20, s.errors());
        assertTrue(HttperfOpenModel.saturated(s, s.p50Ms()));
    }

    @Test
    void outputWithoutStatisticsIsAnError() {
        assertThrows(IllegalStateException.class, () -> HttperfOpenModel.parse("x", 1, 1, 1, false, "httperf: connection refused", 0));
    }
}
