package io.moses.core;

import static io.moses.core.DurableRestartTest.confirm;
import static io.moses.core.DurableRestartTest.place;
import static io.moses.core.DurableRestartTest.status;
import static io.moses.core.OrderConfirmationEndToEndTest.NS;
import static io.moses.core.OrderConfirmationEndToEndTest.answered;
import static io.moses.core.OrderConfirmationEndToEndTest.fault;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.Mdal;
import io.moses.mdal.testing.MariaDbServer;
import io.moses.testing.Waits;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ode.bpel.common.CorrelationKey;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica's death does not end its durable conversations: the shipped order-confirmation
 * process (durable) through HAProxy's front on two replicas over MariaDB. Orders are placed until
 * two live on r2; r2 is SIGKILLed; the confirmation of one, sent through the front at once, waits
 * for r1 to take r2's instances over (r2's presence expires, the leader moves its instances, jobs
 * and conversation values) and is answered by r1; the other order's alarm, which falls due after
 * the kill, fires on r1 and ends it; nothing of r2's is left in the job table or the owners.
 */
@Tag("e2e")
class DurableTakeoverClusterTest {
    @RegisterExtension
    static final MariaDbServer MARIADB = new MariaDbServer();
    static final Path UNIT = Path.of("../bpel-processes/order-confirmation");
    static final String PROCESS = "{" + NS + "}OrderConfirmation";

    @Test
    @Timeout(300) // bounds a hang only
    void theDurableOrdersOfAKilledReplicaContinueOnTheSurvivorAndItsTimersFireThere(@TempDir Path dir) throws Exception {
        HttpServer inventory = InventoryStub.start();
        try (TestCluster cluster = new TestCluster(dir, MARIADB, List.of("r1", "r2"));
             KnowledgeBase kb = Mdal.open(cluster.db, MARIADB.credentials())) {
            String[] common = {"--deploy", UNIT.toString(), "--monitors", "none", "--optimizer", "off", "--lease", "2000",
                    "--request-timeout", "60000"};
            cluster.start("r1", concat(common, "--seed", UNIT.resolve("seed.yaml").toString(),
                    "--set", "STUBS=http://127.0.0.1:" + inventory.getAddress().getPort()));
            cluster.start("r2", common);
            cluster.haproxy.awaitUp(List.of("r1", "r2"), 30);
            String front = cluster.front();
            // orders through the front until one waiting (10 minutes) and one expiring soon live on r2
            String waits = null, expires = null;
            for (int i = 0; (waits == null || expires == null) && i < 40; i++) {
                String id = "o-" + i;
                boolean expiring = waits != null;
                answered(place(front, id, expiring ? "PT8S" : "PT10M"), id, "placed");
                String owner;
                try {
                    owner = owner(kb, id);
                } catch (AssertionError e) {
                    throw new AssertionError(e.getMessage() + cluster.logs());
                }
                if (!"r2".equals(owner)) continue;
                if (expiring) expires = id;
                else waits = id;
            }
            assertTrue(waits != null && expires != null, "no two orders landed on r2 in 40");
            ChildProcess r2 = cluster.replicas.get("r2");
            r2.process.destroyForcibly(); // SIGKILL, by PID
            assertTrue(r2.process.waitFor(30, TimeUnit.SECONDS));

            // at once: r2 does not answer, so the confirmation waits for the takeover, then r1 answers it
            HttpResponse<String> confirmed;
            try {
                confirmed = confirm(front, waits);
            } catch (java.io.IOException e) {
                throw new AssertionError("the confirmation of " + waits + " got no answer: " + e + cluster.logs(), e);
            }
            assertEquals(200, confirmed.statusCode(), () -> confirmed.body() + cluster.logs());
            answered(confirmed, waits, "confirmed");
            ChildProcess r1 = cluster.replicas.get("r1");
            assertTrue(r1.output().contains("took over replica r2"), r1.output());
            // the expiring order's alarm, r2's job, fires on r1: the order ends, and a status finds no instance
            HttpResponse<String> r;
            while ((r = status(front, expires)).statusCode() == 200) {
                answered(r, expires, "placed");
                Thread.sleep(200); // between two polls of the status: the alarm is the event waited for
            }
            fault(r);
            // nothing of r2's is left: no instance, no job (the alarm's job ran on r1 and was deleted there)
            assertTrue(!kb.durableOwners().contains("r2"), "r2 still owns durable work: " + kb.durableOwners());
        } finally {
            inventory.stop(0);
        }
    }

    /** The replica that owns order {@code id}'s conversation, once registered (after the placing transaction: poll). */
    static String owner(KnowledgeBase kb, String id) {
        String key = new CorrelationKey("order", new String[] {id}).toCanonicalString();
        Waits.until("order " + id + " registered with its owner", 30, () -> kb.conversationOwner(PROCESS, key).isPresent());
        return kb.conversationOwner(PROCESS, key).orElseThrow().replica();
    }

    static String[] concat(String[] first, String... more) {
        String[] all = java.util.Arrays.copyOf(first, first.length + more.length);
        System.arraycopy(more, 0, all, first.length, more.length);
        return all;
    }
}
