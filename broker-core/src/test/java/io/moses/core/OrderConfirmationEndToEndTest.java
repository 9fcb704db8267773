package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.moses.core.loop.Adaptation;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped long-running example, bpel-processes/order-confirmation, on a real broker over
 * SOAP: an order is placed and confirmed, or left to expire; a message for an order that has no
 * instance (expired, or never placed) is answered with a SOAP fault, not left hanging.
 *
 * <p>It runs durable, as its deploy.xml says (DurableRestartTest and DurableTakeoverClusterTest
 * kill its broker and its replica). Its one partner, inventory.reserve, is bound by the unit's own seed.yaml to an HTTP server
 * here that answers as the inventory stub does.
 */
@Tag("e2e")
class OrderConfirmationEndToEndTest {
    static final String ENV = "<s:Envelope xmlns:s='http://schemas.xmlsoap.org/soap/envelope/'><s:Body>";
    static final String END = "</s:Body></s:Envelope>";
    static final String NS = "urn:moses:order-confirmation";
    static final Path UNIT = Path.of("../bpel-processes/order-confirmation");
    /** How long the broker waits for a process's reply: what a message that reaches no instance costs. */
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);

    static HttpServer inventory;
    static final AtomicInteger reservations = new AtomicInteger();
    static Broker broker;
    static String base;
    static final HttpClient http = HttpClient.newHttpClient();
    @TempDir static Path work;

    @BeforeAll
    static void start() throws Exception {
        inventory = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
        inventory.setExecutor(Executors.newFixedThreadPool(2));
        inventory.createContext("/stubs/inventory", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            reservations.incrementAndGet();
            String amount = body.replaceAll("(?s).*<amount[^>]*>\\s*([^<]*?)\\s*<.*", "$1");
            byte[] reply = (ENV + "<m:reserveResponse xmlns:m='urn:moses:task:inventory'><result>reserved " + amount
                    + " by inventory</result></m:reserveResponse>" + END).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/xml; charset=utf-8");
            exchange.sendResponseHeaders(200, reply.length);
            exchange.getResponseBody().write(reply);
            exchange.close();
        });
        inventory.start();
        BrokerConfig config = BrokerConfig.defaults().withAdaptation(Adaptation.off()).withPort(0).withWorkDir(work)
                .withDb("mem:order-confirmation").withSeeds(List.of(UNIT.resolve("seed.yaml")))
                .withVariables(Map.of("STUBS", "http://127.0.0.1:" + inventory.getAddress().getPort()))
                .withTimeouts(REQUEST_TIMEOUT, Duration.ofSeconds(10))
                .withDeployments(List.of(UNIT));
        broker = new Broker(config);
        broker.start();
        base = "http://127.0.0.1:" + broker.port();
    }

    @AfterAll
    static void stop() {
        if (broker != null) broker.close();
        if (inventory != null) {
            inventory.stop(0);
            ((ExecutorService) inventory.getExecutor()).shutdownNow();
        }
    }

    static HttpResponse<String> send(String operation, String fields) throws Exception {
        String payload = "<o:" + operation + " xmlns:o='" + NS + "'>" + fields + "</o:" + operation + ">";
        return http.send(HttpRequest.newBuilder(URI.create(base + "/services/OrderConfirmationService"))
                .header("Content-Type", "text/xml; charset=utf-8")
                .header("SOAPAction", "\"" + NS + "/" + operation + "\"")
                .timeout(REQUEST_TIMEOUT.multipliedBy(4)) // bounds a hang only: the broker answers by its own timeout
                .POST(HttpRequest.BodyPublishers.ofString(ENV + payload + END)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> place(String orderId, int quantity, String expiresAfter) throws Exception {
        return send("placeOrder", "<o:orderId>" + orderId + "</o:orderId><o:item>widget</o:item><o:quantity>" + quantity
                + "</o:quantity><o:expiresAfter>" + expiresAfter + "</o:expiresAfter>");
    }

    static HttpResponse<String> confirm(String orderId) throws Exception {
        return send("confirm", "<o:orderId>" + orderId + "</o:orderId>");
    }

    static HttpResponse<String> status(String orderId) throws Exception {
        return send("status", "<o:orderId>" + orderId + "</o:orderId>");
    }

    static String field(HttpResponse<String> r, String name) {
        String body = r.body();
        assertTrue(body.matches("(?s).*<(\\w+:)?" + name + "[^>]*>.*"), "no " + name + " in " + body);
        return body.replaceAll("(?s).*<(\\w+:)?" + name + "[^>]*>([^<]*)<.*", "$2");
    }

    /** An answer of the order service: 200, for {@code orderId}, in {@code status}. */
    static void answered(HttpResponse<String> r, String orderId, String status) {
        assertEquals(200, r.statusCode(), r.body());
        assertEquals(orderId, field(r, "orderId"), r.body());
        assertEquals(status, field(r, "status"), r.body());
    }

    /** A SOAP fault, and not an answer for the order. */
    static void fault(HttpResponse<String> r) {
        assertEquals(500, r.statusCode(), r.body());
        assertTrue(r.body().contains("Fault>") && r.body().contains("faultstring"), r.body());
        assertTrue(!r.body().contains("orderStatus"), r.body());
    }

    @Test
    void aPlacedOrderIsConfirmed() throws Exception {
        int before = reservations.get();
        HttpResponse<String> placed = place("o-confirm", 3, "PT10M");
        answered(placed, "o-confirm", "placed");
        assertEquals("reserved 3 by inventory", field(placed, "detail"), "placing reserved the quantity at the inventory");
        assertEquals(before + 1, reservations.get());

        HttpResponse<String> waiting = status("o-confirm");
        answered(waiting, "o-confirm", "placed");
        assertTrue(field(waiting, "detail").contains("PT10M"), waiting.body());

        answered(confirm("o-confirm"), "o-confirm", "confirmed");
    }

    @Test
    void twoOrdersAreTwoConversations() throws Exception {
        answered(place("o-first", 1, "PT10M"), "o-first", "placed");
        answered(place("o-second", 2, "PT10M"), "o-second", "placed");
        // each confirm reaches its own order's instance
        answered(confirm("o-second"), "o-second", "confirmed");
        answered(status("o-first"), "o-first", "placed");
        answered(confirm("o-first"), "o-first", "confirmed");
    }

    @Test
    @Timeout(120) // a hang bound: the order expires after 2 s
    void anOrderNotConfirmedInTimeExpiresAndAConfirmAfterwardsFaults() throws Exception {
        answered(place("o-expire", 1, "PT2S"), "o-expire", "placed");
        // the instance answers status while it waits; once it expired, nothing does
        HttpResponse<String> r;
        while ((r = status("o-expire")).statusCode() == 200) {
            answered(r, "o-expire", "placed");
            Thread.sleep(100); // polling pace, not a synchronisation
        }
        fault(r);
        fault(confirm("o-expire"));
    }

    /**
     * A status asked just as its order expires reaches the waiting instance, or gets the fault of
     * an ended conversation at once: never queued for an instance that is gone, where its caller
     * would wait for the request's timeout. Two callers per order ask without pause, so that
     * some status is on its way as each alarm ends its instance.
     */
    @Test
    @Timeout(180) // a hang bound: the orders expire after 2 s
    void aStatusAskedAsItsOrderExpiresIsAnsweredOrFaultedAtOnce() throws Exception {
        int orders = 10;
        for (int i = 0; i < orders; i++) answered(place("o-race-" + i, 1, "PT2S"), "o-race-" + i, "placed");
        ExecutorService askers = Executors.newFixedThreadPool(2 * orders);
        try {
            List<java.util.concurrent.Future<String>> ended = new java.util.ArrayList<>();
            for (int i = 0; i < 2 * orders; i++) {
                String id = "o-race-" + i / 2;
                ended.add(askers.submit(() -> {
                    for (int asked = 0; asked < 5_000; asked++) { // bounded: an order answers a few hundred times at most
                        HttpResponse<String> r = status(id);
                        if (r.statusCode() != 200) return id + ": " + r.body();
                        answered(r, id, "placed");
                    }
                    return "still placed after 5000 status calls";
                }));
            }
            for (var f : ended) {
                String body = f.get(120, java.util.concurrent.TimeUnit.SECONDS);
                assertTrue(body.contains("faultstring") && body.contains("its conversation ended"), body);
            }
        } finally {
            askers.shutdownNow();
        }
    }

    @Test
    void aConfirmForAnOrderNeverPlacedFaults() throws Exception {
        // today the broker waits out its grace for another replica's instance, then ODE keeps the
        // message for an instance to come, and the caller gets the request timeout's fault
        fault(confirm("o-unknown"));
    }
}
