package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.mdal.testing.MariaDbServer;
import io.moses.testing.Waits;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The last capacity of a class, raced for through HAProxy's front by subscriptions that two
 * replicas decide at once: exactly one wins, the others get counter-offers of what is left. Each
 * replica serializes its own decisions; across replicas the knowledge base's version of the
 * admission's inputs refuses a decision made on what another replica has changed meanwhile, and
 * that replica decides again (AdmissionRetryTest shows the retry itself deterministically).
 */
@Tag("e2e")
class AdmissionClusterTest {
    @org.junit.jupiter.api.extension.RegisterExtension
    static final MariaDbServer MARIADB = new MariaDbServer();
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    static final Pattern ADMISSIBLE = Pattern.compile("<(?:\\w+:)?name>bronze</(?:\\w+:)?name>.*?<(?:\\w+:)?admissibleRate>([0-9.Ee+-]+)<", Pattern.DOTALL);
    @TempDir static Path dir;
    static ChildProcess stubs;
    static TestCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        TestCluster.requireHaProxy();
        stubs = new ChildProcess("io.moses.loadtest.stubs.StubServer", List.of("--port", "0"));
        int stubPort = Integer.parseInt(stubs.await(Pattern.compile("stubs listening on http://[^:]+:(\\d+)"), 60));
        cluster = new TestCluster(dir, MARIADB, List.of("r1", "r2"));
        cluster.start("r1", "--deploy", "../bpel-processes/trip-planner", "--seed", "../bpel-processes/trip-planner/seed.yaml",
                "--set", "STUBS=http://127.0.0.1:" + stubPort, "--registration", "open");
        cluster.start("r2", "--deploy", "../bpel-processes/trip-planner", "--registration", "open");
        cluster.haproxy.awaitUp(List.of("r1", "r2"), 60);
    }

    @AfterAll
    static void stop() throws Exception {
        if (cluster != null) cluster.close();
        if (stubs != null) stubs.close();
    }

    static HttpResponse<String> sla(String operation, String body) throws Exception {
        String envelope = "<s:Envelope xmlns:s='http://schemas.xmlsoap.org/soap/envelope/' xmlns:m='urn:moses:sla-manager'><s:Body>"
                + body + "</s:Body></s:Envelope>";
        return HTTP.send(HttpRequest.newBuilder(URI.create(cluster.front() + "/manage/sla")).timeout(Duration.ofSeconds(120))
                .header("Content-Type", "text/xml; charset=utf-8").header("SOAPAction", "\"urn:moses:sla-manager:" + operation + "\"")
                .POST(HttpRequest.BodyPublishers.ofString(envelope)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static double bronzeAdmissible() throws Exception {
        HttpResponse<String> r = sla("GetClasses", "<m:getClasses/>");
        assertEquals(200, r.statusCode(), r.body());
        Matcher m = ADMISSIBLE.matcher(r.body());
        assertTrue(m.find(), r.body());
        return Double.parseDouble(m.group(1));
    }

    @Test
    void thePlansThatServeSubscriptionsAreTheLeadersWhicheverReplicaTookThem() throws Exception {
        // through the front, HAProxy gives the subscriptions to both replicas; every plan that
        // serves one is made (and logged) by the optimizer leader, and named in the reply
        Map<String, ChildProcess> byName = cluster.replicas;
        AtomicReference<String> found = new AtomicReference<>();
        Waits.until("a leader", 60, () -> {
            for (String r : byName.keySet()) {
                HttpResponse<String> h = HTTP.send(HttpRequest.newBuilder(URI.create(cluster.replica(r) + "/health")).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (new com.fasterxml.jackson.databind.ObjectMapper().readTree(h.body()).path("optimizerLeader").asBoolean()) found.set(r);
            }
            return found.get() != null;
        });
        String leader = found.get();
        for (int u = 0; u < 4; u++) {
            HttpResponse<String> r = sla("Subscribe", "<m:subscribe><m:user>steady" + u + "</m:user><m:password>steady-password-" + u
                    + "</m:password><m:serviceClass>silver</m:serviceClass><m:rate>0.01</m:rate></m:subscribe>");
            assertEquals(200, r.statusCode(), r.body());
            assertTrue(r.body().matches("(?s).*<(\\w+:)?accepted>true<.*"), r.body());
            Matcher m = Pattern.compile("<(?:\\w+:)?planVersion>(\\d+)<").matcher(r.body());
            assertTrue(m.find(), r.body());
            String planned = "plan " + m.group(1) + " (subscription of steady" + u;
            String leaderName = leader;
            waitForOutput(byName.get(leader), planned);
            for (var e : byName.entrySet())
                if (!e.getKey().equals(leaderName))
                    assertTrue(!e.getValue().output().contains(planned), e.getKey() + " is not the leader but made " + planned);
        }
        // both replicas took some of them (HAProxy balances): the other replica asked the leader
        assertTrue(byName.values().stream().allMatch(p -> p.output().contains("subscription accepted: steady")),
                "each replica took a subscription: " + byName.keySet());
    }

    static void waitForOutput(ChildProcess p, String text) {
        Waits.until("'" + text + "' in the leader's log", 30, () -> p.output().contains(text), p::output);
    }

    @Test
    void theLastCapacityRacedThroughTwoReplicasHasExactlyOneWinner() throws Exception {
        double admissible = bronzeAdmissible();
        assertTrue(admissible > 1, "bronze can take more: " + admissible);
        // each asks 60 % of what is left: one fits, two do not
        double rate = Math.floor(0.6 * admissible * 100) / 100;
        int n = 8;
        ExecutorService pool = Executors.newFixedThreadPool(n);
        List<Future<HttpResponse<String>>> answers = new ArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        try {
            for (int i = 0; i < n; i++) {
                String body = "<m:subscribe><m:user>racer" + i + "</m:user><m:password>racer-password-" + i + "</m:password>"
                        + "<m:serviceClass>bronze</m:serviceClass><m:rate>" + rate + "</m:rate></m:subscribe>";
                answers.add(pool.submit(() -> {
                    go.await();
                    return sla("Subscribe", body);
                }));
            }
            go.countDown();
            int accepted = 0, rejected = 0;
            List<String> bodies = new ArrayList<>();
            for (Future<HttpResponse<String>> f : answers) {
                HttpResponse<String> r = f.get(300, TimeUnit.SECONDS);
                bodies.add(r.statusCode() + " " + r.body());
                assertEquals(200, r.statusCode(), r.body());
                if (r.body().matches("(?s).*<(\\w+:)?accepted>true<.*")) accepted++;
                else if (r.body().matches("(?s).*<(\\w+:)?accepted>false<.*") && r.body().contains("counterOffer")) rejected++;
            }
            assertEquals(1, accepted, "one winner of " + rate + " req/s with " + admissible + " admissible: " + bodies);
            assertEquals(n - 1, rejected, "the others rejected with counter-offers: " + bodies);
        } finally {
            pool.shutdownNow();
        }
        // what is left is what the winner left, seen through either replica
        double left = bronzeAdmissible();
        assertTrue(left < admissible - rate + 0.05 * admissible, "admissible after: " + left + " (before " + admissible + ", won " + rate + ")");
        long retries = cluster.replicas.values().stream().mapToLong(r -> r.output().lines().filter(l -> l.contains("deciding again")).count()).sum();
        System.out.println("admission race: " + retries + " decision(s) made again after another replica stored first");
    }
}
