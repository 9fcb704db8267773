package io.moses.mdal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.mdal.testing.MariaDbServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The optimizer leader's lease and the replicas' windows (V3), on in-memory H2 and on MariaDB. */
@Tag("e2e")
class LeaderLeaseTest {
    @RegisterExtension
    static final MariaDbServer MARIADB = new MariaDbServer();
    static final Duration TTL = Duration.ofSeconds(3);
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    static Stream<String> backEnds() {
        return Stream.of("h2", "mariadb");
    }

    static KnowledgeBase open(String backEnd) throws Exception {
        return backEnd.equals("h2")
                ? Mdal.open("mem:lease" + UUID.randomUUID().toString().replace("-", ""), Credentials.NONE)
                : Mdal.open(MARIADB.createDatabase(), MARIADB.credentials());
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void oneHolderUntilItsLeaseExpiresThenTheNextTakesOverWithANewTerm(String backEnd) throws Exception {
        try (KnowledgeBase kb = open(backEnd)) {
            assertTrue(kb.lease("optimizer").isEmpty());
            Lease a = kb.acquireLease("optimizer", "a", T0, TTL);
            assertTrue(a.heldBy("a"));
            assertEquals(1, a.term());
            assertEquals(T0.plus(TTL), a.expires());
            // b cannot take it while it runs, and learns who holds it
            Lease seenByB = kb.acquireLease("optimizer", "b", T0.plusSeconds(2), TTL);
            assertTrue(seenByB.heldBy("a"));
            // a renews: same term, later expiry
            Lease renewed = kb.acquireLease("optimizer", "a", T0.plusSeconds(2), TTL);
            assertEquals(1, renewed.term());
            assertEquals(T0.plusSeconds(5), renewed.expires());
            assertTrue(kb.acquireLease("optimizer", "b", T0.plusSeconds(4), TTL).heldBy("a"));
            // a stops renewing: once expired, b takes over
            Lease b = kb.acquireLease("optimizer", "b", T0.plusSeconds(5).plusMillis(1), TTL);
            assertTrue(b.heldBy("b"));
            assertEquals(2, b.term());
            // a comes back and finds it lost the lease
            assertTrue(kb.acquireLease("optimizer", "a", T0.plusSeconds(6), TTL).heldBy("b"));
            assertEquals("b", kb.lease("optimizer").orElseThrow().holder());
        }
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void aReleasedLeaseIsFreeAtOnceAndOnlyItsHolderMayReleaseIt(String backEnd) throws Exception {
        try (KnowledgeBase kb = open(backEnd)) {
            kb.acquireLease("optimizer", "a", T0, TTL);
            assertFalse(kb.releaseLease("optimizer", "b"));
            assertTrue(kb.acquireLease("optimizer", "b", T0.plusMillis(10), TTL).heldBy("a"));
            assertTrue(kb.releaseLease("optimizer", "a"));
            Lease b = kb.acquireLease("optimizer", "b", T0.plusMillis(20), TTL);
            assertTrue(b.heldBy("b"));
            assertEquals(2, b.term());
        }
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void replicasRacingForAFreeLeaseYieldExactlyOneHolder(String backEnd) throws Exception {
        try (KnowledgeBase kb = open(backEnd)) {
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                for (int round = 0; round < 5; round++) {
                    Instant now = T0.plusSeconds(10L * round);
                    List<Callable<Lease>> tries = new ArrayList<>();
                    for (int r = 0; r < 8; r++) {
                        String me = "round" + round + "-r" + r; // the last round's holder is gone
                        tries.add(() -> kb.acquireLease("optimizer", me, now, TTL));
                    }
                    String holder = null;
                    for (Future<Lease> f : pool.invokeAll(tries)) {
                        Lease l = f.get();
                        if (holder == null) holder = l.holder();
                        assertEquals(holder, l.holder(), "every replica sees the same holder");
                    }
                    assertTrue(holder.startsWith("round" + round + "-"), holder);
                    assertEquals(round + 1, kb.lease("optimizer").orElseThrow().term(), "one takeover per round");
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void replicaWindowsReplaceTheReplicasOwnAndAreReadSinceATime(String backEnd) throws Exception {
        try (KnowledgeBase kb = open(backEnd)) {
            kb.putReplicaWindows("a", List.of(new ReplicaWindow("a", "flight-a", 10, 1, 0.2, T0),
                    new ReplicaWindow("a", "flight-b", 5, 0, 0.3, T0)));
            kb.putReplicaWindows("b", List.of(new ReplicaWindow("b", "flight-a", 7, 0, 0.1, T0.plusSeconds(1))));
            assertEquals(3, kb.replicaWindows(T0).size());
            assertEquals(List.of("b"), kb.replicaWindows(T0.plusSeconds(1)).stream().map(ReplicaWindow::replica).toList());
            kb.putReplicaWindows("a", List.of(new ReplicaWindow("a", "flight-a", 20, 2, 0.25, T0.plusSeconds(2))));
            List<ReplicaWindow> all = kb.replicaWindows(T0);
            assertEquals(2, all.size(), "a's old window of flight-b is gone: " + all);
            ReplicaWindow a = all.get(0);
            assertEquals(22, a.samples());
            assertEquals(0.25, a.responseTime(), 1e-9);
            assertThrows(KnowledgeBaseException.class,
                    () -> kb.putReplicaWindows("a", List.of(new ReplicaWindow("b", "x", 1, 0, 0.1, T0))));
        }
    }
}
