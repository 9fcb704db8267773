package io.moses.mdal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** What the replicas share to police as one (V11), on in-memory H2 and on MariaDB: one over-rate episode per user, and secrets. */
@Tag("e2e")
class ClusterPolicingTest {
    @RegisterExtension
    static final io.moses.mdal.testing.MariaDbServer MARIADB = new io.moses.mdal.testing.MariaDbServer();
    static final Duration WINDOW = Duration.ofSeconds(5);
    static final Instant T0 = LeaderLeaseTest.T0;

    static java.util.stream.Stream<String> backEnds() {
        return java.util.stream.Stream.of("h2", "mariadb");
    }

    static KnowledgeBase open(String backEnd) throws Exception {
        return backEnd.equals("h2")
                ? Mdal.open("mem:policing" + java.util.UUID.randomUUID().toString().replace("-", ""), Credentials.NONE)
                : Mdal.open(MARIADB.createDatabase(), MARIADB.credentials());
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void anEpisodeIsBegunOnceForTheClusterAndEndsWhenNoReplicaSawTheUserAboveItsRateForTheWindow(String backEnd) throws Exception {
        try (KnowledgeBase kb = open(backEnd)) {
            assertTrue(kb.overRateEpisode("carl", T0, T0.plusSeconds(5), WINDOW), "the first replica to see it begins the episode");
            assertFalse(kb.overRateEpisode("carl", T0.plusSeconds(1), T0.plusSeconds(6), WINDOW), "a second replica's view of it: the same episode");
            assertFalse(kb.overRateEpisode("carl", T0, T0.plusSeconds(5), WINDOW), "written again (the next tick): the same");
            assertTrue(kb.overRateEpisode("gina", T0.plusSeconds(1), T0.plusSeconds(6), WINDOW), "another user's is its own");
            // a replica's own episode that began after a quiet gap within the window: the cluster's goes on
            assertFalse(kb.overRateEpisode("carl", T0.plusSeconds(10), T0.plusSeconds(15), WINDOW));
            // one that began after a gap longer than the window since any replica saw carl above: a new one
            assertTrue(kb.overRateEpisode("carl", T0.plusSeconds(21), T0.plusSeconds(26), WINDOW));
            assertFalse(kb.overRateEpisode("carl", T0.plusSeconds(20), T0.plusSeconds(25), WINDOW), "last_ms never moves back");
            assertTrue(kb.overRateEpisode("carl", T0.plusSeconds(32), T0.plusSeconds(37), WINDOW));
            KnowledgeBaseException e = assertThrows(KnowledgeBaseException.class, () -> kb.overRateEpisode("", T0, T0, WINDOW));
            assertTrue(e.getMessage().contains("overRateEpisode.user"), e.getMessage());
            e = assertThrows(KnowledgeBaseException.class, () -> kb.overRateEpisode("carl", T0.plusSeconds(1), T0, WINDOW));
            assertTrue(e.getMessage().contains("overRateEpisode.last"), e.getMessage());
        }
    }

    @ParameterizedTest
    @MethodSource("backEnds")
    void replicasRacingToBeginOneEpisodeBeginItOnceAndShareOneSecret(String backEnd) throws Exception {
        try (KnowledgeBase kb = open(backEnd)) {
            ExecutorService replicas = Executors.newFixedThreadPool(4);
            try {
                for (int round = 0; round < 5; round++) {
                    Instant since = T0.plusSeconds(100L * round);
                    List<Callable<Boolean>> views = new ArrayList<>();
                    for (int r = 0; r < 4; r++) {
                        Instant mine = since.plusMillis(r);
                        views.add(() -> kb.overRateEpisode("race", mine, mine.plusSeconds(5), WINDOW));
                    }
                    int begun = 0;
                    for (Future<Boolean> f : replicas.invokeAll(views)) if (f.get()) begun++;
                    assertEquals(1, begun, "round " + round + ": one replica begins the episode");
                }
                List<Callable<String>> asks = new ArrayList<>();
                for (int r = 0; r < 4; r++) asks.add(() -> kb.clusterSecret("hop"));
                List<String> secrets = new ArrayList<>();
                for (Future<String> f : replicas.invokeAll(asks)) secrets.add(f.get());
                assertEquals(1, secrets.stream().distinct().count(), "one secret for every replica: " + secrets);
                assertEquals(64, secrets.get(0).length(), "256 bits, hex");
                assertEquals(secrets.get(0), kb.clusterSecret("hop"));
                assertNotEquals(secrets.get(0), kb.clusterSecret("other"));
            } finally {
                replicas.shutdownNow();
            }
        }
    }
}
