package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.Mdal;
import io.moses.mdal.testing.MariaDbServer;
import io.moses.testing.Waits;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ode.bpel.common.CorrelationKey;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Conversations through HAProxy with two replicas: a case opened by a one-way
 * message lives in the replica that took it; its close, sent through the front, reaches it
 * whichever replica HAProxy picks, taken by a receive in a scope (ScopeCase) or by a pick
 * (PickCase). A close forwarded to its instance's replica stays in its caller's trace. When the
 * owner of an in-memory instance is killed, the close is answered at once with a fault that says so.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("e2e")
class ConversationClusterTest {
    @RegisterExtension
    static final MariaDbServer MARIADB = new MariaDbServer();
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    static final String NS = ConformanceEndToEndTest.NS;
    static final Path CONFORMANCE = Path.of("src/test/resources/processes/conformance");
    /** An in-memory copy of the conformance unit: its instances die with their replica. */
    static Path UNITS;

    @TempDir static Path dir;
    static TestCluster cluster;
    static KnowledgeBase kb;
    /** Where both replicas send their spans. */
    static io.moses.loadtest.demo.TraceCollector traces;
    static HttpServer signal;
    /** Partner path ("/ScopeCase") -> notify calls: an instance says it waits for its close. */
    static final Map<String, AtomicInteger> notified = new ConcurrentHashMap<>();

    @BeforeAll
    static void startCluster() throws Exception {
        TestCluster.requireHaProxy();
        UNITS = InMemoryUnits.copy(CONFORMANCE, dir.resolve("in-memory"));
        signal = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
        signal.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            notified.computeIfAbsent(exchange.getRequestURI().getPath(), p -> new AtomicInteger()).incrementAndGet();
            exchange.sendResponseHeaders(202, -1);
            exchange.close();
        });
        signal.start();
        traces = new io.moses.loadtest.demo.TraceCollector();
        Map<String, String> tracing = Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", traces.endpoint(), "OTEL_BSP_SCHEDULE_DELAY", "100");
        cluster = new TestCluster(dir, MARIADB, List.of("r1", "r2"));
        kb = Mdal.open(cluster.db, MARIADB.credentials());
        List<String> seeds = new ArrayList<>();
        for (String composite : List.of("ScopeCase", "PickCase")) {
            Path seed = dir.resolve("seed-" + composite + ".yaml");
            Files.writeString(seed, """
                    composite: %s
                    services:
                      - {name: %s-waiting, task: signal.notify, endpoint: "${PARTNER}/%s", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 100}
                    """.formatted(composite, composite, composite));
            seeds.addAll(List.of("--seed", seed.toString()));
        }
        Path seedEmpty = dir.resolve("seed-EmptyInvoke.yaml");
        Files.writeString(seedEmpty, """
                composite: EmptyInvoke
                services:
                  - {name: signal-1, task: signal.notify, endpoint: "${PARTNER}/signal", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 100}
                  - {name: signal-2, task: signal.ping, endpoint: "${PARTNER}/signal", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 100}
                """);
        Path seedCatch = dir.resolve("seed-CatchAll.yaml");
        Files.writeString(seedCatch, """
                composite: CatchAll
                services:
                  - {name: check-1, task: signal.check, endpoint: "${PARTNER}/signal", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 100}
                """);
        seeds.addAll(List.of("--seed", seedEmpty.toString(), "--seed", seedCatch.toString(),
                "--set", "PARTNER=http://127.0.0.1:" + signal.getAddress().getPort()));
        seeds.addAll(List.of("--deploy", UNITS.toString()));
        cluster.start("r1", tracing, seeds.toArray(String[]::new));
        // r2 names the address the others reach it at (as a replica in a container must): its
        // conversations are registered, and forwarded, there
        cluster.start("r2", tracing, "--deploy", UNITS.toString(), "--advertise", "http://localhost:" + cluster.ports.get("r2"));
        cluster.haproxy.awaitUp(List.of("r1", "r2"), 30);
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (cluster != null) cluster.close();
        if (signal != null) signal.stop(0);
        if (kb != null) kb.close();
        if (traces != null) traces.close();
    }

    static HttpResponse<String> post(String service, String operation, String payload) throws Exception {
        return post(service, operation, payload, Map.of());
    }

    static HttpResponse<String> post(String service, String operation, String payload, Map<String, String> headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(cluster.front() + "/services/" + service));
        headers.forEach(b::header);
        return HTTP.send(b
                .header("Content-Type", "text/xml; charset=utf-8").header("SOAPAction", "\"" + NS + "/" + operation + "\"")
                .timeout(Duration.ofSeconds(120))
                .POST(HttpRequest.BodyPublishers.ofString(ConformanceEndToEndTest.ENV + payload + ConformanceEndToEndTest.END)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static void awaitNotified(String path, int n) {
        Waits.until(n + " notify calls on " + path, 60, () -> notified.computeIfAbsent(path, p -> new AtomicInteger()).get() >= n);
    }

    /** The replica the knowledge base names as the owner of case {@code id}'s instance. */
    static String owner(String composite, int id) {
        String key = new CorrelationKey("byCase", new String[] {Integer.toString(id)}).toCanonicalString();
        var o = kb.conversationOwner("{" + NS + "}" + composite, key);
        o.ifPresent(x -> assertEquals(x.replica().equals("r2") ? "http://localhost:" + cluster.ports.get("r2") : cluster.replica(x.replica()),
                x.address(), "where the others reach " + x.replica()));
        return o.map(x -> x.replica()).orElse(null);
    }

    /** The owner of case {@code id}, once registered (ODE tells the value after its transaction: poll). */
    static String awaitOwner(String composite, int id) {
        Waits.until("case " + id + " of " + composite + " registered with its owner", 30, () -> owner(composite, id) != null);
        return owner(composite, id);
    }

    /**
     * One request through the front that is not part of a conversation. HAProxy (leastconn, one
     * request at a time) alternates the replicas, so an open and its close would always land on
     * different replicas and every open on the same one: a nudge shifts that phase.
     */
    static void nudge() throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(cluster.front() + "/health/live")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
    }

    /**
     * 20 cases, each opened and then closed through the front: every close reaches its instance.
     * Nudges vary where opens land (both replicas own instances) and whether a close lands on the
     * owner (handled there) or on the other replica (forwarded).
     */
    static void twentyConversations(String composite, int firstId) throws Exception {
        String service = composite + "Service";
        Set<String> owners = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            int id = firstId + i;
            if (i % 4 == 1) nudge();
            int before = notified.computeIfAbsent("/" + composite, p -> new AtomicInteger()).get();
            HttpResponse<String> opened = post(service, "open", ConformanceEndToEndTest.open(id, "case-" + id));
            assertTrue(opened.statusCode() / 100 == 2, opened.statusCode() + " " + opened.body());
            awaitNotified("/" + composite, before + 1);
            String owner = awaitOwner(composite, id);
            owners.add(owner);
            if (i % 4 == 2) nudge();
            HttpResponse<String> r = post(service, "close", ConformanceEndToEndTest.close(id));
            assertEquals(200, r.statusCode(), () -> "case " + id + " (owner " + owner + "): " + r.body() + cluster.logs());
            assertTrue(r.body().contains(">case-" + id + "<"), "the label of case " + id + ": " + r.body());
        }
        assertEquals(Set.of("r1", "r2"), owners, "both replicas own some instances (HAProxy balances the opens)");
    }

    @Test
    @Order(1)
    void aCloseTakenByAReceiveReachesItsInstanceThroughTheFront20Times() throws Exception {
        twentyConversations("ScopeCase", 100);
    }

    @Test
    @Order(2)
    void aCloseTakenByAPickReachesItsInstanceThroughTheFront20Times() throws Exception {
        twentyConversations("PickCase", 200);
    }

    @Test
    @Order(3)
    void aCloseForwardedToItsInstancesReplicaStaysInItsCallersTrace() throws Exception {
        // a close sent through the front with the caller's traceparent; HAProxy alternates, so
        // within a few cases one lands on the replica that does not hold the instance
        for (int id = 400; id < 420; id++) {
            if (id % 3 == 2) nudge();
            int before = notified.computeIfAbsent("/ScopeCase", p -> new AtomicInteger()).get();
            assertTrue(post("ScopeCaseService", "open", ConformanceEndToEndTest.open(id, "case-" + id)).statusCode() / 100 == 2);
            awaitNotified("/ScopeCase", before + 1);
            String owner = awaitOwner("ScopeCase", id);
            String traceId = java.util.HexFormat.of().formatHex(java.nio.ByteBuffer.allocate(16).putLong(System.nanoTime()).putLong(id).array());
            HttpResponse<String> closed = post("ScopeCaseService", "close", ConformanceEndToEndTest.close(id),
                    Map.of("traceparent", "00-" + traceId + "-00f067aa0ba902b7-01"));
            assertEquals(200, closed.statusCode(), closed.body());
            // the front replica's server span, and the owner's if the close was forwarded: spans go out every 100 ms
            List<io.moses.loadtest.demo.TraceCollector.Span> spans = traces.await(s -> s.stream()
                    .filter(x -> x.traceId().equals(traceId) && x.kind().equals("SERVER")).map(x -> x.resource().get("moses.replica"))
                    .anyMatch(owner::equals), 30);
            List<io.moses.loadtest.demo.TraceCollector.Span> trace = spans.stream().filter(x -> x.traceId().equals(traceId)).toList();
            List<io.moses.loadtest.demo.TraceCollector.Span> servers = trace.stream().filter(x -> x.kind().equals("SERVER")).toList();
            assertTrue(servers.stream().anyMatch(x -> owner.equals(x.resource().get("moses.replica"))),
                    "the owner " + owner + " served the close in the caller's trace: " + trace);
            if (servers.size() < 2) continue; // the close landed on the owner: nothing was forwarded
            var atOwner = servers.stream().filter(x -> owner.equals(x.resource().get("moses.replica"))).findFirst().orElseThrow();
            var atFront = servers.stream().filter(x -> !owner.equals(x.resource().get("moses.replica"))).findFirst().orElseThrow();
            assertEquals("00f067aa0ba902b7", atFront.parentSpanId(), "the caller's span is the front replica's parent");
            Set<String> frontSpans = new HashSet<>();
            trace.stream().filter(x -> x.resource().equals(atFront.resource())).forEach(x -> frontSpans.add(x.spanId()));
            assertTrue(frontSpans.contains(atOwner.parentSpanId()),
                    "the owner's span is a child of the front replica's (the forwarded message carried its traceparent): " + trace);
            return;
        }
        throw new AssertionError("in 20 closes through the front, none was forwarded to the replica holding its instance");
    }

    @Test
    @Order(4)
    void aCloseForAnInstanceOfAKilledReplicaIsAnsweredWithAFaultThatSaysSo() throws Exception {
        int id = 300;
        String owner = null;
        // open cases until one lives on r2 (HAProxy balances), then kill r2
        for (; owner == null || !owner.equals("r2"); id++) {
            int before = notified.computeIfAbsent("/PickCase", p -> new AtomicInteger()).get();
            HttpResponse<String> opened = post("PickCaseService", "open", ConformanceEndToEndTest.open(id, "case-" + id));
            assertTrue(opened.statusCode() / 100 == 2, opened.body());
            awaitNotified("/PickCase", before + 1);
            owner = awaitOwner("PickCase", id);
            assertTrue(id < 340, "no case landed on r2 in 40 opens");
            if (id % 3 == 2) nudge(); // whatever order HAProxy takes, the opens cannot stay in phase with it
        }
        int killed = id - 1;
        ChildProcess r2 = cluster.replicas.get("r2");
        r2.process.destroyForcibly(); // SIGKILL, by PID
        assertTrue(r2.process.waitFor(30, TimeUnit.SECONDS));
        HttpResponse<String> r = post("PickCaseService", "close", ConformanceEndToEndTest.close(killed));
        assertEquals(500, r.statusCode(), r.body());
        assertTrue(r.body().contains("lived on replica r2") && r.body().contains("no longer reachable"), r.body());
    }
}
