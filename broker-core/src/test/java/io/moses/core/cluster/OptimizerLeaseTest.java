package io.moses.core.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.mdal.Credentials;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.Mdal;
import io.moses.mdal.ReplicaWindow;
import io.moses.monitor.QosMonitor;
import io.moses.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The leader lease and the merge of the replicas' windows, on an in-memory knowledge base. */
class OptimizerLeaseTest {
    static final Duration TTL = Duration.ofMillis(1_000);

    static KnowledgeBase kb() {
        return Mdal.open("mem:lease" + UUID.randomUUID().toString().replace("-", ""), Credentials.NONE);
    }

    @Test
    void oneLeadsAnotherTakesOverWhenItStopsRenewingAndTheFirstKnowsItNoLongerLeads() throws Exception {
        try (KnowledgeBase kb = kb()) {
            AtomicInteger aTook = new AtomicInteger();
            AtomicInteger bTook = new AtomicInteger();
            TestClock clock = new TestClock();
            OptimizerLease a = new OptimizerLease(kb, "a", TTL, Duration.ofSeconds(3), aTook::incrementAndGet, clock, clock::nanos);
            OptimizerLease b = new OptimizerLease(kb, "b", TTL, Duration.ofSeconds(3), bTook::incrementAndGet, clock, clock::nanos);
            a.renew();
            b.renew();
            assertTrue(a.leads());
            assertFalse(b.leads());
            a.renew(); // a renewal is not a new leadership
            assertEquals(1, aTook.get());
            // a stops renewing (dead or cut off): it stops leading on its own clock, before b may take over
            clock.advance(TTL.minus(OptimizerLease.SAFETY).minusMillis(1));
            assertTrue(a.leads(), "a leads until just before its lease can pass on");
            clock.advance(Duration.ofMillis(1));
            assertFalse(a.leads(), "a steps down before its lease can have passed on");
            b.renew();
            assertFalse(b.leads(), "the lease has not expired yet in the database");
            clock.advance(OptimizerLease.SAFETY);
            b.renew();
            assertFalse(b.leads(), "the lease expires only after its ttl, not at it");
            clock.advance(Duration.ofMillis(1));
            b.renew();
            assertTrue(b.leads());
            assertEquals(1, bTook.get());
            a.renew();
            assertFalse(a.leads());
            assertEquals("b", a.lastSeen().holder());
            // b stops and gives the lease up: a takes it at its next renewal
            b.release();
            assertFalse(b.leads());
            a.renew();
            assertTrue(a.leads());
            assertEquals(2, aTook.get());
        }
    }

    @Test
    void theLeaderMergesTheOtherReplicasRecentWindowsWeightedBySamples() throws Exception {
        try (KnowledgeBase kb = kb()) {
            OptimizerLease a = new OptimizerLease(kb, "a", Duration.ofSeconds(3), Duration.ofSeconds(3), () -> {});
            OptimizerLease b = new OptimizerLease(kb, "b", Duration.ofSeconds(3), Duration.ofSeconds(3), () -> {});
            a.renew();
            b.renew();
            Map<String, QosMonitor.ServiceStats> mine = Map.of("hotel-a", stats("hotel-a", 10, 0, 0.100));
            Map<String, QosMonitor.ServiceStats> theirs = Map.of("hotel-a", stats("hotel-a", 30, 10, 0.200),
                    "hotel-b", stats("hotel-b", 5, 5, 0.050));
            b.publish(theirs);
            a.publish(mine);
            assertSame(theirs, b.merged(theirs), "a follower decides nothing: its own window");
            Map<String, QosMonitor.ServiceStats> m = a.merged(mine);
            QosMonitor.ServiceStats h = m.get("hotel-a");
            assertEquals(40, h.successes());
            assertEquals(10, h.failures());
            assertEquals((10 * 0.100 + 30 * 0.200) / 40, h.responseTime(), 1e-9);
            assertEquals(0.8, h.availability(), 1e-9);
            assertEquals(0.5, m.get("hotel-b").availability(), 1e-9, "a service only the other replica calls");
            // a replica that stopped publishing long ago is not merged
            kb.putReplicaWindows("gone", List.of(new ReplicaWindow("gone", "hotel-a", 1000, 1000, 9, Instant.now().minusSeconds(60))));
            assertEquals(40, a.merged(mine).get("hotel-a").successes());
        }
    }


    static QosMonitor.ServiceStats stats(String service, int ok, int failed, double r) {
        return new QosMonitor.ServiceStats(service, ok, failed, 0, r, ok / (double) (ok + failed), Double.NaN, r, r, r, new double[0]);
    }
}
