package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.core.CallerGroups.Tally;
import io.moses.core.frontend.ConversationForwarding;
import io.moses.core.frontend.HopSeal;
import io.moses.mdal.testing.MariaDbServer;
import io.moses.testing.Waits;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * One agreed rate for the whole cluster, through HAProxy's front to two replicas over MariaDB:
 * each replica polices half of a user's rate (they count each other through the knowledge base),
 * so what the front serves of a user sending far above its rate stays within the cluster-wide
 * bucket, not twice it; best-effort excess is served only with room and left out of its class's
 * figures on every replica; a user above its rate on both replicas is one SLA event; a
 * conversation message one replica forwards to the other is counted once, while a caller that
 * sets the forwarding header itself is policed all the same. One cluster for all: the replica
 * killed last.
 */
@Tag("e2e")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RatePolicingClusterTest {
    @org.junit.jupiter.api.extension.RegisterExtension
    static final MariaDbServer MARIADB = new MariaDbServer();
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    static final ObjectMapper JSON = new ObjectMapper();
    static final double RATE = 2;
    static final double BURST = 2;
    /** Each replica: 4 places, best-effort excess only while fewer than 2 run, 2 may wait. */
    static final int IN_FLIGHT = 4, QUEUED = 2;
    @TempDir static Path dir;
    static EchoPartner partner;
    static TestCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        TestCluster.requireHaProxy();
        partner = new EchoPartner(5);
        Path seed = dir.resolve("seed.yaml");
        Files.writeString(seed, """
                composite: EchoPair
                classes:
                  - {name: gold, maxResponseTime: 20.0, minAvailability: 0.5, maxCost: 10, price: 15}
                  - {name: bronze, maxResponseTime: 3.0, minAvailability: 0.5, maxCost: 10, price: 1}
                  - {name: free, maxResponseTime: 20.0, minAvailability: 0.5, maxCost: 10, price: 0.5, overRate: best-effort}
                users:
                  - {name: carl, class: bronze, rate: 2, password: carl-secret}
                  - {name: erin, class: bronze, rate: 1, password: erin-secret}
                  - {name: dora, class: bronze, rate: 100000, password: dora-secret}
                  - {name: fred, class: bronze, rate: 0, password: fred-secret}
                  - {name: bea, class: free, rate: 1, password: bea-secret}
                  - {name: gina, class: gold, rate: 100000, password: gina-secret}
                  - {name: olga, class: gold, rate: 0, password: olga-secret, role: operator}
                  - {name: hana, class: gold, rate: 100, password: hana-secret}
                services:
                  - {name: left-1, task: left.echo, endpoint: "${PARTNER}/left", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 200}
                  - {name: right-1, task: right.echo, endpoint: "${PARTNER}/right", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 200}
                """);
        cluster = new TestCluster(dir, MARIADB, List.of("r1", "r2"));
        String unit = Path.of("src/test/resources/processes/echo-pair").toAbsolutePath().toString();
        String conversations = ConversationEndToEndTest.UNITS.toAbsolutePath().toString();
        List<String> policed = List.of("--metrics-users", "--over-rate", "reject", "--rate-burst", Double.toString(BURST), "--monitors", "none",
                "--max-in-flight", Integer.toString(IN_FLIGHT), "--max-queued", Integer.toString(QUEUED), "--deploy", unit, "--deploy", conversations);
        List<String> seeding = new ArrayList<>(List.of("--seed", seed.toString(), "--set", "PARTNER=" + partner.url("")));
        for (Path s : ConversationEndToEndTest.seeds(dir)) seeding.addAll(List.of("--seed", s.toString())); // composites that call a partner
        cluster.start("r1", concat(policed, seeding.toArray(String[]::new)));
        cluster.start("r2", concat(policed));
        cluster.haproxy.awaitUp(List.of("r1", "r2"), 60);
        Waits.until("the replicas counting each other", 60,
                () -> policingReplicas(cluster.replica("r1")) == 2 && policingReplicas(cluster.replica("r2")) == 2, () -> cluster.logs());
    }

    private static String[] concat(List<String> first, String... more) {
        ArrayList<String> all = new ArrayList<>(first);
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    @AfterAll
    static void stop() throws Exception {
        if (cluster != null) cluster.close();
        if (partner != null) partner.close();
    }

    static String metrics(String base) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    static double policingReplicas(String base) throws Exception {
        Matcher x = Pattern.compile("(?m)^moses_policing_replicas ([0-9.]+)$").matcher(metrics(base));
        return x.find() ? Double.parseDouble(x.group(1)) : 0;
    }

    /** A counter summed over both replicas (0 where a replica has none yet). */
    static double summed(String name, String labels) throws Exception {
        double sum = 0;
        for (String r : List.of("r1", "r2")) {
            Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + (labels.isEmpty() ? "" : "\\{" + Pattern.quote(labels) + "\\}")
                    + " ([0-9.Ee+-]+)$").matcher(metrics(cluster.replica(r)));
            if (m.find()) sum += Double.parseDouble(m.group(1));
        }
        return sum;
    }

    static double user(String name, String verdict) throws Exception {
        return summed("moses_policing_user_requests_total", "user=\"" + name + "\",verdict=\"" + verdict + "\"");
    }

    static String basic(String user) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + user + "-secret").getBytes(StandardCharsets.UTF_8));
    }

    static HttpResponse<String> pair(String user, String text, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(cluster.front() + "/services/EchoPairService"))
                .header("Content-Type", "text/xml; charset=utf-8").header("SOAPAction", "\"urn:moses:test:echo-pair/pair\"")
                .header("Authorization", basic(user)).timeout(Duration.ofMinutes(2))
                .POST(HttpRequest.BodyPublishers.ofString(BrokerInProcessTest.pair(text)));
        for (int i = 0; i < headers.length; i += 2) b.header(headers[i], headers[i + 1]);
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** GET through the front as the operator. */
    static JsonNode admin(String path) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(cluster.front() + path)).header("Authorization", basic("olga"))
                .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), path + ": " + r.body());
        return JSON.readTree(r.body());
    }

    /** How many requests of {@code serviceClass} each replica's own SLA figures hold, summed (a replica's figures are its own). */
    static int classRequests(String serviceClass) throws Exception {
        int sum = 0;
        for (String r : List.of("r1", "r2")) {
            HttpResponse<String> res = HTTP.send(HttpRequest.newBuilder(URI.create(cluster.replica(r) + "/admin/compliance"))
                    .header("Authorization", basic("olga")).timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, res.statusCode(), res.body());
            for (JsonNode k : JSON.readTree(res.body()))
                if (k.path("name").asText().equals(serviceClass)) sum += k.path("observed").path("requests").asInt();
        }
        return sum;
    }

    @Test
    @Order(1)
    void twoReplicasPoliceOneClusterWideRate() throws Exception {
        int sent = 200, ok = 0, refused = 0;
        int callsBefore = partner.calls.get();
        long started = System.nanoTime();
        for (int i = 0; i < sent; i++) {
            HttpResponse<String> r = pair("carl", "c" + i);
            if (r.statusCode() == 200) ok++;
            else {
                assertEquals(429, r.statusCode(), r.body());
                assertTrue(r.body().contains("agreed 2 req/s (1 req/s on each of 2 replicas)"), r.body());
                refused++;
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        // each replica's bucket: 1 req/s, holding 2 s of it; the cluster's is the sum of the two
        double share = RATE / 2;
        System.out.printf("cluster-wide policing: %d of %d served, %d refused in %.1f s%n", ok, sent, refused, seconds);
        double most = 2 * (Math.max(1, share * BURST) + share * seconds) + 2;
        assertTrue(ok >= 1, "carl's first requests are within his burst");
        assertTrue(ok <= most, ok + " of " + sent + " served in " + seconds + " s: more than one cluster-wide 2 req/s (at most " + most + ")");
        assertEquals(sent, ok + refused);
        assertTrue(refused > 0, "nothing refused in " + seconds + " s");
        assertEquals(2 * ok, partner.calls.get() - callsBefore, "refused requests started no process");
    }

    @Test
    @Order(2)
    void bestEffortExcessIsServedWithRoomLeftOutOfTheClassOnEveryReplicaAndItsConformingShareIsPolicedClusterWide() throws Exception {
        // 1. bea (class free: best-effort, 1 req/s for the cluster) alone, one request at a time: the cluster has room
        int sent = 40;
        long started = System.nanoTime();
        Tally alone = new Tally();
        for (int i = 0; i < sent; i++) alone.count(pair("bea", "b" + i), "b" + i);
        assertEquals(sent, alone.served.get(), "every request of bea's is served while the cluster has room");
        double conforming = user("bea", "conforming"), excess = user("bea", "excess");
        assertEquals(sent, conforming + excess);
        assertEquals(0, user("bea", "rejected"));
        assertEquals(0, user("bea", "shed"));
        // the excess counts in no replica's figures of class free: they hold bea's conforming requests only
        assertEquals((int) conforming, classRequests("free"));
        assertTrue(excess >= sent / 2, "most of bea's requests were above her 1 req/s: " + excess + " excess, " + conforming + " conforming");

        // 2. gold loads the cluster while bea sends above her rate from 12 callers: her excess gets only the room left
        int goldCallers = 2, goldEach = 20, beaCallers = 12;
        Tally gold = new Tally(), bea = new Tally();
        int callsBefore = partner.calls.get();
        CallerGroups.run(beaCallers, 2_000, (caller, i) -> {
            String text = "x" + caller + "-" + i;
            return bea.count(pair("bea", text), text);
        }, () -> {}, goldCallers, goldEach, (caller, i) -> {
            String text = "g" + caller + "-" + i;
            return gold.count(pair("gina", text), text);
        });
        double seconds = (System.nanoTime() - started) / 1e9;
        String counts = "gold served " + gold.served + ", refused " + gold.refused + "; bea served " + bea.served + ", refused " + bea.refused
                + "; bea's verdicts on both replicas: conforming " + user("bea", "conforming") + ", excess " + user("bea", "excess")
                + ", shed " + user("bea", "shed") + " in " + String.format("%.1f", seconds) + " s";
        System.out.println("best effort in a cluster: " + counts);
        assertEquals(goldCallers * goldEach, gold.served.get(), "gold is served whole: " + counts);
        assertTrue(user("bea", "shed") >= 1, "bea's excess is shed when the cluster has no room for it: " + counts);
        assertTrue(user("bea", "shed") <= bea.refused.get(), counts);
        // her conforming share is one cluster-wide 1 req/s (each replica 0.5 req/s, a bucket of 1): the rest was excess
        double most = 2 * (1 + 0.5 * seconds) + 2;
        assertTrue(user("bea", "conforming") <= most, "more of bea's requests conformed than one cluster-wide 1 req/s allows (" + most + "): " + counts);
        int beaServed = alone.served.get() + bea.served.get();
        assertEquals(beaServed - (int) user("bea", "excess"), classRequests("free"), "only bea's conforming requests are in class free's figures: " + counts);
        assertEquals(2 * (bea.served.get() + gold.served.get()), partner.calls.get() - callsBefore, "refused requests started no process: " + counts);
    }

    /** The OVER_RATE events of {@code user}, read through the front. */
    static List<JsonNode> overRateEvents(String user) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e : admin("/admin/events?n=1000"))
            if (e.path("kind").asText().equals("OVER_RATE") && e.path("user").asText().equals(user)) out.add(e);
        return out;
    }

    @Test
    @Order(3)
    void aUserAboveItsRateOnBothReplicasIsOneSlaEvent() throws Exception {
        // erin sends about 25 req/s against 1 req/s until both replicas have seen her above it for their window (5 s)
        String seen = "user erin (class bronze) has sent above its agreed rate of 1 req/s";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        int i = 0;
        while (!cluster.replicas.get("r1").output().contains(seen) || !cluster.replicas.get("r2").output().contains(seen)) {
            assertTrue(System.nanoTime() < deadline, "erin's episode was not seen by both replicas" + cluster.logs());
            HttpResponse<String> r = pair("erin", "e" + i++);
            assertTrue(r.statusCode() == 200 || r.statusCode() == 429, r.statusCode() + " " + r.body());
            Thread.sleep(40); // erin's pace, about 25 req/s: the load is the scenario
        }
        assertTrue(user("erin", "rejected") > 0);
        AtomicReference<List<JsonNode>> found = new AtomicReference<>(List.of());
        Waits.until("an OVER_RATE event for erin", 60, () -> {
            found.set(overRateEvents("erin"));
            return !found.get().isEmpty();
        });
        List<JsonNode> events = found.get();
        assertEquals(1, events.size(), "one event for the cluster, not one per replica: " + events);
        assertEquals("bronze", events.get(0).path("class").asText());
        assertTrue(events.get(0).path("detail").asText().contains(seen), events.toString());
    }

    static HttpResponse<String> converse(String user, String operation, int id, int value, String... headers) throws Exception {
        String payload = "<c:" + operation + " xmlns:c='" + ConversationEndToEndTest.NS + "'><c:id>" + id + "</c:id><c:value>" + value
                + "</c:value></c:" + operation + ">";
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(cluster.front() + "/services/ConvReceiveService"))
                .header("Content-Type", "text/xml; charset=utf-8").header("SOAPAction", "\"" + ConversationEndToEndTest.NS + "/" + operation + "\"")
                .header("Authorization", basic(user)).timeout(Duration.ofMinutes(2))
                .POST(HttpRequest.BodyPublishers.ofString(ConversationEndToEndTest.ENV + payload + ConversationEndToEndTest.END));
        for (int i = 0; i < headers.length; i += 2) b.header(headers[i], headers[i + 1]);
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static int result(HttpResponse<String> r, String what) {
        assertEquals(200, r.statusCode(), what + ": " + r.body());
        return Integer.parseInt(r.body().replaceAll("(?s).*<(\\w+:)?result[^>]*>\\s*(-?\\d+)\\s*<.*", "$2"));
    }

    @Test
    @Order(4)
    void aForwardedConversationMessageIsCountedOnceAndAForgedHopHeaderIsPolicedAllTheSame() throws Exception {
        // one conversation at a time: HAProxy alternates the replicas, so a next message mostly reaches the replica without the instance
        double forwardedBefore = summed("moses_conversation_forwarded_total", "");
        int conversations = 10;
        for (int id = 1; id <= conversations; id++) {
            assertEquals(id, result(converse("dora", "start", id, id), "start of " + id));
            assertEquals(id + 1000, result(converse("dora", "next", id, 1000), "next of " + id));
        }
        double forwarded = summed("moses_conversation_forwarded_total", "") - forwardedBefore;
        assertTrue(forwarded >= 1, "no message crossed replicas");
        double counted = user("dora", "conforming") + user("dora", "rejected");
        assertEquals(2 * conversations, counted, "each message counted once against dora's rate, " + forwarded + " of them forwarded");

        // fred agreed 0 req/s: a forwarding header he sets himself, with or without a made-up seal, does not spare him policing
        HopSeal madeUp = new HopSeal("00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", "r2");
        String[][] forged = {
                {ConversationForwarding.HOP_HEADER, "r1"},
                {ConversationForwarding.HOP_HEADER, "r2", HopSeal.HEADER, madeUp.seal(new HopSeal.Hop("r2", "r1", "POST",
                        "/services/EchoPairService", null, basic("fred")), System.currentTimeMillis())},
                {ConversationForwarding.HOP_HEADER, "r1", HopSeal.HEADER, System.currentTimeMillis() + ".AAAA.AAAA"}};
        for (String[] headers : forged) {
            HttpResponse<String> r = pair("fred", "f", headers);
            assertEquals(429, r.statusCode(), String.join(" ", headers) + ": " + r.body());
            assertTrue(r.body().contains("user fred (class bronze) agreed 0 req/s"), r.body());
            r = converse("fred", "start", 900, 1, headers);
            assertEquals(429, r.statusCode(), String.join(" ", headers) + ": " + r.body());
        }
        assertEquals(2 * forged.length, user("fred", "rejected"));
        assertEquals(0, user("fred", "conforming"));

        // A seal made with the cluster's own key, as one captured from a forwarded message is: it
        // spares its one message to its one replica a second policing, once. Sent again, with
        // another body, or to another replica, the message is policed as any other. (The attack
        // goes to a replica directly, as a replay of a forwarded message would.)
        String secret;
        try (io.moses.mdal.KnowledgeBase kb = io.moses.mdal.Mdal.open(cluster.db, MARIADB.credentials())) {
            secret = kb.clusterSecret("hop");
        }
        HopSeal r2 = new HopSeal(secret, "r2");
        String path = "/services/EchoPairService";
        byte[] body = BrokerInProcessTest.pair("sealed").getBytes(StandardCharsets.UTF_8);
        String seal = r2.seal(new HopSeal.Hop("r2", "r1", "POST", path, java.nio.ByteBuffer.wrap(body), basic("fred")), System.currentTimeMillis());
        java.util.function.BiFunction<String, byte[], Integer> toR1 = (s, b) -> {
            try {
                return HTTP.send(HttpRequest.newBuilder(URI.create(cluster.replica("r1") + path))
                        .header("Content-Type", "text/xml; charset=utf-8").header("SOAPAction", "\"urn:moses:test:echo-pair/pair\"")
                        .header("Authorization", basic("fred")).header(ConversationForwarding.HOP_HEADER, "r2").header(HopSeal.HEADER, s)
                        .timeout(Duration.ofMinutes(1)).POST(HttpRequest.BodyPublishers.ofByteArray(b)).build(),
                        HttpResponse.BodyHandlers.ofString()).statusCode();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };
        assertEquals(200, toR1.apply(seal, body), "the sealed message itself, once: not policed a second time");
        assertEquals(429, toR1.apply(seal, body), "the same seal again: a replay");
        String another = r2.seal(new HopSeal.Hop("r2", "r1", "POST", path, java.nio.ByteBuffer.wrap(body), basic("fred")), System.currentTimeMillis());
        assertEquals(429, toR1.apply(another, BrokerInProcessTest.pair("changed").getBytes(StandardCharsets.UTF_8)), "another body");
        String toR2 = r2.seal(new HopSeal.Hop("r2", "r2", "POST", path, java.nio.ByteBuffer.wrap(body), basic("fred")), System.currentTimeMillis());
        assertEquals(429, toR1.apply(toR2, body), "a seal made out to another replica");
        assertEquals(2 * forged.length + 3, user("fred", "rejected"));
    }

    /**
     * A conversation belongs to the user who started it: another user can neither continue it nor
     * start a competing instance on its correlation value, through the front (whichever replica
     * HAProxy picks) or at the owner directly with a forwarding header of its own making.
     */
    @Test
    @Order(5)
    void aConversationBelongsToTheUserWhoStartedIt() throws Exception {
        int id = 950;
        assertEquals(id, result(converse("dora", "start", id, id), "dora's start"));
        for (int i = 0; i < 2; i++) { // HAProxy alternates the replicas: the owner and the other one both refuse
            for (String operation : List.of("next", "start")) {
                HttpResponse<String> r = converse("gina", operation, id, 1);
                assertEquals(500, r.statusCode(), operation + ": " + r.body());
                assertTrue(r.body().contains("soap:Client") && r.body().contains("that another user started: only that user may send its messages"),
                        operation + ": " + r.body());
            }
        }
        String owner;
        try (io.moses.mdal.KnowledgeBase kb = io.moses.mdal.Mdal.open(cluster.db, MARIADB.credentials())) {
            owner = kb.conversationOwner("{" + ConversationEndToEndTest.NS + "}ConvReceive",
                    new org.apache.ode.bpel.common.CorrelationKey("conv", new String[] {Integer.toString(id)}).toCanonicalString())
                    .map(o -> o.replica() + " " + o.user()).orElse("none");
        }
        assertTrue(owner.endsWith(" dora"), "the owner row names the user who started it: " + owner);
        String payload = "<c:next xmlns:c='" + ConversationEndToEndTest.NS + "'><c:id>" + id + "</c:id><c:value>1</c:value></c:next>";
        HttpResponse<String> direct = HTTP.send(HttpRequest.newBuilder(URI.create(cluster.replica(owner.split(" ")[0]) + "/services/ConvReceiveService"))
                .header("Content-Type", "text/xml; charset=utf-8").header("SOAPAction", "\"" + ConversationEndToEndTest.NS + "/next\"")
                .header("Authorization", basic("gina")).header(ConversationForwarding.HOP_HEADER, "r9").timeout(Duration.ofMinutes(1))
                .POST(HttpRequest.BodyPublishers.ofString(ConversationEndToEndTest.ENV + payload + ConversationEndToEndTest.END)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(500, direct.statusCode(), direct.body());
        assertTrue(direct.body().contains("another user started"), "a forwarding header of the caller's making skips no check: " + direct.body());
        assertEquals(id + 1, result(converse("dora", "next", id, 1), "dora's next, after all that"));
        assertEquals(5, summed("moses_conversation_refused_foreign_total", ""), "each refusal counted, on the replica that refused it");
    }

    @Test
    @Order(7)
    void whenAReplicaIsKilledTheOneLeftPolicesTheWholeRate() throws Exception {
        // once the other's heartbeat is older than the lease
        ChildProcess r2 = cluster.replicas.get("r2");
        r2.process.destroyForcibly();
        r2.process.waitFor(30, TimeUnit.SECONDS);
        Waits.until("r1 taking the whole rate", 60, () -> policingReplicas(cluster.replica("r1")) == 1, () -> cluster.logs());
    }

    /**
     * One client guessing at many names through the front is delayed by its own address, which
     * HAProxy forwards for: each replica counts what it saw (at most 20 free failures each), and
     * another client behind the same HAProxy still logs in.
     */
    @Test
    @Order(6) // before a replica is killed: both count
    void aClientGuessingThroughTheFrontIsDelayedByItsAddressNotHaProxys() throws Exception {
        int port = java.net.URI.create(cluster.front()).getPort();
        int failed = 0;
        String last = "";
        for (int i = 0; i < 2 * io.moses.model.auth.LoginThrottle.FREE_CLIENT_FAILURES + 1; i++) {
            last = PasswordGuessingTest.from("127.0.0.2", port, "stranger" + i, "guess");
            if (!last.contains("unknown user or wrong password")) break;
            failed++;
        }
        assertTrue(last.contains("too many failed logins from 127.0.0.2: retry after"), "refused after " + failed + ":\n" + last);
        assertTrue(failed >= io.moses.model.auth.LoginThrottle.FREE_CLIENT_FAILURES, "no replica refuses before its own 20: " + failed);
        String other = PasswordGuessingTest.from("127.0.0.3", port, "hana", "hana-secret");
        assertTrue(other.startsWith("HTTP/1.1 200"), "another client behind HAProxy logs in:\n" + other);
    }
}