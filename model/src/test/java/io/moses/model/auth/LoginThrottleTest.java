package io.moses.model.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LoginThrottleTest {
    final AtomicLong now = new AtomicLong(1_000_000_000L);
    final AtomicInteger hashes = new AtomicInteger();
    final LoginThrottle throttle = new LoginThrottle(1, Duration.ZERO, now::get);

    boolean login(String user, boolean right) {
        return throttle.check(user, () -> {
            hashes.incrementAndGet();
            return right;
        });
    }

    void advance(long ms) {
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
    }

    @Test
    void afterTheFreeFailuresANameIsRefusedWithoutHashingForADelayThatDoubles() {
        for (int i = 0; i < LoginThrottle.FREE_FAILURES; i++) assertFalse(login("alice", false));
        assertEquals(LoginThrottle.FREE_FAILURES, hashes.get());
        LoginThrottle.Refused r = assertThrows(LoginThrottle.Refused.class, () -> login("alice", true));
        assertEquals("too many failed logins for user 'alice': retry after 1 s", r.getMessage());
        assertEquals(LoginThrottle.FREE_FAILURES, hashes.get(), "refused without hashing, even the right password");
        assertTrue(login("bob", true), "another name is not delayed");
        advance(1000);
        assertFalse(login("alice", false)); // allowed again after 1 s, and wrong: the next delay is 2 s
        assertEquals(2, assertThrows(LoginThrottle.Refused.class, () -> login("alice", true)).retryAfterSeconds());
        advance(1999);
        assertThrows(LoginThrottle.Refused.class, () -> login("alice", true));
        advance(1);
        assertTrue(login("alice", true), "the right password once the delay is over");
        for (int i = 0; i < LoginThrottle.FREE_FAILURES; i++) assertFalse(login("alice", false), "a success cleared the count");
    }

    @Test
    void oneClientGuessingAtManyNamesIsDelayedAfterItsFreeFailuresWhileAnotherClientLogsIn() {
        try (LoginThrottle.ClientScope c = throttle.fromClient("192.0.2.7")) {
            for (int i = 0; i < LoginThrottle.FREE_CLIENT_FAILURES; i++) {
                assertFalse(login("name" + i, false));
                // a success of its own in between does not clear the client's count
                if (i == LoginThrottle.FREE_CLIENT_FAILURES / 2) assertTrue(login("own-account", true));
            }
            int hashed = hashes.get();
            LoginThrottle.Refused r = assertThrows(LoginThrottle.Refused.class, () -> login("fresh-name", true));
            assertEquals("too many failed logins from 192.0.2.7: retry after 1 s", r.getMessage());
            assertEquals(hashed, hashes.get(), "refused without hashing");
        }
        try (LoginThrottle.ClientScope c = throttle.fromClient("192.0.2.8")) {
            assertTrue(login("fresh-name", true), "another client is not delayed");
        }
        assertTrue(login("fresh-name", true), "nor is a login with no client named");
        try (LoginThrottle.ClientScope c = throttle.fromClient("192.0.2.7")) {
            advance(1000);
            assertFalse(login("another-name", false)); // the delay over, and wrong again: 2 s
            assertEquals(2, assertThrows(LoginThrottle.Refused.class, () -> login("fresh-name", true)).retryAfterSeconds());
            advance(TimeUnit.NANOSECONDS.toMillis(LoginThrottle.CLIENT_MEMORY_NANOS) + 1);
            for (int i = 0; i < LoginThrottle.FREE_CLIENT_FAILURES; i++)
                assertFalse(login("later" + i, false), "15 minutes without a failure: the client's count starts again");
        }
    }

    @Test
    void theDelayStopsGrowingAtFiveMinutes() {
        assertEquals(TimeUnit.SECONDS.toNanos(1), LoginThrottle.delayAfter(LoginThrottle.FREE_FAILURES));
        assertEquals(TimeUnit.SECONDS.toNanos(8), LoginThrottle.delayAfter(LoginThrottle.FREE_FAILURES + 3));
        assertEquals(TimeUnit.MINUTES.toNanos(5), LoginThrottle.delayAfter(LoginThrottle.FREE_FAILURES + 9));
        assertEquals(TimeUnit.MINUTES.toNanos(5), LoginThrottle.delayAfter(Integer.MAX_VALUE));
    }

    @Test
    void hashesRunAFewAtATimeAndALoginWithoutAPlaceIsRefusedAsBusy() throws Exception {
        CountDownLatch hashing = new CountDownLatch(1), finish = new CountDownLatch(1);
        Thread slow = new Thread(() -> throttle.check("first", () -> {
            hashing.countDown();
            try {
                return finish.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                return false;
            }
        }));
        slow.start();
        assertTrue(hashing.await(60, TimeUnit.SECONDS));
        LoginThrottle.Refused busy = assertThrows(LoginThrottle.Refused.class, () -> login("second", true));
        assertEquals("too many logins are being checked at once: retry after 1 s", busy.getMessage());
        assertEquals(0, hashes.get(), "the second login did not hash");
        // a client refused as busy again and again is delayed as a guesser is (it held a thread each time)
        try (LoginThrottle.ClientScope c = throttle.fromClient("192.0.2.9")) {
            for (int i = 0; i < LoginThrottle.FREE_CLIENT_FAILURES; i++)
                assertThrows(LoginThrottle.Refused.class, () -> login("second", true));
            assertEquals("too many failed logins from 192.0.2.9: retry after 1 s",
                    assertThrows(LoginThrottle.Refused.class, () -> login("second", true)).getMessage());
        }
        finish.countDown();
        slow.join(60_000);
        assertTrue(login("second", true), "a place again once the first hash is done");
    }
}
