package io.moses.adaptation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Ejection and reinstatement on the request path, on the broker's two clocks, which the test moves:
 * the wall clock an ejection is stamped on (a plan solved after it brings the service back) and
 * the monotonic one of the trial calls' back-off.
 */
class ProviderHealthTest {

    @Test
    void anEjectionIsStampedOnTheWallClockThatPlansAreStampedOn() {
        TestClock clock = new TestClock();
        ProviderHealth h = new ProviderHealth(8, 3, clock::nanos, clock);
        Instant before = clock.instant();
        clock.advance(Duration.ofSeconds(1));
        assertTrue(h.eject("a", "its probe failed"));
        Instant ejected = clock.instant();
        clock.advance(Duration.ofSeconds(5));
        assertFalse(h.ejectedBefore("a", before), "a plan solved before the ejection did not know of it");
        assertFalse(h.ejectedBefore("a", ejected), "nor did one stamped at the same instant");
        assertTrue(h.ejectedBefore("a", ejected.plusNanos(1)), "a plan solved after it did");
        assertTrue(h.ejectedBefore("a", clock.instant()));
        assertFalse(h.ejectedBefore("b", clock.instant()), "a service never ejected");
    }

    @Test
    void failedCallsEjectOnTheWallClockAndTheTrialCallIsDueAfterItsBackOffOnTheMonotonicClock() {
        TestClock clock = new TestClock();
        ProviderHealth h = new ProviderHealth(8, 3, clock::nanos, clock);
        List<String> ejected = new CopyOnWriteArrayList<>();
        List<String> reinstated = new CopyOnWriteArrayList<>();
        h.onEjected((s, why) -> ejected.add(s + ": " + why));
        h.onReinstatedByTrial((s, why) -> reinstated.add(s + ": " + why));
        assertFalse(h.observe("a", CallEnd.CONNECT));
        assertFalse(h.observe("a", CallEnd.TIMEOUT));
        assertTrue(h.observe("a", CallEnd.CONNECT), "the third failure in a row ejects it");
        Instant at = clock.instant();
        assertEquals(List.of("a: 3 consecutive failures"), ejected);
        assertFalse(h.ejectedBefore("a", at), "stamped on the wall clock at the ejection");
        assertTrue(h.ejectedBefore("a", at.plusNanos(1)));
        assertFalse(h.reinstate("a", "a plan uses it"), "out for failed calls: only its trial call brings it back");
        clock.advance(Duration.ofNanos(TrialSchedule.FIRST_NANOS - 1));
        assertFalse(h.tryTrial("a"), "no trial before its back-off");
        clock.advance(Duration.ofNanos(1));
        assertTrue(h.tryTrial("a"), "its trial is due a back-off after the ejection");
        assertFalse(h.tryTrial("a"), "one trial at a time");
        assertFalse(h.observe("a", CallEnd.REPLY));
        assertEquals(List.of("a: its trial call was answered"), reinstated);
        assertFalse(h.ejected("a"));
        assertTrue(h.ejectedServices().isEmpty());
    }
}
