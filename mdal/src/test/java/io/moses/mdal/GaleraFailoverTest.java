package io.moses.mdal;

import static io.moses.mdal.KnowledgeBaseContract.FLIGHT;
import static io.moses.mdal.KnowledgeBaseContract.HASH;
import static io.moses.mdal.KnowledgeBaseContract.gold;
import static io.moses.mdal.KnowledgeBaseContract.service;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.mdal.testing.GaleraCluster;
import io.moses.model.Observation;
import io.moses.model.User;
import io.moses.testing.Waits;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One knowledge base on the multi-host URL of a three-node Galera cluster, written to without
 * pause while nodes crash and come back: a node SIGKILLed loses no write (the failed call's
 * connection is dropped and the transaction runs again on another node), the node restarted
 * rejoins; with two of three nodes down nothing is written (no split brain) and the calls fail
 * as UNAVAILABLE saying why, until a node returns.
 */
@Tag("e2e")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GaleraFailoverTest {
    @RegisterExtension
    static final GaleraCluster GALERA = new GaleraCluster(3); // of its own: it kills nodes

    /** Writes a subscription-version bump and an observation every few milliseconds, counting what fails. */
    static final class Writer implements AutoCloseable {
        final KnowledgeBase kb;
        final AtomicLong ok = new AtomicLong();
        final List<KnowledgeBaseException> failures = new CopyOnWriteArrayList<>();
        final AtomicBoolean stop = new AtomicBoolean();
        final Thread thread;

        Writer(KnowledgeBase kb) {
            this.kb = kb;
            thread = new Thread(() -> {
                for (long i = 0; !stop.get() && i < 1_000_000; i++) {
                    try {
                        kb.putServiceQos(new Observation.ServiceQos("flight-a", 0.1 + (i % 10) / 100.0, 0.99, i, Instant.now()));
                        kb.putUser(new User("writer", "gold", i % 100, HASH));
                        ok.incrementAndGet();
                    } catch (KnowledgeBaseException e) {
                        failures.add(e);
                        sleep(20);
                    }
                    sleep(10);
                }
            }, "galera-writer");
            thread.start();
        }

        /** Waits until {@code n} more writes have succeeded. */
        void awaitWrites(int n) {
            long target = ok.get() + n;
            Waits.until(n + " more writes after the fault", 180, () -> ok.get() >= target,
                    () -> ok.get() + " of " + target + ", failures " + failures);
        }

        @Override
        public void close() throws InterruptedException {
            stop.set(true);
            thread.join(TimeUnit.SECONDS.toMillis(60));
        }
    }

    static KnowledgeBase open() throws Exception {
        KnowledgeBase kb = Mdal.open(GALERA.createDatabase(), GALERA.credentials());
        kb.addServiceClass(gold());
        kb.addConcreteService(service("flight-a", FLIGHT));
        return kb;
    }

    @Test
    @Order(1)
    void aNodeKilledLosesNoWriteAndRejoinsWhenRestarted() throws Exception {
        try (KnowledgeBase kb = open(); Writer w = new Writer(kb)) {
            w.awaitWrites(20);
            long before = System.nanoTime();
            GALERA.kill(1); // the first node: the one MDAL connects to while it is Synced
            w.awaitWrites(20);
            System.out.printf("galera failover: 20 writes done %d ms after node 1 was SIGKILLed%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - before));
            GALERA.start(1);
            Waits.until("three nodes Synced again", 180,
                    () -> statusLines().stream().filter(l -> l.contains("Synced") && l.contains("cluster size 3")).count() == 3);
            w.awaitWrites(50);
            assertEquals(List.of(), w.failures.stream().map(Throwable::getMessage).toList(), "no write failed");
        }
    }

    @Test
    @Order(2)
    void twoNodesOfThreeDownStopWritesWithAClearReasonUntilOneReturns() throws Exception {
        try (KnowledgeBase kb = open()) {
            GALERA.kill(2);
            Waits.until("the cluster down to two nodes", 180,
                    () -> statusLines().stream().filter(l -> l.contains("cluster size 2")).count() == 2);
            kb.putUser(new User("before", "gold", 1, HASH));
            GALERA.kill(3); // node 1 alone: one of two is no majority
            Waits.until("node 1 outside the primary component", 180, () -> statusLines().get(0).contains("non-Primary"));
            KnowledgeBaseException e = org.junit.jupiter.api.Assertions.assertThrows(KnowledgeBaseException.class,
                    () -> kb.putUser(new User("during", "gold", 1, HASH)));
            assertEquals(KnowledgeBaseException.Kind.UNAVAILABLE, e.kind(), e.getMessage());
            assertTrue(e.getMessage().contains("primary component"), e.getMessage());
            GALERA.start(3); // the last one to leave comes back: a majority of the last primary component again
            Waits.until("writes resume once node 3 is back", 180, () -> {
                try {
                    kb.putUser(new User("after", "gold", 1, HASH));
                    return true;
                } catch (KnowledgeBaseException x) {
                    return false;
                }
            });
            assertTrue(kb.user("before").isPresent());
            assertTrue(kb.user("during").isEmpty(), "nothing written while there was no quorum");
            GALERA.start(2);
            Waits.until("three nodes Synced again", 180,
                    () -> statusLines().stream().filter(l -> l.contains("Synced") && l.contains("cluster size 3")).count() == 3);
        }
    }

    static List<String> statusLines() {
        try {
            return GALERA.status().lines().filter(l -> l.startsWith("galera-")).toList();
        } catch (Exception e) {
            return List.of();
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
