package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.mdal.Credentials;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.Mdal;
import io.moses.mdal.testing.MariaDbServer;
import io.moses.model.Role;
import io.moses.model.User;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
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
 * Operator state is the cluster's, as an operator sees it: MariaDB, two replicas and
 * HAProxy as real processes, the console's login, reads, actions and logout through the front
 * URL. A replica's own port is read only to check what that replica holds.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("e2e")
class OperatorClusterTest {
    @RegisterExtension
    static final MariaDbServer MARIADB = new MariaDbServer();
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    static final ObjectMapper JSON = new ObjectMapper();
    static final List<String> REPLICAS = List.of("r1", "r2");
    static final String OLGA = "Basic " + Base64.getEncoder().encodeToString("olga:olga-secret".getBytes());
    /** Bounds a hang only: a loaded machine may take long, and every wait is a poll. */
    static final long CONVERGE_SECONDS = 120;

    @TempDir static Path dir;
    static EchoPartner partner;
    static TestCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        TestCluster.requireHaProxy();
        partner = new EchoPartner(0);
        Path seed = Files.writeString(dir.resolve("seed.yaml"), BrokerKnowledgeBaseTest.seed().replace("users:\n", "users:\n"
                + "  - {name: olga, class: gold, rate: 0, password: olga-secret, role: operator}\n"
                + "  - {name: oscar, class: gold, rate: 0, password: oscar-secret, role: operator}\n"));
        String unit = ProcessManagementTest.UNIT.toAbsolutePath().toString();
        cluster = new TestCluster(dir, MARIADB, REPLICAS);
        cluster.start("r1", "--deploy", unit, "--seed", seed.toString(), "--set", "PARTNER=" + partner.url(""));
        cluster.start("r2", "--deploy", unit);
        cluster.haproxy.awaitUp(REPLICAS, 60);
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (cluster != null) cluster.close();
        if (partner != null) partner.close();
    }

    /** A request to {@code base} carrying the console's session cookie; a change also carries the console's header. */
    static HttpResponse<String> withSession(String base, String method, String path, String cookie) throws Exception {
        return withSession(base, method, path, cookie, "drill");
    }

    static HttpResponse<String> withSession(String base, String method, String path, String cookie, String reason) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(120)).header("Cookie", cookie);
        if (method.equals("GET")) b.GET();
        else b.header("X-Moses-Console", "1").header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString("{\"reason\":\"" + reason + "\"}"));
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Logs in through the front as the console's form does; the session cookie. */
    static String login(String user, String password) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(cluster.front() + "/console/login"))
                .header("Content-Type", "application/x-www-form-urlencoded").timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString("user=" + user + "&password=" + password)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(302, r.statusCode(), r.body());
        String cookie = r.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
        assertTrue(cookie.startsWith("moses_console=") && cookie.length() > 40, cookie);
        return cookie;
    }

    /** GET of a replica's own admin API as operator olga (HTTP Basic): what that replica holds. */
    static JsonNode onReplica(String replica, String path) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(cluster.replica(replica) + path)).header("Authorization", OLGA)
                .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), replica + " " + path + ": " + r.body());
        return JSON.readTree(r.body());
    }

    /** Polls {@code path} on every replica's own port until {@code holds}; the last answers otherwise. */
    static void awaitOnEveryReplica(String path, Predicate<JsonNode> holds, String what) {
        List<String> waiting = new ArrayList<>(REPLICAS);
        AtomicReference<String> last = new AtomicReference<>("");
        long ms = Waits.until(what + " on every replica", CONVERGE_SECONDS, () -> {
            for (String r : List.copyOf(waiting)) {
                JsonNode n = onReplica(r, path);
                if (holds.test(n)) waiting.remove(r);
                else last.set(r + ": " + n);
            }
            return waiting.isEmpty();
        }, () -> "not on " + waiting + "; " + last.get() + cluster.logs());
        // for the record, not asserted (a loaded machine decides it)
        System.out.printf("%s on %s after %d ms%n", what, REPLICAS, ms);
    }

    static String leader() {
        AtomicReference<String> leader = new AtomicReference<>();
        Waits.until("an optimizer leader", CONVERGE_SECONDS, () -> {
            for (String r : REPLICAS) {
                HttpResponse<String> h = HTTP.send(HttpRequest.newBuilder(URI.create(cluster.replica(r) + "/health")).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (JSON.readTree(h.body()).path("optimizerLeader").asBoolean()) {
                    leader.set(r);
                    return true;
                }
            }
            return false;
        }, () -> cluster.logs());
        return leader.get();
    }

    @Test
    @Order(1)
    void aLoginThroughTheFrontHoldsOnEveryReplicaAndItsActionsReachEveryReplica() throws Exception {
        String front = cluster.front();
        String cookie = login("olga", "olga-secret");

        // reads through the front: HAProxy gives them to both replicas, each honours the session
        Map<String, Long> before = cluster.haproxy.answered2xx();
        List<String> reads = List.of("/admin/status", "/admin/plan", "/admin/concrete-services", "/admin/compliance", "/admin/plans?n=5",
                "/admin/events", "/console/");
        for (int i = 0; i < 14; i++) {
            String path = reads.get(i % reads.size());
            HttpResponse<String> r = withSession(front, "GET", path, cookie);
            assertEquals(200, r.statusCode(), "read " + (i + 1) + " " + path + " through the front: " + r.body());
        }
        Map<String, Long> after = cluster.haproxy.answered2xx();
        for (String r : REPLICAS) assertTrue(after.get(r) > before.get(r), r + " answered none of the reads: " + before + " -> " + after);

        // actions through the front, with the session: every replica holds them
        HttpResponse<String> out = withSession(front, "POST", "/admin/concrete-services/left-1/out", cookie);
        assertEquals(200, out.statusCode(), out.body());
        assertTrue(JSON.readTree(out.body()).path("changed").asBoolean(), out.body());
        HttpResponse<String> off = withSession(front, "POST", "/admin/monitors/ws-monitor/off", cookie);
        assertEquals(200, off.statusCode(), off.body());
        awaitOnEveryReplica("/admin/status", s -> s.path("heldOut").toString().equals("[\"left-1\"]")
                && !s.path("monitors").path("ws-monitor").asBoolean(true), "left-1 out and the WS Monitor off");
        awaitOnEveryReplica("/admin/concrete-services", l -> stateOf(l, "left-1").equals("out"), "left-1 listed as out");
        awaitOnEveryReplica("/admin/plan", p -> !AdminApiTest.planUses(p, "left-1") && AdminApiTest.planUses(p, "left-2"),
                "a plan without left-1 in force");

        // a replica that starts later holds them before it says it listens
        cluster.start("r3", "--deploy", ProcessManagementTest.UNIT.toAbsolutePath().toString());
        JsonNode late = onReplica("r3", "/admin/status");
        assertEquals("[\"left-1\"]", late.path("heldOut").toString(), late.toString());
        assertFalse(late.path("monitors").path("ws-monitor").asBoolean(true), late.toString());
        cluster.replicas.get("r3").stop(60);

        // forced re-plans through the front (HAProxy gives them to both replicas) are made by the leader
        String leader = leader();
        for (int i = 1; i <= 2; i++) {
            HttpResponse<String> r = withSession(front, "POST", "/admin/replan", cookie, "drill-" + i);
            assertEquals(200, r.statusCode(), r.body());
            AdmissionClusterTest.waitForOutput(cluster.replicas.get(leader), "(operator olga asked: drill-" + i);
            for (String other : REPLICAS)
                if (!other.equals(leader))
                    assertFalse(cluster.replicas.get(other).output().contains("asked: drill-" + i), other + " is not the leader but planned drill-" + i);
        }

        // back as they were, through the front
        assertEquals(200, withSession(front, "POST", "/admin/concrete-services/left-1/in", cookie).statusCode());
        assertEquals(200, withSession(front, "POST", "/admin/monitors/ws-monitor/on", cookie).statusCode());
        awaitOnEveryReplica("/admin/status", s -> s.path("heldOut").isEmpty() && s.path("monitors").path("ws-monitor").asBoolean(false),
                "left-1 in and the WS Monitor on");

        // a logout through the front ends the session on every replica
        HttpResponse<String> logout = withSession(front, "POST", "/console/logout", cookie);
        assertEquals(302, logout.statusCode(), logout.body());
        for (String r : REPLICAS) {
            HttpResponse<String> refused = withSession(cluster.replica(r), "GET", "/admin/status", cookie);
            assertEquals(401, refused.statusCode(), r + " still honours the session: " + refused.body());
            assertEquals(302, withSession(cluster.replica(r), "GET", "/console/", cookie).statusCode(), r + " serves the console");
        }
        for (int i = 0; i < 4; i++) assertEquals(401, withSession(front, "GET", "/admin/plan", cookie).statusCode());
    }

    @Test
    @Order(2)
    void anOperatorWhoLosesTheRoleIsLoggedOutOfEveryReplica() throws Exception {
        String cookie = login("oscar", "oscar-secret");
        for (String r : REPLICAS)
            assertEquals(200, withSession(cluster.replica(r), "GET", "/admin/status", cookie).statusCode(), r + " honours the session");
        // the role is taken in the knowledge base, as a seed applied again or another tool would
        try (KnowledgeBase kb = Mdal.open(cluster.db, Credentials.NONE)) {
            kb.updateUser("oscar", u -> new User(u.name(), u.serviceClass(), u.rate(), u.passwordHash(), Role.USER));
        }
        for (String r : REPLICAS) {
            HttpResponse<String> refused = withSession(cluster.replica(r), "GET", "/admin/status", cookie);
            assertEquals(401, refused.statusCode(), r + " still honours the session of a user who is no operator: " + refused.body());
        }
        HttpResponse<String> front = withSession(cluster.front(), "POST", "/admin/replan", cookie);
        assertEquals(401, front.statusCode(), front.body());
    }

    static String stateOf(JsonNode services, String name) {
        for (JsonNode s : services) if (s.path("name").asText().equals(name)) return s.path("state").asText();
        return "absent";
    }
}
