package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.core.cluster.ClusterSettings;
import io.moses.core.frontend.OverloadBound;
import io.moses.core.frontend.RatePolicy;
import io.moses.core.loop.Adaptation;
import io.moses.testing.Waits;
import io.moses.testing.Waits;
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
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every metric the dashboard and the alerting rules use (monitoring/) is on a running broker's
 * /metrics, once the broker has seen what makes each appear: composite requests of a class whose
 * rates are policed, calls of its concrete services, a request shed under overload, a collection.
 * A name the broker does not export would leave a panel empty and an alert silent for good. The
 * replica's own gauges say what /health says: ready, then not ready while it drains.
 */
@Tag("e2e")
class MonitoringMetricsEndToEndTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Pattern NAME = Pattern.compile("(?m)^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]");

    @Test
    void everyMetricTheDashboardAndTheRulesUseIsOnMetrics(@TempDir Path work) throws Exception {
        Set<String> used = MonitoringFilesTest.metricNames();
        // one service per task: every call of a request is over when its reply comes (no loser of a 1-out-of-n still on its way)
        Files.writeString(work.resolve("seed.yaml"), """
                composite: EchoPair
                classes:
                  - {name: gold, maxResponseTime: 1.0, minAvailability: 0.9, maxCost: 10, price: 5}
                users:
                  - {name: alice, class: gold, rate: 20, password: alice-secret}
                services:
                  - {name: left-1, task: left.echo, endpoint: "${PARTNER}/left", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 100}
                  - {name: right-1, task: right.echo, endpoint: "${PARTNER}/right", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 100}
                """);
        try (EchoPartner partner = new EchoPartner(0)) {
            BrokerConfig config = BrokerConfig.defaults().withAdaptation(Adaptation.defaults().withMonitors(true, false, true)).withPort(0)
                    .withWorkDir(work).withDb("mem:monitoring-" + System.nanoTime()).withSeeds(List.of(work.resolve("seed.yaml")))
                    .withVariables(Map.of("PARTNER", partner.url(""))).withDeployments(List.of(Path.of("src/test/resources/processes/echo-pair")))
                    // one request at a time and no line: a second one while the first runs is shed
                    .withOverloadBound(new OverloadBound(1, 0, Duration.ofSeconds(2)));
            // rates policed (far above what is sent): the policing counters per class
            // a drain, as in a cluster: the replica says it is not ready while it still answers
            ClusterSettings cluster = new ClusterSettings("monitoring", Duration.ofSeconds(3), Duration.ofSeconds(5));
            try (Broker broker = new Broker(config, cluster).ratePolicy(new RatePolicy(RatePolicy.OverRate.REJECT, 2))) {
                broker.start();
                int port = broker.port();
                for (int i = 0; i < 10; i++) assertEquals(200, call(port).statusCode());

                // a request held at the partner fills the bound; the next one is refused at once. One service
                // per task: with two, an earlier request's losing or exploring call could reach the partner after
                // that request's reply, and be taken for the held request's before it held its place
                partner.delayMillis = 2_000;
                int before = partner.calls.get();
                CompletableFuture<HttpResponse<String>> held = HTTP.sendAsync(request(port), HttpResponse.BodyHandlers.ofString());
                for (long deadline = System.nanoTime() + 20_000_000_000L; partner.calls.get() == before; Thread.sleep(5))
                    assertTrue(System.nanoTime() < deadline, "the held request never reached the partner");
                HttpResponse<String> shed = call(port);
                assertEquals(503, shed.statusCode(), shed.body());
                partner.delayMillis = 0;
                assertEquals(200, held.get().statusCode());
                System.gc(); // the collector's pause timer appears at the first collection

                // the class's and the services' observed values appear after a QoS Monitor period: poll until all are there
                Set<String> missing = new TreeSet<>(used);
                AtomicReference<String> scraped = new AtomicReference<>("");
                Waits.within(30, () -> {
                    scraped.set(AdminApiTest.send(port, "GET", "/metrics", null, Map.of(), null).body());
                    missing.removeAll(names(scraped.get()));
                    return missing.isEmpty();
                });
                String metrics = scraped.get();
                assertEquals(Set.of(), missing, "used by monitoring/ but not on /metrics:\n" + metrics);

                // the replica's own state: ready, the knowledge base reachable, the one replica leads and has solved its plan
                assertEquals(1.0, AdminApiTest.metric(metrics, "moses_replica_ready"));
                assertEquals(1.0, AdminApiTest.metric(metrics, "moses_knowledge_base_up"));
                assertEquals(1.0, AdminApiTest.metric(metrics, "moses_optimizer_leader"));
                double solved = AdminApiTest.metric(metrics, "moses_plan_solves_total");
                assertTrue(solved >= 1 && solved <= broker.solves(), solved + " plans solved, the loop says " + broker.solves());
                assertTrue(metrics.contains("moses_admission_shed_total{cause=\"full\",class=\"gold\"} "), metrics);

                // stopping: /health answers DRAINING for the drain, and the gauge says not ready
                Thread stopping = new Thread(broker::close, "stopping");
                stopping.start();
                double ready = 1;
                // sampled every 20 ms: the drain is short, and the gauge is seen at 0 only while it lasts
                for (long deadline = System.nanoTime() + 4_000_000_000L; ready != 0 && System.nanoTime() < deadline; Thread.sleep(20))
                    ready = AdminApiTest.metric(AdminApiTest.send(port, "GET", "/metrics", null, Map.of(), null).body(), "moses_replica_ready");
                assertEquals(0.0, ready, "moses_replica_ready while the replica drains");
                stopping.join();
            }
        }
    }

    static Set<String> names(String metrics) {
        Set<String> out = new TreeSet<>();
        Matcher m = NAME.matcher(metrics);
        while (m.find()) out.add(m.group(1));
        return out;
    }

    private static HttpRequest request(int port) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/services/EchoPairService"))
                .header("Content-Type", "text/xml; charset=utf-8")
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("alice:alice-secret".getBytes(StandardCharsets.UTF_8)))
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(BrokerInProcessTest.pair("monitoring"))).build();
    }

    private static HttpResponse<String> call(int port) throws Exception {
        return HTTP.send(request(port), HttpResponse.BodyHandlers.ofString());
    }
}
