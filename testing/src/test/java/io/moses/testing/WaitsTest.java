package io.moses.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class WaitsTest {
    @Test
    void aConditionThatHoldsAtOnceIsCheckedOnce() {
        AtomicInteger checks = new AtomicInteger();
        Waits.until("at once", 5, () -> checks.incrementAndGet() > 0);
        // checked once and not again: the wait returned on the first check (a time bound here would flake on a busy machine)
        assertEquals(1, checks.get());
    }

    @Test
    void aCheckThatThrowsIsNotYetAndTheWaitGoesOn() {
        AtomicInteger checks = new AtomicInteger();
        Waits.until("the third check", 5, () -> {
            if (checks.incrementAndGet() < 3) throw new IOException("still starting");
            return true;
        });
        assertEquals(3, checks.get());
    }

    @Test
    void aFailedAssertionInACheckEndsTheWaitAtOnce() {
        AtomicInteger checks = new AtomicInteger();
        AssertionError e = assertThrows(AssertionError.class, () -> Waits.until("one leader", 30, () -> {
            checks.incrementAndGet();
            throw new AssertionError("two leaders");
        }));
        assertEquals("two leaders", e.getMessage());
        assertEquals(1, checks.get());
    }

    @Test
    void aConditionThatNeverHoldsFailsNamingWhatWasAwaitedItsContextAndTheLastException() {
        AssertionError e = assertThrows(AssertionError.class, () -> Waits.until("the impossible", 1, () -> {
            throw new IOException("refused");
        }, () -> "the log"));
        assertEquals("the impossible within 1 s\nthe log", e.getMessage());
        assertEquals("refused", e.getCause().getMessage());
        AssertionError plain = assertThrows(AssertionError.class, () -> Waits.until("never", 1, () -> false));
        assertEquals("never within 1 s", plain.getMessage());
    }

    @Test
    void withinSaysWhetherTheConditionHeldInTime() {
        AtomicInteger checks = new AtomicInteger();
        assertTrue(Waits.within(5, () -> checks.incrementAndGet() >= 3));
        assertEquals(3, checks.get());
        long start = System.nanoTime();
        assertFalse(Waits.within(1, () -> false));
        assertTrue(System.nanoTime() - start >= 1_000_000_000L, "it waited the second");
    }
}
