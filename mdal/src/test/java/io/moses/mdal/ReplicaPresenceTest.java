package io.moses.mdal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The replicas seen alive (V9), which the agreed rates are shared by: on in-memory H2 and on MariaDB. */
@Tag("e2e")
class ReplicaPresenceTest {
    @RegisterExtension
    static final io.moses.mdal.testing.MariaDbServer MARIADB = new io.moses.mdal.testing.MariaDbServer();
    static final Duration TTL = Duration.ofSeconds(3);
    static final Instant T0 = LeaderLeaseTest.T0;

    static java.util.stream.Stream<String> backEnds() {
        return java.util.stream.Stream.of("h2", "mariadb");
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void replicasCountWhileTheirHeartbeatIsRecentAndLeaveAtOnce(String backEnd) throws Exception {
        try (KnowledgeBase kb = backEnd.equals("h2")
                ? Mdal.open("mem:presence" + java.util.UUID.randomUUID().toString().replace("-", ""), Credentials.NONE)
                : Mdal.open(MARIADB.createDatabase(), MARIADB.credentials())) {
            assertEquals(1, kb.replicaHeartbeat("a", T0, TTL));
            assertEquals(2, kb.replicaHeartbeat("b", T0.plusSeconds(1), TTL));
            assertEquals(2, kb.replicaHeartbeat("a", T0.plusSeconds(2), TTL)); // a renews its row, not a second one
            // b falls silent (killed): not counted once its heartbeat is older than the ttl
            assertEquals(2, kb.replicaHeartbeat("a", T0.plusSeconds(4), TTL));
            assertEquals(1, kb.replicaHeartbeat("a", T0.plusSeconds(4).plusMillis(1), TTL));
            assertEquals(2, kb.replicaHeartbeat("c", T0.plusSeconds(5), TTL));
            kb.leaveReplicas("c"); // a replica that stops is gone at once
            assertEquals(1, kb.replicaHeartbeat("a", T0.plusSeconds(5), TTL));
            KnowledgeBaseException e = assertThrows(KnowledgeBaseException.class, () -> kb.replicaHeartbeat("", T0, TTL));
            assertEquals(true, e.getMessage().contains("replicaPresence.replica"), e.getMessage());
        }
    }
}
