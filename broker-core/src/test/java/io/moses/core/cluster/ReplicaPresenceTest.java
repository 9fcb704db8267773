package io.moses.core.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.moses.mdal.KnowledgeBase;
import io.moses.testing.TestClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The replicas that share the users' agreed rates, counted on the broker's clock, on an in-memory knowledge base. */
class ReplicaPresenceTest {
    @Test
    void aReplicaIsCountedWithinTheTtlOfItsLastHeartbeatNotAfterItAndNotOnceItLeaves() throws Exception {
        try (KnowledgeBase kb = OptimizerLeaseTest.kb()) {
            TestClock clock = new TestClock();
            Duration ttl = Duration.ofSeconds(1);
            ReplicaPresence a = new ReplicaPresence(kb, "a", ttl, clock);
            ReplicaPresence b = new ReplicaPresence(kb, "b", ttl, clock);
            assertEquals(1, a.beat());
            assertEquals(2, b.beat());
            clock.advance(ttl);
            assertEquals(2, a.beat(), "b's heartbeat a ttl ago still counts");
            clock.advance(Duration.ofMillis(1));
            assertEquals(1, a.beat(), "b's heartbeat more than a ttl ago: b is no longer counted");
            assertEquals(2, b.beat(), "b beats again");
            b.leave();
            assertEquals(1, a.beat(), "a replica that leaves is not counted from the next heartbeat");
        }
    }
}
