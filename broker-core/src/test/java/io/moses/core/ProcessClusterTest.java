package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.mdal.testing.FreePorts;
import io.moses.mdal.testing.MariaDbServer;
import io.moses.testing.Waits;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
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
 * Process units are the cluster's, as an operator sees them: MariaDB, HAProxy from
 * the repository's template and broker replicas as real processes, every change and request
 * through the front URL. A unit deployed through the front is served by every replica, by one
 * restarted and by one started later too; a new version and an undeploy reach every replica.
 * The replicas start with no --deploy: every unit they serve comes from the knowledge base.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("e2e")
class ProcessClusterTest {
    @RegisterExtension
    static final MariaDbServer MARIADB = new MariaDbServer();
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    static final ObjectMapper JSON = new ObjectMapper();
    static final String UNIT = "echo-pair";
    /** Bounds a hang only: convergence on a loaded machine may take long, and is polled for. */
    static final int CONVERGE_SECONDS = 120;

    @TempDir static Path dir;
    static EchoPartner partner;
    static TestCluster cluster;
    static Map<String, Integer> ports;
    static Map<String, ChildProcess> replicas;
    static HaProxyProcess haproxy;

    @BeforeAll
    static void startCluster() throws Exception {
        TestCluster.requireHaProxy();
        partner = new EchoPartner(0);
        Files.writeString(dir.resolve("seed.yaml"), BrokerKnowledgeBaseTest.seed().replace("users:\n",
                "users:\n  - {name: olga, class: gold, rate: 0, password: olga-secret, role: operator}\n"));
        cluster = new TestCluster(dir, MARIADB, List.of("r1", "r2", "r3"));
        ports = cluster.ports;
        replicas = cluster.replicas;
        haproxy = cluster.haproxy;
        startReplica("r1", true);
        startReplica("r2", false);
        haproxy.awaitUp(List.of("r1", "r2"), 30);
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (cluster != null) cluster.close();
        if (partner != null) partner.close();
    }

    static void startReplica(String name, boolean seed, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("--drain", "1000"));
        args.addAll(List.of(more));
        if (seed) args.addAll(List.of("--seed", dir.resolve("seed.yaml").toString(), "--set", "PARTNER=" + partner.url("")));
        cluster.start(name, args.toArray(String[]::new));
    }

    static HttpResponse<String> operator(String method, String path, byte[] body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(haproxy.front() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("olga:olga-secret".getBytes()))
                .header("Content-Type", "application/zip").timeout(Duration.ofSeconds(120)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The unit as the front's /admin/processes lists it (whichever replica answers), or null. */
    static JsonNode listed() throws Exception {
        HttpResponse<String> r = operator("GET", "/admin/processes", null);
        assertEquals(200, r.statusCode(), r.body());
        for (JsonNode u : JSON.readTree(r.body())) if (u.path("name").asText().equals(UNIT)) return u;
        return null;
    }

    /** Polls the front's listing until each of {@code live} reports the stored version without error; returns the listing. */
    static JsonNode awaitConverged(List<String> live, String state) {
        AtomicReference<JsonNode> listing = new AtomicReference<>();
        long ms = Waits.until("the cluster converged on " + live, CONVERGE_SECONDS, () -> {
            JsonNode u = listed();
            listing.set(u);
            if (u == null || !u.path("state").asText().equals(state)) return false;
            long version = u.path("version").asLong();
            boolean all = true;
            for (String r : live) {
                JsonNode s = u.path("replicas").path(r);
                assertTrue(s.path("error").isMissingNode(), r + " failed to apply it: " + u + logs());
                all &= s.path("version").asLong() == version;
            }
            return all;
        }, () -> listing.get() + logs());
        // for the record, not asserted (a loaded machine decides it)
        System.out.printf("%s of %s reached %s in %d ms%n", state, UNIT, live, ms);
        return listing.get();
    }

    /** {@code n} calls of the unit's service through the front, 4 at a time. */
    static List<HttpResponse<String>> calls(int n) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<HttpResponse<String>>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++)
                futures.add(pool.submit(() -> HTTP.send(HttpRequest.newBuilder(URI.create(haproxy.front() + "/services/EchoPairService"))
                        .header("Content-Type", "text/xml; charset=utf-8").timeout(Duration.ofSeconds(120))
                        .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("alice:alice-secret".getBytes()))
                        .POST(HttpRequest.BodyPublishers.ofString(BrokerInProcessTest.pair("kb"))).build(),
                        HttpResponse.BodyHandlers.ofString())));
            List<HttpResponse<String>> out = new ArrayList<>();
            for (Future<HttpResponse<String>> f : futures) out.add(f.get(300, TimeUnit.SECONDS));
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    /** Per replica, how many 2xx responses HAProxy has had from it. */
    static Map<String, Long> served() throws Exception {
        return haproxy.answered2xx();
    }

    /** 100 requests through the front: none fails, each of {@code live} serves some, all run {@code expect}. */
    static void hundredRequestsServedByEach(List<String> live, String expect) throws Exception {
        Map<String, Long> before = served();
        List<HttpResponse<String>> rs = calls(100);
        Map<String, Long> after = served();
        long failed = rs.stream().filter(r -> r.statusCode() != 200 || !r.body().contains(expect)).count();
        assertEquals(0, failed, "failed through the front: " + rs.stream().filter(r -> r.statusCode() != 200 || !r.body().contains(expect))
                .limit(2).map(r -> r.statusCode() + " " + r.body()).toList() + logs());
        for (String r : live) assertTrue(after.get(r) > before.get(r), r + " served none of them: " + before + " -> " + after);
    }

    static String logs() {
        return cluster.logs();
    }

    @Test
    @Order(1)
    void aUnitDeployedThroughTheFrontIsServedByEveryReplica() throws Exception {
        HttpResponse<String> bad = operator("POST", "/admin/processes/" + UNIT, "not a zip".getBytes());
        assertEquals(400, bad.statusCode(), bad.body());
        assertEquals(null, listed(), "a refused bundle is stored nowhere");
        HttpResponse<String> r = operator("POST", "/admin/processes/" + UNIT, ProcessManagementTest.zip(ProcessManagementTest.unit(null, null)));
        assertEquals(201, r.statusCode(), r.body());
        JsonNode u = awaitConverged(List.of("r1", "r2"), "deployed");
        assertTrue(u.path("converged").asBoolean(), u.toString());
        hundredRequestsServedByEach(List.of("r1", "r2"), "kb via /left");
    }

    @Test
    @Order(2)
    void aReplicaRestartedAndOneStartedLaterServeItToo() throws Exception {
        assertNotEquals(-1, replicas.get("r1").stop(60), "r1 stops on SIGTERM");
        haproxy.awaitUp(List.of("r2"), 30);
        startReplica("r1", false);
        startReplica("r3", false);
        haproxy.awaitUp(List.of("r1", "r2", "r3"), 60); // UP only once every stored unit is deployed
        awaitConverged(List.of("r1", "r2", "r3"), "deployed");
        hundredRequestsServedByEach(List.of("r1", "r2", "r3"), "kb via /left");
    }

    @Test
    @Order(3)
    void aNewVersionReachesEveryReplica() throws Exception {
        long before = listed().path("version").asLong();
        byte[] v2 = ProcessManagementTest.zip(ProcessManagementTest.unit(
                "<copy><from>$input.parameters/tns:text</from><to>$leftIn.parameters/pt:text</to></copy>",
                "<copy><from>concat('v2:', $input.parameters/tns:text)</from><to>$leftIn.parameters/pt:text</to></copy>"));
        HttpResponse<String> r = operator("PUT", "/admin/processes/" + UNIT, v2);
        assertEquals(200, r.statusCode(), r.body());
        JsonNode u = awaitConverged(List.of("r1", "r2", "r3"), "deployed");
        assertTrue(u.path("version").asLong() > before, u.toString());
        hundredRequestsServedByEach(List.of("r1", "r2", "r3"), "v2:kb via /left");
    }

    @Test
    @Order(4)
    void anUndeployReachesEveryReplica() throws Exception {
        HttpResponse<String> r = operator("DELETE", "/admin/processes/" + UNIT, null);
        assertEquals(200, r.statusCode(), r.body());
        awaitConverged(List.of("r1", "r2", "r3"), "undeployed");
        List<HttpResponse<String>> rs = calls(30);
        for (HttpResponse<String> x : rs) assertNotEquals(200, x.statusCode(), "still served after the undeploy: " + x.body());
        for (String replica : List.of("r1", "r2", "r3")) {
            JsonNode h = JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ports.get(replica) + "/health")).build(),
                    HttpResponse.BodyHandlers.ofString()).body());
            assertEquals(0, h.path("services").size(), replica + " serves nothing: " + h);
        }
    }

    @Test
    @Order(5)
    void aUnitThatFailsOnOneReplicaSaysSoInTheListingAndItsHealth() throws Exception {
        // r4 (outside the balancer) serves a copy of the unit under another name from --deploy: the
        // same service, so the stored unit cannot deploy there
        Path copy = Files.createDirectories(dir.resolve("echo-copy"));
        try (var files = Files.list(ProcessManagementTest.UNIT)) {
            for (Path f : files.toList()) Files.copy(f, copy.resolve(f.getFileName().toString()));
        }
        ports.put("r4", FreePorts.forServer());
        startReplica("r4", false, "--deploy", copy.toString());
        HttpResponse<String> r = operator("POST", "/admin/processes/" + UNIT, ProcessManagementTest.zip(ProcessManagementTest.unit(null, null)));
        assertEquals(201, r.statusCode(), r.body());
        awaitConverged(List.of("r1", "r2", "r3"), "deployed");
        AtomicReference<JsonNode> seen = new AtomicReference<>(listed());
        Waits.within(CONVERGE_SECONDS, () -> {
            seen.set(listed());
            return !seen.get().path("replicas").path("r4").path("error").isMissingNode();
        });
        JsonNode u = seen.get();
        assertTrue(u.path("replicas").path("r4").path("error").asText().contains("already provided"), u + logs());
        assertEquals(false, u.path("converged").asBoolean(), u.toString());
        HttpResponse<String> health = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ports.get("r4") + "/health")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(503, health.statusCode(), health.body());
        JsonNode h = JSON.readTree(health.body());
        assertEquals("DEGRADED", h.path("status").asText(), h.toString());
        assertTrue(h.path("unitsFailed").get(0).asText().startsWith(UNIT), h.toString());
        // the balanced replicas serve it
        for (HttpResponse<String> x : calls(20)) assertEquals(200, x.statusCode(), x.body());
    }
}
