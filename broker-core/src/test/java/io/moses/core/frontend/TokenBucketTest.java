package io.moses.core.frontend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.model.User;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The token bucket per user, on a monotonic clock the test moves (and a wall clock that stands still). */
class TokenBucketTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private static final java.time.Instant WALL = java.time.Instant.parse("2026-01-01T00:00:00Z");
    private static final java.time.Clock STOPPED = java.time.Clock.fixed(WALL, java.time.ZoneOffset.UTC);
    private final RatePolicing policing = new RatePolicing(new RatePolicy(RatePolicy.OverRate.REJECT, 2), null, false, STOPPED, now::get);
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
    void aUserNoLongerSubscribedLeavesNeitherCountersNorMetricSeriesBehind() {
        var registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        RatePolicing metered = new RatePolicing(new RatePolicy(RatePolicy.OverRate.REJECT, 2), registry, true, STOPPED, now::get);
        User dora = new User("dora", "bronze", 4, "hash");
        assertNull(metered.take(CARL));
        assertNull(metered.take(dora));
        assertEquals(4, registry.find("moses.policing.user.requests").tag("user", "dora").meters().size());
        metered.update(List.of(CARL), 1); // dora cancelled
        assertNull(metered.user("dora"));
        assertTrue(registry.find("moses.policing.user.requests").tag("user", "dora").meters().isEmpty());
        assertEquals(4, registry.find("moses.policing.user.requests").tag("user", "carl").meters().size(), "carl's series stay");
        assertEquals(1, metered.user("carl").conforming());
    }

    @Test
    void anAgreedRateOfZeroLetsNothingThroughWhileOthersAreServed() {
        User none = new User("olga", "gold", 0, "hash");
        assertNotNull(policing.take(none));
        advanceMillis(60_000);
        assertNotNull(policing.take(none));
        assertNull(policing.take(CARL));
    }

    @Test
    void aClassesOwnPolicyOverridesTheBrokersAndBestEffortExcessIsCountedOnceItsPlaceIsDecided() {
        User gina = new User("gina", "gold", 1, "hash");
        User free = new User("fred", "free", 1, "hash");
        policing.overRates(java.util.Map.of("bronze", io.moses.model.OverRate.BEST_EFFORT, "free", io.moses.model.OverRate.OFF));
        assertEquals(RatePolicy.OverRate.REJECT, policing.overRate("gold"), "a class naming none follows the broker");
        assertEquals(8, conforming(CARL, 8));
        RatePolicing.Excess e = policing.take(CARL);
        assertTrue(e.bestEffort(), "bronze serves its excess best-effort");
        assertTrue(e.reason().contains("served only with spare capacity"), e.reason());
        assertEquals(0, policing.user("carl").rejected());
        policing.bestEffort(e, true);
        policing.bestEffort(policing.take(CARL), false);
        assertEquals(1, policing.user("carl").excess());
        assertEquals(1, policing.serviceClass("bronze").shed());
        assertEquals(8, policing.serviceClass("bronze").conforming());

        assertEquals(2, conforming(gina, 10));
        assertEquals(8, policing.user("gina").rejected(), "gold follows the broker's reject");
        assertEquals(100, conforming(free, 100), "a class whose policy is off is not policed");
        assertEquals(null, policing.user("fred"), "nor counted");
        assertTrue(policing.polices());
        RatePolicing off = new RatePolicing(RatePolicy.OFF, null, false, STOPPED, now::get);
        assertTrue(!off.polices());
        off.overRates(java.util.Map.of("bronze", io.moses.model.OverRate.BEST_EFFORT));
        assertTrue(off.polices(), "one class's policy polices with the broker's default off");
    }

    @Test
    void aUserAboveItsRateForTheWindowIsReportedOncePerEpisode() {
        List<RatePolicing.Episode> reported = new java.util.ArrayList<>();
        List<RatePolicing.Episode> given = new java.util.ArrayList<>();
        policing.onEpisode(e -> {
            given.add(e);
            if (e.first()) reported.add(e);
        });
        assertEquals(8, conforming(CARL, 8));
        for (int i = 0; i < 5; i++) { // 10 requests a second for 5 s against 4 req/s: above it throughout
            conforming(CARL, 10);
            advanceMillis(1_000);
            policing.update(List.of(CARL), 1);
        }
        conforming(CARL, 10);
        policing.update(List.of(CARL), 1);
        assertEquals(1, reported.size(), "above the rate for 5 s: " + reported);
        RatePolicing.Episode e = reported.get(0);
        assertEquals("carl", e.user().name());
        assertTrue(e.seconds() >= 5 && e.excessRequests() >= 20, e.toString());
        assertTrue(e.detail().contains("user carl (class bronze) has sent above its agreed rate of 4 req/s"), e.detail());
        assertEquals(WALL, e.since(), "the episode began on the policing's wall clock");
        for (int i = 0; i < 5; i++) {
            conforming(CARL, 10);
            advanceMillis(1_000);
            policing.update(List.of(CARL), 1);
        }
        assertEquals(1, reported.size(), "the same episode is reported once");
        assertTrue(given.size() > 1 && given.stream().allMatch(x -> x.since().equals(e.since())),
                "and given again at each update while it lasts, with when it began (for the cluster's one event): " + given);
        assertTrue(given.get(given.size() - 1).last().isAfter(e.last()), "its latest request above the rate moves on");

        advanceMillis(6_000); // quiet for longer than the window: the episode is over
        policing.update(List.of(CARL), 1);
        for (int i = 0; i < 3; i++) {
            conforming(CARL, 30);
            advanceMillis(1_000);
            policing.update(List.of(CARL), 1);
        }
        assertEquals(1, reported.size(), "a new episode of 3 s is not reported yet");
        for (int i = 0; i < 3; i++) {
            conforming(CARL, 10);
            advanceMillis(1_000);
            policing.update(List.of(CARL), 1);
        }
        assertEquals(2, reported.size(), "the second episode, past the window");
    }

    @Test
    void bestEffortAndItsShareOfThePlacesComeFromTheCommandLineAndBadValuesNameTheOption() {
        RatePolicy.Parsed p = RatePolicy.parse(new String[] {"--over-rate", "best-effort", "--best-effort-share", "0.25", "--port", "0"});
        assertEquals(new RatePolicy(RatePolicy.OverRate.BEST_EFFORT, 2, 0.25), p.policy());
        assertEquals(List.of("--port", "0"), List.of(p.rest()));
        assertEquals(16, p.policy().bestEffortPlaces(64));
        assertEquals(1, p.policy().bestEffortPlaces(2), "at least one place");
        assertEquals(32, RatePolicy.parse(new String[0]).policy().bestEffortPlaces(64), "half by default");
        for (String[] bad : new String[][] {{"--best-effort-share", "0"}, {"--best-effort-share", "1.5"}, {"--best-effort-share", "half"},
                {"--best-effort-share"}}) {
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> RatePolicy.parse(bad));
            assertTrue(e.getMessage().startsWith("--best-effort-share"), e.getMessage());
        }
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> RatePolicy.parse(new String[] {"--over-rate", "besteffort"}));
        assertEquals("--over-rate is off, reject or best-effort, got 'besteffort'", e.getMessage());
    }
}
