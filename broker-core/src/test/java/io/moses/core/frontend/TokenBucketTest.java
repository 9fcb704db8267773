package io.moses.core.frontend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.model.User;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The token bucket per user, on a clock the test moves. */
class TokenBucketTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final RatePolicing policing = new RatePolicing(new RatePolicy(RatePolicy.OverRate.REJECT, 2), null, now::get);
    private static final User CARL = new User("carl", "bronze", 4, "hash");

    private int conforming(User u, int tries) {
        int ok = 0;
        for (int i = 0; i < tries; i++) if (policing.take(u) == null) ok++;
        return ok;
    }

    private void advanceMillis(long ms) {
        now.addAndGet(ms * 1_000_000L);
    }

    @Test
    void aFullBucketHoldsTheBurstThenRefillsAtTheAgreedRate() {
        assertEquals(8, conforming(CARL, 20)); // 4 req/s for 2 s
        RatePolicing.Excess e = policing.take(CARL);
        assertNotNull(e);
        assertEquals(1, e.retryAfterSeconds());
        assertTrue(e.reason().contains("user carl (class bronze) agreed 4 req/s"), e.reason());
        advanceMillis(250);
        assertEquals(1, conforming(CARL, 5));
        advanceMillis(10_000); // never more than the burst
        assertEquals(8, conforming(CARL, 20));
        assertEquals(17, policing.user("carl").conforming());
        assertEquals(29, policing.user("carl").rejected());
        assertEquals(29, policing.serviceClass("bronze").rejected());
    }

    @Test
    void aChangedSubscriptionOrReplicaCountReRatesTheBucket() {
        assertEquals(8, conforming(CARL, 8));
        User raised = CARL.withSubscription("bronze", 40);
        advanceMillis(100); // 40 req/s: 4 tokens in 100 ms
        assertEquals(4, conforming(raised, 10));
        policing.update(List.of(raised), 2); // two replicas: 20 req/s here
        advanceMillis(100);
        assertEquals(2, conforming(raised, 10));
        RatePolicing.Excess e = policing.take(raised);
        assertTrue(e.reason().contains("agreed 40 req/s (20 req/s on each of 2 replicas)"), e.reason());
    }

    @Test
    void anAgreedRateOfZeroAdmitsNothingWhileOthersAreServed() {
        User none = new User("olga", "gold", 0, "hash");
        assertNotNull(policing.take(none));
        advanceMillis(60_000);
        assertNotNull(policing.take(none));
        assertNull(policing.take(CARL));
    }
}
