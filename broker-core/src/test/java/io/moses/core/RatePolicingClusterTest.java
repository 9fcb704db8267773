package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.mdal.testing.MariaDbServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One agreed rate for the whole cluster: two replicas behind HAProxy each police half of a
 * user's rate (they count each other through the knowledge base), so what the front serves of a
 * user sending far above its rate stays within the cluster-wide bucket, not twice it.
 */
@Tag("e2e")
class RatePolicingClusterTest {
    @org.junit.jupiter.api.extension.RegisterExtension
    static final MariaDbServer MARIADB = new MariaDbServer();
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    static final double RATE = 2;
    static final double BURST = 2;
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
                  - {name: bronze, maxResponseTime: 3.0, minAvailability: 0.5, maxCost: 10, price: 1}
                users:
                  - {name: carl, class: bronze, rate: 2, password: carl-secret}
                services:
                  - {name: left-1, task: left.echo, endpoint: "${PARTNER}/left", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 200}
                  - {name: right-1, task: right.echo, endpoint: "${PARTNER}/right", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 200}
                """);
        cluster = new TestCluster(dir, MARIADB, List.of("r1", "r2"));
        String unit = Path.of("src/test/resources/processes/echo-pair").toAbsolutePath().toString();
        List<String> policed = List.of("--over-rate", "reject", "--rate-burst", Double.toString(BURST), "--monitors", "none");
        cluster.start("r1", concat(policed, "--deploy", unit, "--seed", seed.toString(), "--set", "PARTNER=" + partner.url("")));
        cluster.start("r2", concat(policed, "--deploy", unit));
        cluster.haproxy.awaitUp(List.of("r1", "r2"), 60);
    }

    private static String[] concat(List<String> first, String... more) {
        java.util.ArrayList<String> all = new java.util.ArrayList<>(first);
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    @AfterAll
    static void stop() throws Exception {
        if (cluster != null) cluster.close();
        if (partner != null) partner.close();
    }

    static double policingReplicas(String base) throws Exception {
        String m = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
        Matcher x = Pattern.compile("(?m)^moses_policing_replicas ([0-9.]+)$").matcher(m);
        return x.find() ? Double.parseDouble(x.group(1)) : 0;
    }

    @Test
    void twoReplicasPoliceOneClusterWideRate() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (policingReplicas(cluster.replica("r1")) != 2 || policingReplicas(cluster.replica("r2")) != 2)
        {
            assertTrue(System.nanoTime() < deadline, "the replicas never counted each other" + cluster.logs());
            Thread.sleep(100);
        }

        String auth = "Basic " + Base64.getEncoder().encodeToString("carl:carl-secret".getBytes(StandardCharsets.UTF_8));
        int sent = 200, ok = 0, refused = 0;
        long started = System.nanoTime();
        for (int i = 0; i < sent; i++) {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(cluster.front() + "/services/EchoPairService"))
                    .header("Content-Type", "text/xml; charset=utf-8").header("SOAPAction", "\"urn:moses:test:echo-pair/pair\"")
                    .header("Authorization", auth).timeout(Duration.ofSeconds(30))
                    .POST(HttpRequest.BodyPublishers.ofString(BrokerInProcessTest.pair("c" + i))).build(), HttpResponse.BodyHandlers.ofString());
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
        assertEquals(2 * ok, partner.calls.get(), "refused requests started no process");

        // a replica killed: the one left polices the whole rate once the other's heartbeat is older than the lease
        ChildProcess r2 = cluster.replicas.get("r2");
        r2.process.destroyForcibly();
        r2.process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
        deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (policingReplicas(cluster.replica("r1")) != 1)
        {
            assertTrue(System.nanoTime() < deadline, "r1 never took the whole rate" + cluster.logs());
            Thread.sleep(100);
        }
    }
}
