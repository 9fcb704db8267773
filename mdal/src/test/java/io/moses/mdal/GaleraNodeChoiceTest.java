package io.moses.mdal;

import static io.moses.mdal.KnowledgeBaseContract.HASH;
import static io.moses.mdal.KnowledgeBaseContract.gold;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.mdal.testing.GaleraCluster;
import io.moses.model.User;
import io.moses.testing.Waits;
import java.lang.reflect.Field;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * MDAL chooses the Galera node of each new connection: the first of the URL's nodes that is
 * Synced in the primary component. A node that answers but is desynced (a donor, or held back
 * with {@code wsrep_desync}) or cut off from the majority gets no connection, though it is first
 * in the URL and accepts connections; Connector/J's failover alone used it (the rejoining node
 * that cost the leader its lease in the drills).
 */
@Tag("e2e")
class GaleraNodeChoiceTest {
    @RegisterExtension
    static final GaleraCluster GALERA = new GaleraCluster(3); // of its own: it desyncs and isolates nodes

    /** The Galera node ({@code n1}...) a transaction of {@code kb} runs on. */
    static String nodeOf(KnowledgeBase kb) {
        return ((JdbcKnowledgeBase) kb).database().tx("which node", c -> {
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT @@wsrep_node_name")) {
                rs.next();
                return rs.getString(1);
            }
        });
    }

    /** This class's cluster's node lines ({@code galera-n1 ...}), as {@link GaleraFailoverTest#statusLines()} gives its own. */
    static List<String> statusLines() {
        try {
            return GALERA.status().lines().filter(l -> l.startsWith("galera-")).toList();
        } catch (Exception e) {
            return List.of();
        }
    }

    static void awaitAllSynced() {
        Waits.until("three nodes Synced", 180,
                () -> statusLines().stream().filter(l -> l.contains(" Synced ") && l.contains("cluster size 3 ")).count() == 3);
    }

    /**
     * Hikari sets a new or validated connection's network timeout to the validation timeout (1 s)
     * and back; on an executor thread of its own unless the pool knows the driver is MySQL's, and
     * a late restore left the borrower's commit a 1 s socket timeout (a commit waiting for a
     * killed node's eviction then failed in GaleraFailoverTest). The pool with MDAL's own node
     * choice must set them synchronously, and hand out connections with the URL's timeout.
     */
    @Test
    void connectionsComeWithTheUrlsSocketTimeoutSetSynchronously() throws Exception {
        try (KnowledgeBase kb = Mdal.open(GALERA.createDatabase(), GALERA.credentials())) {
            Database db = ((JdbcKnowledgeBase) kb).database();
            Object pool = db.pool().getHikariPoolMXBean();
            Field executor = Class.forName("com.zaxxer.hikari.pool.PoolBase").getDeclaredField("netTimeoutExecutor");
            executor.setAccessible(true);
            assertEquals("SynchronousExecutor", executor.get(pool).getClass().getSimpleName(),
                    "the pool's network-timeout executor");
            for (int i = 0; i < 5; i++) {
                db.pool().getHikariPoolMXBean().softEvictConnections(); // each transaction on a new connection
                assertEquals(30_000, (int) db.tx("network timeout", c -> c.getNetworkTimeout()), "socket timeout of connection " + i);
            }
        }
    }

    @Test
    void aDesyncedNodeGetsNoNewConnectionsThoughFirstInTheUrl() throws Exception {
        String url = GALERA.createDatabase();
        try (KnowledgeBase kb = Mdal.open(url, GALERA.credentials())) {
            assertEquals("n1", nodeOf(kb), "every node Synced: the first in the URL");
        }
        GALERA.admin(1, "SET GLOBAL wsrep_desync = ON");
        try {
            Waits.until("node 1 desynced", 180, () -> statusLines().get(0).contains("Donor/Desynced"));
            try (KnowledgeBase kb = Mdal.open(url, GALERA.credentials())) {
                assertEquals("n2", nodeOf(kb), "node 1 is not Synced: the next node");
                kb.addServiceClass(gold());
                kb.addUser(new User("alice", "gold", 1, HASH));
                assertTrue(kb.user("alice").isPresent());
                assertEquals("n2", nodeOf(kb));
            }
        } finally {
            GALERA.admin(1, "SET GLOBAL wsrep_desync = OFF");
            awaitAllSynced();
        }
    }

    @Test
    void aNodeCutOffFromTheMajorityLosesItsConnectionsToASyncedNode() throws Exception {
        String url = GALERA.createDatabase();
        try (KnowledgeBase kb = Mdal.open(url, GALERA.credentials())) {
            kb.addServiceClass(gold());
            assertEquals("n1", nodeOf(kb));
            // node 1 alone in a component of its own: it accepts connections and answers every
            // query "not ready"; the other two are the primary component
            GALERA.admin(1, "SET GLOBAL wsrep_provider_options = 'gmcast.isolate=1'");
            try {
                Waits.until("node 1 cut off, nodes 2 and 3 primary", 180, () -> statusLines().get(0).contains("non-Primary")
                        && statusLines().get(1).contains("cluster size 2 ") && statusLines().get(1).contains(" Synced "));
                // the pooled connection on node 1 fails once, is dropped, and the write runs on node 2
                kb.putUser(new User("bob", "gold", 1, HASH));
                assertEquals("n2", nodeOf(kb));
                try (KnowledgeBase fresh = Mdal.open(url, GALERA.credentials())) {
                    assertEquals("n2", nodeOf(fresh), "a new knowledge base skips node 1 too");
                    assertTrue(fresh.user("bob").isPresent());
                }
            } finally {
                GALERA.admin(1, "SET GLOBAL wsrep_provider_options = 'gmcast.isolate=0'");
                awaitAllSynced();
            }
        }
    }
}
