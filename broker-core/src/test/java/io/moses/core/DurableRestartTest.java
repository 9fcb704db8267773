package io.moses.core;

import static io.moses.core.OrderConfirmationEndToEndTest.END;
import static io.moses.core.OrderConfirmationEndToEndTest.ENV;
import static io.moses.core.OrderConfirmationEndToEndTest.NS;
import static io.moses.core.OrderConfirmationEndToEndTest.answered;
import static io.moses.core.OrderConfirmationEndToEndTest.fault;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.moses.testing.Waits;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A durable conversation outlives its broker: the shipped order-confirmation process (durable, as
 * its deploy.xml says) on a broker process over the default H2 knowledge base; orders placed,
 * the broker SIGKILLed and started again with the same command line; the waiting order is
 * confirmed by the new broker, and the order whose timer fell due while it was down expires.
 */
@Tag("e2e")
class DurableRestartTest {
    static final Path UNIT = Path.of("../bpel-processes/order-confirmation");
    static final HttpClient http = HttpClient.newHttpClient();

    @Test
    @Timeout(300) // bounds a hang only
    void aBrokerKilledAndStartedAgainContinuesItsConversationsAndFiresTheTimersThatFellDue(@TempDir Path work) throws Exception {
        HttpServer inventory = InventoryStub.start();
        List<String> args = List.of("--port", "0", "--work", work.resolve("w").toString(), "--deploy", UNIT.toString(),
                "--seed", UNIT.resolve("seed.yaml").toString(), "--set", "STUBS=http://127.0.0.1:" + inventory.getAddress().getPort(),
                "--request-timeout", "10000");
        try {
            String replicaBefore;
            try (ChildProcess first = new ChildProcess("io.moses.core.Main", args)) {
                String base = "http://127.0.0.1:" + first.await(BrokerProcessTest.LISTENING, 120);
                answered(place(base, "o-waits", "PT10M"), "o-waits", "placed");
                answered(place(base, "o-expires", "PT4S"), "o-expires", "placed");
                replicaBefore = replica(first.output());
                first.process.destroyForcibly(); // SIGKILL: no shutdown hook, nothing flushed on the way out
                assertTrue(first.process.waitFor(30, TimeUnit.SECONDS));
            }
            try (ChildProcess second = new ChildProcess("io.moses.core.Main", args)) {
                String base = "http://127.0.0.1:" + second.await(BrokerProcessTest.LISTENING, 120);
                assertEquals(replicaBefore, replica(second.output()), "the same command line names the same replica");
                // the instance placed before the kill, waiting in the knowledge base, takes the confirmation
                HttpResponse<String> waiting = status(base, "o-waits");
                assertEquals(200, waiting.statusCode(), () -> waiting.body() + "\n--- the broker started again:\n" + second.output());
                answered(waiting, "o-waits", "placed");
                answered(confirm(base, "o-waits"), "o-waits", "confirmed");
                // the other order's alarm fell due (or falls due) after the kill: it fires on this broker and the order ends
                HttpResponse<String> r;
                do {
                    r = status(base, "o-expires");
                } while (r.statusCode() == 200 && pause());
                fault(r);
                assertTrue(second.output().contains("durable jobs resumed"), second.output());
                second.stop(30); // before the knowledge base is read below: H2 lets one process open its file
            }
            // both conversations ended on the second broker: their instances are kept, finished (30 is
            // ODE's completed, 40 completed with a fault), until their retention
            try (var c = java.sql.DriverManager.getConnection("jdbc:h2:file:" + work.resolve("w").resolve("knowledge").toAbsolutePath(), "sa", "");
                 var s = c.createStatement()) {
                assertEquals(0, count(s, "SELECT COUNT(*) FROM ODE_PROCESS_INSTANCE WHERE INSTANCE_STATE NOT IN (30, 40)"), "instances not finished");
                assertEquals(2, count(s, "SELECT COUNT(*) FROM ODE_PROCESS_INSTANCE"), "instances kept");
                // the expired order's timer ran (and was deleted); the confirmed order's 10-minute alarm
                // stays until it falls due, when ODE finds its instance gone
                assertEquals(0, count(s, "SELECT COUNT(*) FROM ODE_JOB WHERE type = 'TIMER' AND ts <= " + System.currentTimeMillis()),
                        "timers due and not run");
                assertEquals(1, count(s, "SELECT COUNT(*) FROM ODE_JOB WHERE type = 'TIMER'"), "the confirmed order's alarm");
            }
        } finally {
            inventory.stop(0);
        }
    }

    /**
     * A callback that comes after its broker was SIGKILLed and started again reaches its durable
     * instance: a durable copy of quote-async whose supplier (this test) takes requestQuote and
     * never calls back itself; the broker is killed while the instance waits for quoteReady, and
     * the callback, sent to the replyTo the request carried, is taken by the broker started again
     * on the same port (so that the address still names it). The call itself was forgotten with
     * the broker's memory: the callback counts as late, and the instance completes with its price.
     */
    @Test
    @Timeout(300) // bounds a hang only
    void aCallbackAfterARestartReachesItsDurableInstance(@TempDir Path work) throws Exception {
        Path unit = Files.createDirectories(work.resolve("quote-async-durable"));
        try (var files = Files.list(QUOTE_ASYNC)) {
            for (Path f : files.toList()) Files.copy(f, unit.resolve(f.getFileName()));
        }
        String dd = Files.readString(unit.resolve("deploy.xml"));
        assertTrue(dd.contains("<in-memory>true</in-memory>"), dd);
        Files.writeString(unit.resolve("deploy.xml"), dd.replace("<in-memory>true</in-memory>", "<in-memory>false</in-memory>"));

        java.util.concurrent.BlockingQueue<String[]> requests = new java.util.concurrent.LinkedBlockingQueue<>();
        HttpServer supplier = HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 10);
        supplier.createContext("/", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            Matcher address = Pattern.compile("<(?:\\w+:)?Address[^>]*>([^<]*)</").matcher(body);
            Matcher id = AsyncProvidersEndToEndTest.REQUEST_ID.matcher(body);
            requests.add(new String[] {address.find() ? address.group(1).replace("&amp;", "&") : null, id.find() ? id.group(1) : null, body});
            exchange.sendResponseHeaders(202, -1); // accepted: the callback comes later, from the test
            exchange.close();
        });
        supplier.start();
        int port = io.moses.mdal.testing.FreePorts.forServer(); // fixed: the replyTo names it, before and after the restart
        List<String> args = List.of("--port", Integer.toString(port), "--work", work.resolve("w").toString(), "--deploy", unit.toString(),
                "--seed", QUOTE_ASYNC.resolve("seed.yaml").toString(), "--set", "STUBS=http://127.0.0.1:" + supplier.getAddress().getPort(),
                "--monitors", "none", "--optimizer", "off", "--request-timeout", "60000");
        String base = "http://127.0.0.1:" + port;
        try {
            String[] request;
            long id;
            try (ChildProcess first = new ChildProcess("io.moses.core.Main", args)) {
                assertEquals(Integer.toString(port), first.await(BrokerProcessTest.LISTENING, 120));
                // its client waits for the price: the kill below ends its connection
                var quote = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    try {
                        return quote(base, "r-1");
                    } catch (Exception e) {
                        throw new java.util.concurrent.CompletionException(e);
                    }
                });
                request = requests.poll(60, TimeUnit.SECONDS);
                assertTrue(request != null, "the supplier got no request:\n" + first.output());
                assertEquals("r-1", request[1], request[2]);
                assertTrue(request[0] != null && request[0].startsWith(base + "/services/QuoteCallbackService?moses-call="), request[2]);
                // the instance's wait for quoteReady is in the knowledge base (committed) before the kill
                id = awaitWaitingInstance(base);
                first.process.destroyForcibly(); // SIGKILL
                assertTrue(first.process.waitFor(30, TimeUnit.SECONDS));
                try {
                    HttpResponse<String> r = quote.get(60, TimeUnit.SECONDS);
                    assertTrue(r.statusCode() != 200, "the quote was answered before the callback: " + r.body());
                } catch (java.util.concurrent.ExecutionException expected) {
                    // the connection ended with the broker
                }
            }
            try (ChildProcess second = new ChildProcess("io.moses.core.Main", args)) {
                assertEquals(Integer.toString(port), second.await(BrokerProcessTest.LISTENING, 120));
                String price = "123.45";
                String callback = "<soap:Envelope xmlns:soap='http://schemas.xmlsoap.org/soap/envelope/'><soap:Body>"
                        + "<q:quoteReady xmlns:q='urn:moses:task:supplier'><q:requestId>r-1</q:requestId><q:price>" + price
                        + "</q:price></q:quoteReady></soap:Body></soap:Envelope>";
                // no credentials: the call's number in the reply address names alice, under the knowledge base's key, which outlives the broker
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(request[0]))
                        .header("Content-Type", "text/xml; charset=utf-8").header("SOAPAction", "\"urn:moses:task:supplier/quoteReady\"")
                        .timeout(Duration.ofSeconds(60)) // bounds a hang only
                        .POST(HttpRequest.BodyPublishers.ofString(callback)).build(), HttpResponse.BodyHandlers.ofString());
                assertTrue(r.statusCode() == 202 || r.statusCode() == 200, r.statusCode() + " " + r.body() + "\n" + second.output());
                // the callback's delivery is the event waited for
                Waits.within(60, () -> instance(base, id).path("state").asText().equals("completed"));
                com.fasterxml.jackson.databind.JsonNode shown = instance(base, id);
                assertEquals("completed", shown.path("state").asText(), shown + "\n" + second.output());
                assertTrue(shown.path("variables").path("ready").asText().contains(">" + price + "<"), shown.toString());
                assertTrue(shown.path("variables").path("response").asText().contains(">" + price + "<"), shown.toString());
                // the broker started again never made the call: the callback is late, and awaited by nothing
                AsyncProvidersEndToEndTest.JsonCallbacks c = AsyncProvidersEndToEndTest.JsonCallbacks.of(base);
                assertEquals(1, c.late(), c.toString());
                assertEquals(0, c.awaited(), c.toString());
            }
            assertEquals(0, requests.size(), "requestQuote was sent once");
        } finally {
            supplier.stop(0);
        }
    }

    static final Path QUOTE_ASYNC = Path.of("../bpel-processes/quote-async");

    static HttpResponse<String> quote(String base, String requestId) throws Exception {
        String body = "<soap:Envelope xmlns:soap='http://schemas.xmlsoap.org/soap/envelope/'><soap:Body>"
                + "<qa:quote xmlns:qa='urn:moses:quote-async'><qa:requestId>" + requestId + "</qa:requestId><qa:item>widget</qa:item>"
                + "</qa:quote></soap:Body></soap:Envelope>";
        return http.send(HttpRequest.newBuilder(URI.create(base + "/services/QuoteAsyncService"))
                .header("Content-Type", "text/xml; charset=utf-8").header("SOAPAction", "\"urn:moses:quote-async/quote\"")
                .header("Authorization", new io.moses.model.auth.BasicCredentials("alice", "alice-demo").header())
                .timeout(Duration.ofSeconds(120)) // bounds a hang only
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static com.fasterxml.jackson.databind.JsonNode admin(String base, String path) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path))
                .header("Authorization", new io.moses.model.auth.BasicCredentials("operator", "operator-demo").header())
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), path + ": " + r.body());
        return new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.body());
    }

    static com.fasterxml.jackson.databind.JsonNode instance(String base, long id) throws Exception {
        return admin(base, "/admin/instances/" + id);
    }

    /** The one QuoteAsync instance, once its route for quoteReady is open (bounded wait). */
    static long awaitWaitingInstance(String base) throws Exception {
        // the instance's commit is the event waited for
        AtomicLong waiting = new AtomicLong(-1);
        AtomicReference<String> last = new AtomicReference<>("");
        Waits.until("a QuoteAsync instance waiting for quoteReady", 60, () -> {
            com.fasterxml.jackson.databind.JsonNode list = admin(base, "/admin/instances?process=QuoteAsync").path("instances");
            if (list.size() == 1) {
                com.fasterxml.jackson.databind.JsonNode shown = instance(base, list.get(0).path("id").asLong());
                last.set(shown.toString());
                for (com.fasterxml.jackson.databind.JsonNode w : shown.path("waitsFor"))
                    if (w.path("kind").asText().equals("message") && w.path("what").asText().contains("quoteReady")) waiting.set(shown.path("id").asLong());
            }
            return waiting.get() >= 0;
        }, last::get);
        return waiting.get();
    }

    private static long count(java.sql.Statement s, String sql) throws java.sql.SQLException {
        try (var rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static boolean pause() throws InterruptedException {
        Thread.sleep(200); // between two polls of an order's status: the alarm is the event waited for
        return true;
    }

    private static String replica(String log) {
        Matcher m = Pattern.compile("replica (\\S+?)[,)]").matcher(log);
        assertTrue(m.find(), log);
        return m.group(1);
    }

    static HttpResponse<String> send(String base, String operation, String fields) throws Exception {
        String payload = "<o:" + operation + " xmlns:o='" + NS + "'>" + fields + "</o:" + operation + ">";
        return http.send(HttpRequest.newBuilder(URI.create(base + "/services/OrderConfirmationService"))
                .header("Content-Type", "text/xml; charset=utf-8")
                .header("SOAPAction", "\"" + NS + "/" + operation + "\"")
                .timeout(Duration.ofSeconds(60)) // bounds a hang only
                .POST(HttpRequest.BodyPublishers.ofString(ENV + payload + END)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> place(String base, String orderId, String expiresAfter) throws Exception {
        return send(base, "placeOrder", "<o:orderId>" + orderId + "</o:orderId><o:item>widget</o:item><o:quantity>1</o:quantity><o:expiresAfter>"
                + expiresAfter + "</o:expiresAfter>");
    }

    static HttpResponse<String> confirm(String base, String orderId) throws Exception {
        return send(base, "confirm", "<o:orderId>" + orderId + "</o:orderId>");
    }

    static HttpResponse<String> status(String base, String orderId) throws Exception {
        return send(base, "status", "<o:orderId>" + orderId + "</o:orderId>");
    }
}
