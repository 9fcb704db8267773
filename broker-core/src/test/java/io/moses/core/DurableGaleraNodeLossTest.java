package io.moses.core;

import static io.moses.core.DurableRestartTest.confirm;
import static io.moses.core.DurableRestartTest.place;
import static io.moses.core.DurableRestartTest.status;
import static io.moses.core.OrderConfirmationEndToEndTest.answered;
import static io.moses.core.OrderConfirmationEndToEndTest.fault;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.moses.core.loop.Adaptation;
import io.moses.mdal.testing.GaleraCluster;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Galera node's loss under durable traffic: a broker over three Galera nodes (MDAL on the
 * first Synced one) places orders of the durable order-confirmation process without pause while
 * that node is SIGKILLed. Every order the broker answered "placed" is still there and is
 * confirmed afterwards; an order whose placing met the crash got an answer too (a fault, or
 * "placed" once the engine ran its job again on another node); a timer set before the crash
 * fires after it.
 */
@Tag("e2e")
class DurableGaleraNodeLossTest {
    @RegisterExtension
    static final GaleraCluster GALERA = new GaleraCluster(3); // of its own: it kills a node

    @Test
    @Timeout(400) // bounds a hang only
    void ordersAcceptedBeforeAndWhileTheBrokersNodeDiesSurviveOnTheOthers(@TempDir Path work) throws Exception {
        HttpServer inventory = InventoryStub.start();
        String db = GALERA.createDatabase() + "?user=" + GALERA.user() + "&password=" + GALERA.password();
        Broker broker = new Broker(BrokerConfig.defaults().withAdaptation(Adaptation.off()).withPort(0).withWorkDir(work).withDb(db)
                .withSeeds(List.of(DurableRestartTest.UNIT.resolve("seed.yaml"))).withVariables(Map.of("STUBS", InventoryStub.url(inventory)))
                .withTimeouts(Duration.ofSeconds(45), Duration.ofSeconds(10)).withDeployments(List.of(DurableRestartTest.UNIT)));
        try {
            broker.start();
            String base = "http://127.0.0.1:" + broker.port();
            answered(place(base, "o-expires", "PT20S"), "o-expires", "placed");
            // orders placed one after another, from before the crash until well after it
            CountDownLatch tenPlaced = new CountDownLatch(10);
            List<String> placed = new java.util.concurrent.CopyOnWriteArrayList<>();
            List<String> refused = new java.util.concurrent.CopyOnWriteArrayList<>();
            CompletableFuture<Void> orders = CompletableFuture.runAsync(() -> {
                for (int i = 0; i < 40; i++) {
                    String id = "o-" + i;
                    try {
                        HttpResponse<String> r = place(base, id, "PT10M");
                        if (r.statusCode() == 200) {
                            answered(r, id, "placed");
                            placed.add(id);
                        } else {
                            fault(r);
                            refused.add(id + ": " + r.body());
                        }
                    } catch (Exception e) {
                        throw new AssertionError("order " + id + " got no answer: " + e, e);
                    }
                    tenPlaced.countDown();
                }
            });
            assertTrue(tenPlaced.await(120, TimeUnit.SECONDS), "ten orders were not placed");
            GALERA.kill(1); // the node MDAL chose: the first Synced one
            orders.get(300, TimeUnit.SECONDS);
            assertTrue(placed.size() >= 10, "placed " + placed + ", refused " + refused);
            List<String> lost = new ArrayList<>();
            for (String id : placed) {
                HttpResponse<String> r = confirm(base, id);
                if (r.statusCode() != 200) lost.add(id + ": " + r.body());
                else answered(r, id, "confirmed");
            }
            assertEquals(List.of(), lost, "orders answered 'placed' and then lost (refused while the node died: " + refused + ")");
            // the timer set before the crash fires after it, on the surviving nodes
            HttpResponse<String> r;
            while ((r = status(base, "o-expires")).statusCode() == 200) {
                answered(r, "o-expires", "placed");
                Thread.sleep(200); // between two polls of the status: the alarm is the event waited for
            }
            fault(r);
        } finally {
            broker.close();
            inventory.stop(0);
        }
    }
}
