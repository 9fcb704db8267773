package io.moses.core;

import static io.moses.core.DurableRestartTest.confirm;
import static io.moses.core.DurableRestartTest.place;
import static io.moses.core.DurableTakeoverClusterTest.concat;
import static io.moses.core.DurableTakeoverClusterTest.owner;
import static io.moses.core.OrderConfirmationEndToEndTest.answered;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.Mdal;
import io.moses.mdal.testing.MariaDbServer;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rolling upgrade that loses a replica: through HAProxy's front on two replicas over MariaDB,
 * r1 runs the second version of the order-confirmation unit (from its --deploy directory) while
 * r2 still runs the first. An order placed on r2 outlives r2's SIGKILL: r1 takes it over,
 * registers the first version again from its files in the knowledge base, and the order is
 * confirmed on the version it started on; r1's own orders run on the second.
 */
@Tag("e2e")
class DurableVersionsClusterTest {
    @RegisterExtension
    static final MariaDbServer MARIADB = new MariaDbServer();

    @Test
    @Timeout(300) // bounds a hang only
    void anOrderOfAKilledReplicasOlderVersionFinishesOnThatVersionOnTheSurvivor(@TempDir Path dir) throws Exception {
        HttpServer inventory = InventoryStub.start();
        Path v1 = DurableVersionsTest.version(dir.resolve("v1"), DurableVersionsTest.V1);
        Path v2 = DurableVersionsTest.version(dir.resolve("v2"), DurableVersionsTest.V2);
        try (TestCluster cluster = new TestCluster(dir, MARIADB, List.of("r1", "r2"));
             KnowledgeBase kb = Mdal.open(cluster.db, MARIADB.credentials())) {
            String[] common = {"--monitors", "none", "--optimizer", "off", "--lease", "2000", "--request-timeout", "60000"};
            cluster.start("r1", concat(common, "--deploy", v2.toString(), "--seed", DurableRestartTest.UNIT.resolve("seed.yaml").toString(),
                    "--set", "STUBS=http://127.0.0.1:" + inventory.getAddress().getPort()));
            cluster.start("r2", concat(common, "--deploy", v1.toString()));
            cluster.haproxy.awaitUp(List.of("r1", "r2"), 30);
            String front = cluster.front();
            String onR1 = null, onR2 = null;
            for (int i = 0; (onR1 == null || onR2 == null) && i < 40; i++) {
                String id = "o-" + i;
                answered(place(front, id, "PT10M"), id, "placed");
                String owner = owner(kb, id);
                if ("r1".equals(owner) && onR1 == null) onR1 = id;
                if ("r2".equals(owner) && onR2 == null) onR2 = id;
            }
            assertTrue(onR1 != null && onR2 != null, "no order landed on each replica in 40");
            ChildProcess r2 = cluster.replicas.get("r2");
            r2.process.destroyForcibly(); // SIGKILL, by PID
            assertTrue(r2.process.waitFor(30, TimeUnit.SECONDS));

            String older = onR2, newer = onR1;
            HttpResponse<String> taken;
            try {
                taken = confirm(front, older); // waits for the takeover, then r1 answers
            } catch (java.net.http.HttpTimeoutException e) {
                throw new AssertionError("the confirm of r2's order was not answered: " + e.getMessage() + cluster.logs(), e);
            }
            assertEquals(200, taken.statusCode(), () -> taken.body() + cluster.logs());
            answered(taken, older, "confirmed");
            assertTrue(taken.body().contains(DurableVersionsTest.V1),
                    () -> "r2's order must finish on the version it started on: " + taken.body() + cluster.logs());
            ChildProcess r1 = cluster.replicas.get("r1");
            assertTrue(r1.output().contains("took over replica r2") && r1.output().contains("a replaced version of order-confirmation"),
                    r1.output());
            HttpResponse<String> own = confirm(front, newer);
            answered(own, newer, "confirmed");
            assertTrue(own.body().contains(DurableVersionsTest.V2), () -> "r1's order runs on r1's version: " + own.body());
        } finally {
            inventory.stop(0);
        }
    }
}
