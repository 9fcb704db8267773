package io.moses.adaptation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The trial schedule of a service ejected for failed calls, on a clock the test moves. */
class TrialScheduleTest {
    static final long S = TimeUnit.SECONDS.toNanos(1);

    @Test
    void failedTrialsDoubleTheBackOffUpToItsCapAndOneTrialIsInFlightAtATime() {
        TrialSchedule r = new TrialSchedule();
        long now = 1000 * S;
        r.ejected(now);
        List<Long> backoffs = new ArrayList<>();
        for (int k = 0; k < 9; k++) {
            long due = r.dueAt();
            backoffs.add((due - now) / S);
            assertFalse(r.tryTrial(due - 1), "not before its back-off");
            now = due;
            assertTrue(r.tryTrial(now));
            assertFalse(r.tryTrial(now), "one trial at a time");
            assertTrue(r.callEnded(now, false), "that failure was the trial");
        }
        assertEquals(List.of(1L, 2L, 4L, 8L, 16L, 32L, 60L, 60L, 60L), backoffs);
    }

    @Test
    void aTrialThatSaysNothingIsDueAgainAndAProviderThatFlapsResumesItsBackOff() {
        TrialSchedule r = new TrialSchedule();
        r.ejected(0);
        assertFalse(r.callEnded(S / 2, true), "a call sent before the ejection, answered late, is not a trial");
        assertFalse(r.tryTrial(S / 2), "nor does it shorten the back-off");
        assertTrue(r.tryTrial(S));
        r.trialUndecided(); // cancelled or refused locally
        assertTrue(r.tryTrial(S), "due again at once");
        assertTrue(r.callEnded(S, false));
        assertEquals(2000, r.backoffMillis());
        assertTrue(r.tryTrial(3 * S));
        assertTrue(r.callEnded(3 * S, true), "answered: back in selection");
        r.ejected(4 * S); // failing again a second later
        assertEquals(4000, r.backoffMillis(), "resumes where it was");
        assertTrue(r.tryTrial(8 * S));
        assertTrue(r.callEnded(8 * S, true));
        r.ejected(8 * S + TrialSchedule.MAX_NANOS); // a long good spell in between
        assertEquals(1000, r.backoffMillis(), "starts over");
    }

    @Test
    void aProbeThatFindsTheServiceBackMakesTheTrialDueAtOnce() {
        TrialSchedule r = new TrialSchedule();
        r.ejected(0);
        for (long now = S; now < 40 * S; now = r.dueAt()) {
            assertTrue(r.tryTrial(now));
            r.callEnded(now, false);
        }
        long now = r.dueAt() - 10 * S;
        assertFalse(r.tryTrial(now));
        r.dueNow(now);
        assertTrue(r.tryTrial(now), "back up: no wait for the back-off grown while it was down");
    }
}
