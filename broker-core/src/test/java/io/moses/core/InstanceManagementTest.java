package io.moses.core;

import static io.moses.core.OrderConfirmationEndToEndTest.END;
import static io.moses.core.OrderConfirmationEndToEndTest.ENV;
import static io.moses.core.OrderConfirmationEndToEndTest.answered;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.moses.core.loop.Adaptation;
import io.moses.model.auth.BasicCredentials;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Operators and durable instances: the shipped order-confirmation unit (durable) on a broker over
 * the default H2 knowledge base. A waiting order is listed with its correlation value and its
 * owner replica and shown with its variables and what it waits for; a suspended order takes its
 * confirmation only once resumed; a terminated one ends and waits for nothing; a finished one is
 * purged after the retention; users who are not operators are refused; {@code moses admin
 * instances} lists the instances of a running broker.
 */
@Tag("e2e")
@Timeout(300) // bounds a hang only
class InstanceManagementTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final Path UNIT = Path.of("../bpel-processes/order-confirmation");
    /** Short, for the purge test; long enough that the other tests read a finished instance before it goes. */
    static final Duration RETENTION = Duration.ofSeconds(8);
    @TempDir static Path work;
    static HttpServer inventory;
    static Broker broker;
    static String base;
    static final List<Long> purged = new java.util.concurrent.CopyOnWriteArrayList<>();
    static volatile CountDownLatch purgeWatch = new CountDownLatch(1);
    static volatile long purgeWatched = -1;

    @BeforeAll
    static void start() throws Exception {
        inventory = InventoryStub.start();
        Path people = work.resolve("people.yaml");
        Files.writeString(people, """
                classes:
                  - {name: gold, maxResponseTime: 5.0, minAvailability: 0.5, maxCost: 100, price: 5}
                users:
                  - {name: alice, class: gold, rate: 0, password: alice-secret}
                  - {name: olga, class: gold, rate: 0, password: olga-secret, role: operator}
                """);
        BrokerConfig config = BrokerConfig.defaults().withPort(0).withWorkDir(work.resolve("broker")).withAdaptation(Adaptation.off())
                .withSeeds(List.of(UNIT.resolve("seed.yaml"), people))
                .withVariables(Map.of("STUBS", InventoryStub.url(inventory)))
                .withTimeouts(Duration.ofSeconds(60), Duration.ofSeconds(10))
                .withDeployments(List.of(UNIT)).withInstanceRetention(RETENTION);
        broker = new Broker(config).onPurged(id -> {
            purged.add(id);
            if (id == purgeWatched) purgeWatch.countDown();
        });
        broker.start();
        base = "http://127.0.0.1:" + broker.port();
    }

    @AfterAll
    static void stop() {
        if (broker != null) broker.close();
        if (inventory != null) inventory.stop(0);
    }

    static HttpResponse<String> send(String operation, String fields) throws Exception {
        return HTTP.send(soap(operation, fields), HttpResponse.BodyHandlers.ofString());
    }

    static HttpRequest soap(String operation, String fields) {
        String ns = OrderConfirmationEndToEndTest.NS;
        String payload = "<o:" + operation + " xmlns:o='" + ns + "'>" + fields + "</o:" + operation + ">";
        return HttpRequest.newBuilder(URI.create(base + "/services/OrderConfirmationService"))
                .header("Content-Type", "text/xml; charset=utf-8").header("SOAPAction", "\"" + ns + "/" + operation + "\"")
                .header("Authorization", new BasicCredentials("alice", "alice-secret").header())
                .timeout(Duration.ofSeconds(120)) // bounds a hang only
                .POST(HttpRequest.BodyPublishers.ofString(ENV + payload + END)).build();
    }

    static void place(String order) throws Exception {
        answered(send("placeOrder", "<o:orderId>" + order + "</o:orderId><o:item>widget</o:item><o:quantity>1</o:quantity>"
                + "<o:expiresAfter>PT10M</o:expiresAfter>"), order, "placed");
    }

    static HttpResponse<String> admin(String method, String path, String user, String password) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).method(method, HttpRequest.BodyPublishers.noBody());
        if (user != null) b.header("Authorization", new BasicCredentials(user, password).header());
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode operator(String method, String path, int status) throws Exception {
        HttpResponse<String> r = admin(method, path, "olga", "olga-secret");
        assertEquals(status, r.statusCode(), method + " " + path + ": " + r.body());
        return JSON.readTree(r.body());
    }

    /** The listed instance whose correlation value is {@code order}. */
    static JsonNode listed(String order) throws Exception {
        for (JsonNode i : operator("GET", "/admin/instances?process=OrderConfirmation", 200).path("instances"))
            if (order.equals(i.path("correlation").path("order").path("orderId").asText())) return i;
        throw new AssertionError("no instance of order " + order);
    }

    static String replica() throws Exception {
        JsonNode health = JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(base + "/health")).build(),
                HttpResponse.BodyHandlers.ofString()).body());
        String name = health.path("replica").asText(null);
        assertNotNull(name, health.toString());
        return name;
    }

    static boolean waitsForConfirm(JsonNode shown) {
        for (JsonNode w : shown.path("waitsFor"))
            if (w.path("kind").asText().equals("message") && w.path("what").asText().contains("confirm")) return true;
        return false;
    }

    @Test
    void aWaitingInstanceIsListedWithItsCorrelationValueAndOwnerAndShownWithItsVariablesAndWhatItWaitsFor() throws Exception {
        place("o-listed");
        JsonNode i = listed("o-listed");
        assertEquals("active", i.path("state").asText(), i.toString());
        assertEquals("{urn:moses:order-confirmation}OrderConfirmation", i.path("process").asText(), i.toString());
        assertEquals(replica(), i.path("owner").asText(), i.toString());
        assertFalse(i.path("started").isNull(), i.toString());

        JsonNode shown = operator("GET", "/admin/instances/" + i.path("id").asLong(), 200);
        assertEquals("active", shown.path("state").asText());
        assertTrue(shown.path("variables").path("order").asText().contains("o-listed"), shown.toString());
        assertTrue(shown.path("variables").path("answer").asText().contains("placed"), shown.toString());
        assertTrue(waitsForConfirm(shown), shown.toString());
        boolean timer = false;
        for (JsonNode w : shown.path("waitsFor")) timer |= w.path("kind").asText().equals("timer") && !w.path("due").isMissingNode();
        assertTrue(timer, "the order's alarm: " + shown);

        // filters and bounds
        assertEquals(1, operator("GET", "/admin/instances?limit=1", 200).path("instances").size());
        for (JsonNode x : operator("GET", "/admin/instances?state=active", 200).path("instances"))
            assertEquals("active", x.path("state").asText());
        assertEquals(0, operator("GET", "/admin/instances?process=NoSuchProcess", 200).path("instances").size());
        assertTrue(operator("GET", "/admin/instances?state=sleeping", 400).path("error").asText().contains("no state 'sleeping'"));
        operator("GET", "/admin/instances?limit=0", 400);
        operator("GET", "/admin/instances?limit=lots", 400);
        operator("GET", "/admin/instances/987654321", 404);
        operator("GET", "/admin/instances/not-a-number", 400);
        operator("POST", "/admin/instances/987654321/terminate", 404);
        operator("POST", "/admin/instances/" + i.path("id").asLong() + "/explode", 400);
    }

    @Test
    void aSuspendedInstanceTakesItsConfirmationOnlyOnceResumed() throws Exception {
        place("o-suspended");
        long id = listed("o-suspended").path("id").asLong();
        assertEquals("suspended", operator("POST", "/admin/instances/" + id + "/suspend", 200).path("state").asText());
        operator("POST", "/admin/instances/" + id + "/suspend", 409); // only a running instance can be suspended

        CompletableFuture<HttpResponse<String>> confirm = HTTP.sendAsync(soap("confirm", "<o:orderId>o-suspended</o:orderId>"),
                HttpResponse.BodyHandlers.ofString());
        // the engine hands the message to the instance (its route is gone), which does not run it
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        JsonNode shown;
        while (waitsForConfirm(shown = operator("GET", "/admin/instances/" + id, 200))) {
            assertTrue(System.nanoTime() < deadline, "the confirmation never reached the instance: " + shown);
            assertFalse(confirm.isDone(), () -> "answered while suspended: " + confirm.join().body());
            Thread.sleep(50); // polls an observable state, the instance's routes
        }
        assertEquals("suspended", shown.path("state").asText(), shown.toString());
        assertFalse(confirm.isDone(), () -> "answered while suspended: " + confirm.join().body());

        assertEquals("active", operator("POST", "/admin/instances/" + id + "/resume", 200).path("state").asText());
        answered(confirm.get(60, TimeUnit.SECONDS), "o-suspended", "confirmed");
        assertEquals("completed", operator("GET", "/admin/instances/" + id, 200).path("state").asText());
        operator("POST", "/admin/instances/" + id + "/resume", 409);
    }

    @Test
    void aTerminatedInstanceEndsAndWaitsForNothing() throws Exception {
        place("o-terminated");
        long id = listed("o-terminated").path("id").asLong();
        JsonNode after = operator("POST", "/admin/instances/" + id + "/terminate", 200);
        assertEquals("terminated", after.path("state").asText(), after.toString());
        assertTrue(after.path("owner").isNull(), "a finished instance runs nowhere: " + after);
        JsonNode shown = operator("GET", "/admin/instances/" + id, 200);
        assertEquals("terminated", shown.path("state").asText());
        assertEquals(0, shown.path("waitsFor").size(), "its routes and its alarm are gone: " + shown);
        assertTrue(operator("POST", "/admin/instances/" + id + "/terminate", 409).path("error").asText().contains("is terminated"));
        operator("POST", "/admin/instances/" + id + "/suspend", 409);
    }

    @Test
    void aFinishedInstanceIsPurgedAfterTheRetentionAndAWaitingOneIsKept() throws Exception {
        place("o-kept");
        place("o-purged");
        long kept = listed("o-kept").path("id").asLong();
        long id = listed("o-purged").path("id").asLong();
        CountDownLatch watch = new CountDownLatch(1);
        purgeWatch = watch;
        purgeWatched = id;
        answered(send("confirm", "<o:orderId>o-purged</o:orderId>"), "o-purged", "confirmed");
        assertEquals("completed", operator("GET", "/admin/instances/" + id, 200).path("state").asText(), "kept, finished, until its retention");
        long confirmed = System.nanoTime();
        assertTrue(watch.await(RETENTION.toSeconds() + 60, TimeUnit.SECONDS), "not purged; purged: " + purged);
        assertTrue(System.nanoTime() - confirmed >= RETENTION.toNanos() - TimeUnit.SECONDS.toNanos(1),
                "purged before its retention");
        assertTrue(operator("GET", "/admin/instances/" + id, 404).path("error").asText().contains("no durable instance " + id));
        assertEquals("active", operator("GET", "/admin/instances/" + kept, 200).path("state").asText(), "a waiting instance is never purged");
        assertFalse(purged.contains(kept));
    }

    @Test
    void onlyOperatorsReachTheInstances() throws Exception {
        assertEquals(401, admin("GET", "/admin/instances", null, null).statusCode());
        assertEquals(403, admin("GET", "/admin/instances", "alice", "alice-secret").statusCode());
        assertEquals(403, admin("POST", "/admin/instances/1/terminate", "alice", "alice-secret").statusCode());
        assertEquals(401, admin("GET", "/admin/instances/1", "olga", "wrong").statusCode());
    }

    @Test
    void theCommandLineListsAndShowsTheInstancesOfARunningBroker() throws Exception {
        place("o-cli");
        long id = listed("o-cli").path("id").asLong();
        ProcessDeployCommandTest.Run list = cli("instances", "list", "--process", "OrderConfirmation", "--state", "active");
        assertEquals(0, list.exit(), list.output());
        String row = list.lines().stream().filter(l -> l.startsWith(id + " ")).findFirst().orElseThrow(() -> new AssertionError(list.output()));
        assertTrue(row.contains("active") && row.contains("OrderConfirmation") && row.contains("order: orderId=o-cli") && row.contains(replica()),
                row);
        ProcessDeployCommandTest.Run show = cli("instances", "show", Long.toString(id));
        assertEquals(0, show.exit(), show.output());
        assertTrue(show.output().contains("variable order:") && show.output().contains("o-cli") && show.output().contains("waits for message"),
                show.output());
        ProcessDeployCommandTest.Run missing = cli("instances", "terminate", "987654321");
        assertEquals(1, missing.exit(), missing.output());
        assertTrue(missing.output().contains("no durable instance 987654321"), missing.output());
        assertEquals(2, cli("instances", "show", "x").exit());
    }

    static ProcessDeployCommandTest.Run cli(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("--broker", base, "--user", "olga"));
        all.addAll(List.of(args));
        try (ChildProcess cli = ChildProcess.commandLine("io.moses.cli.AdminCommand", all, Map.of("MOSES_PASSWORD", "olga-secret"))) {
            assertTrue(cli.process.waitFor(120, TimeUnit.SECONDS), "moses admin did not end: " + cli.output());
            return new ProcessDeployCommandTest.Run(cli.process.exitValue(), cli.finalOutput());
        }
    }
}
