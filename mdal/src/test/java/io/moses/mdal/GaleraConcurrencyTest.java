package io.moses.mdal;

import static io.moses.mdal.KnowledgeBaseContract.FLIGHT;
import static io.moses.mdal.KnowledgeBaseContract.HASH;
import static io.moses.mdal.KnowledgeBaseContract.draft;
import static io.moses.mdal.KnowledgeBaseContract.gold;
import static io.moses.mdal.KnowledgeBaseContract.runConcurrently;
import static io.moses.mdal.KnowledgeBaseContract.service;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.mdal.testing.GaleraCluster;
import io.moses.model.ConcreteService;
import io.moses.model.Plan;
import io.moses.model.ProviderSla;
import io.moses.model.ServiceClass;
import io.moses.model.TaskRef;
import io.moses.model.User;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The knowledge base's concurrency promises when the writers are on different Galera nodes:
 * there the nodes' row locks do not see each other, and only certification at commit orders
 * the writers (the loser gets a deadlock error, MDAL retries it, and on the retry it sees the
 * winner's commit). Each of three knowledge bases talks to one node.
 */
@Tag("e2e")
class GaleraConcurrencyTest {
    @RegisterExtension
    static final GaleraCluster GALERA = GaleraCluster.shared();

    final List<KnowledgeBase> nodes = new ArrayList<>();

    @BeforeEach
    void open() throws Exception {
        String url = GALERA.createDatabase();
        String db = url.substring(url.lastIndexOf('/') + 1);
        for (int i = 1; i <= GALERA.nodes(); i++) nodes.add(Mdal.open(GALERA.jdbcUrl(db, i), GALERA.credentials()));
    }

    @AfterEach
    void close() {
        nodes.forEach(KnowledgeBase::close);
    }

    /** The knowledge base of the node thread {@code t} writes on. */
    KnowledgeBase on(int t) {
        return nodes.get(t % nodes.size());
    }

    @Test
    void subscriptionsDecidedOnOneVersionOnDifferentNodesAdmitExactlyOne() throws Exception {
        on(0).addServiceClass(gold());
        for (int round = 0; round < 5; round++) {
            long v = on(round).subscriptionsVersion();
            int r = round;
            List<String> outcomes = runConcurrently(9, t -> {
                try {
                    on(t).subscribe(new User("r" + r + "u" + t, "gold", 1, HASH), v);
                    return List.of("admitted");
                } catch (KnowledgeBaseException e) {
                    assertEquals(KnowledgeBaseException.Kind.CONFLICT, e.kind(), e.getMessage());
                    return List.of("refused");
                }
            });
            assertEquals(1, Collections.frequency(outcomes, "admitted"), "round " + round + ": " + outcomes);
            for (KnowledgeBase kb : nodes) assertEquals(round + 1, kb.users().size(), "every node sees one user admitted per round");
        }
    }

    @Test
    void replicasRacingForTheLeaseOnDifferentNodesYieldOneHolderPerTerm() throws Exception {
        Duration ttl = Duration.ofSeconds(3);
        Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
        for (int round = 0; round < 8; round++) {
            Instant now = t0.plusSeconds(10L * round); // the last round's holder has expired
            int r = round;
            List<Lease> seen = runConcurrently(9, t -> List.of(on(t).acquireLease("optimizer", "round" + r + "-r" + t, now, ttl)));
            Set<String> holders = new HashSet<>();
            for (Lease l : seen) holders.add(l.holder());
            assertEquals(1, holders.size(), "round " + round + ": every replica sees the same holder, saw " + holders);
            assertTrue(holders.iterator().next().startsWith("round" + round + "-"));
            for (KnowledgeBase kb : nodes) assertEquals(round + 1, kb.lease("optimizer").orElseThrow().term(), "one takeover per round");
        }
    }

    @Test
    void publishersOnDifferentNodesGetUniqueGapFreeVersions() throws Exception {
        on(0).addServiceClass(gold());
        on(0).addServiceClass(new ServiceClass("silver", 3, 0.95, 6, 7));
        on(0).addConcreteService(service("flight-a", FLIGHT));
        on(0).addConcreteService(service("flight-b", FLIGHT));
        on(0).addConcreteService(service("hotel-a", KnowledgeBaseContract.HOTEL));
        int threads = 6, each = 6;
        List<Plan> published = runConcurrently(threads, t -> {
            List<Plan> mine = new ArrayList<>();
            for (int i = 0; i < each; i++) mine.add(on(t).publish(draft("t" + t + "-" + i)));
            return mine;
        });
        Set<Long> versions = new HashSet<>();
        for (Plan p : published) assertTrue(versions.add(p.version()), "duplicate version " + p.version());
        assertEquals(1L, Collections.min(versions));
        assertEquals((long) threads * each, Collections.max(versions), "gap-free");
        for (KnowledgeBase kb : nodes) {
            assertEquals(threads * each, kb.latestPlanVersion());
            for (Plan p : published) assertEquals(p.reason(), kb.plan(p.version()).orElseThrow().reason(), "version " + p.version());
        }
    }

    @Test
    void updatesOfOneRecordOnDifferentNodesLoseNothing() throws Exception {
        on(0).addServiceClass(gold());
        on(0).addConcreteService(service("flight-a", FLIGHT));
        on(0).addUser(new User("alice", "gold", 0, HASH));
        int threads = 6, each = 10;
        runConcurrently(threads, t -> {
            for (int i = 0; i < each; i++) {
                on(t).updateConcreteService("flight-a", s -> new ConcreteService(s.name(), s.task(), s.endpoint(),
                        new ProviderSla(s.sla().responseTime(), s.sla().availability(), s.sla().cost() + 1, s.sla().maxRate()), s.mapping()));
                on(t).updateUser("alice", u -> new User(u.name(), u.serviceClass(), u.rate() + 0.5, u.passwordHash()));
            }
            return List.of();
        });
        for (KnowledgeBase kb : nodes) {
            assertEquals(1.5 + threads * each, kb.concreteService("flight-a").orElseThrow().sla().cost(), 1e-9);
            assertEquals(0.5 * threads * each, kb.user("alice").orElseThrow().rate(), 1e-9);
        }
    }

    @Test
    void sameNewRecordsAddedOnDifferentNodesAreAddedOnce() throws Exception {
        on(0).addServiceClass(gold());
        List<String> outcomes = runConcurrently(6, t -> {
            List<String> out = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                try {
                    on(t).addConcreteService(service("shared-" + i, new TaskRef(KnowledgeBaseContract.TP, "task" + i + ".op")));
                    out.add("added");
                } catch (KnowledgeBaseException e) {
                    assertEquals(KnowledgeBaseException.Kind.CONFLICT, e.kind(), e.getMessage());
                    out.add("conflict");
                }
            }
            return out;
        });
        assertEquals(5, Collections.frequency(outcomes, "added"), "each name added exactly once: " + outcomes);
        for (KnowledgeBase kb : nodes) assertEquals(5, kb.concreteServices().size());
    }
}
