package io.moses.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class TestClockTest {
    @Test
    void bothClocksMoveTogetherAndOnlyWhenTold() {
        TestClock clock = new TestClock();
        Instant wall = clock.instant();
        long nanos = clock.nanos();
        assertEquals(Instant.parse("2026-01-01T00:00:01Z"), wall);
        assertEquals(wall, clock.instant());
        clock.advance(Duration.ofMillis(1500));
        assertEquals(wall.plusMillis(1500), clock.instant());
        assertEquals(nanos + 1_500_000_000L, clock.nanos());
    }
}
