package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.core.frontend.RatePolicy;
import io.moses.core.loop.Adaptation;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each user's agreed rate enforced at the front (--over-rate reject): the excess gets HTTP 429
 * faults that name the agreed rate, the conforming share is served, another user is untouched,
 * and a subscription raised through the SLA Manager raises the bucket. Counts, not timings: the
 * bounds come from the rate and how long the test's own requests took.
 */
@Tag("e2e")
class RatePolicingTest {
    private static final String SEED = """
            composite: EchoPair
            classes:
              - {name: gold, maxResponseTime: 2.0, minAvailability: 0.5, maxCost: 10, price: 5}
              - {name: bronze, maxResponseTime: 3.0, minAvailability: 0.5, maxCost: 10, price: 1}
            users:
              - {name: carl, class: bronze, rate: 0.5, password: carl-secret}
              - {name: gina, class: gold, rate: 10, password: gina-secret}
            services:
              - {name: left-1, task: left.echo, endpoint: "${PARTNER}/left", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 200}
              - {name: right-1, task: right.echo, endpoint: "${PARTNER}/right", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 200}
            """;
    private static final double CARL_RATE = 0.5;
    private static final double BURST = 2; // carl's bucket: max(1, 0.5 * 2) = 1 request
    private final HttpClient http = HttpClient.newHttpClient();
    private EchoPartner partner;
    private Broker broker;
    @TempDir Path work;

    private void start() throws Exception {
        partner = new EchoPartner(5);
        Files.writeString(work.resolve("seed.yaml"), SEED);
        BrokerConfig config = BrokerConfig.defaults().withUsersInMetrics(true).withPort(0).withWorkDir(work).withDb("mem:policing-" + System.nanoTime())
                .withAdaptation(Adaptation.off().withOptimizer(true, "auto")).withRefreshMillis(200)
                .withSeeds(List.of(work.resolve("seed.yaml"))).withVariables(Map.of("PARTNER", partner.url("")))
                .withDeployments(List.of(Path.of("src/test/resources/processes/echo-pair")));
        broker = new Broker(config).ratePolicy(new RatePolicy(RatePolicy.OverRate.REJECT, BURST));
        broker.start();
    }

    @AfterEach
    void stop() {
        if (broker != null) broker.close();
        if (partner != null) partner.close();
    }

    private HttpResponse<String> pair(String user, String text) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + broker.port() + "/services/EchoPairService"))
                .header("Content-Type", "text/xml; charset=utf-8").header("SOAPAction", "\"urn:moses:test:echo-pair/pair\"")
                .header("Authorization", basic(user, user + "-secret")).timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(BrokerInProcessTest.pair(text))).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    private String metrics() throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + broker.port() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    private static double metric(String text, String name, String labels) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "\\{" + Pattern.quote(labels) + "\\} ([0-9.Ee+-]+)$").matcher(text);
        assertTrue(m.find(), name + "{" + labels + "} missing in:\n" + text);
        return Double.parseDouble(m.group(1));
    }

    /** The most requests a bucket of {@code rate} holding {@code burst} seconds conforms in {@code seconds}, plus one for rounding. */
    private static double mostConforming(double rate, double seconds) {
        return Math.max(1, rate * BURST) + rate * seconds + 1;
    }

    @Test
    void aUserAboveItsAgreedRateGets429ForTheExcessWhileItsShareAndAnotherUserAreServed() throws Exception {
        start();
        int carlSent = 30;
        int carlOk = 0, carl429 = 0, ginaOk = 0;
        long started = System.nanoTime();
        for (int i = 0; i < carlSent; i++) {
            HttpResponse<String> r = pair("carl", "c" + i);
            if (r.statusCode() == 200) {
                assertTrue(r.body().contains("c" + i + " via /left"), r.body());
                carlOk++;
            } else {
                assertEquals(429, r.statusCode(), r.body());
                assertTrue(r.body().contains("<faultcode>soap:Client</faultcode>"), r.body());
                assertTrue(r.body().contains("user carl (class bronze) agreed 0.5 req/s"), r.body());
                String retry = r.headers().firstValue("Retry-After").orElse("");
                assertTrue(retry.matches("[1-9][0-9]*"), "Retry-After: '" + retry + "'");
                carl429++;
            }
            if (i % 3 == 0) { // gina, gold at 10 req/s, sends 10 in all: never above her rate
                HttpResponse<String> g = pair("gina", "g" + i);
                assertEquals(200, g.statusCode(), "gina is within her rate: " + g.body());
                ginaOk++;
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        assertEquals(10, ginaOk);
        assertTrue(carlOk >= 1, "carl's first request is within his burst");
        assertTrue(carlOk <= mostConforming(CARL_RATE, seconds),
                carlOk + " of carl's requests served in " + seconds + " s at an agreed 0.5 req/s");
        assertEquals(carlSent, carlOk + carl429);
        assertTrue(carl429 >= carlSent - mostConforming(CARL_RATE, seconds), carl429 + " refused");
        // refused requests started no process: only the served ones called the partners (2 calls each)
        assertEquals(2 * (carlOk + ginaOk), partner.calls.get());

        String m = metrics();
        assertEquals(carlOk, metric(m, "moses_policing_user_requests_total", "user=\"carl\",verdict=\"conforming\""));
        assertEquals(carl429, metric(m, "moses_policing_user_requests_total", "user=\"carl\",verdict=\"rejected\""));
        assertEquals(0, metric(m, "moses_policing_class_requests_total", "class=\"gold\",verdict=\"rejected\""));
        assertEquals(ginaOk, metric(m, "moses_policing_class_requests_total", "class=\"gold\",verdict=\"conforming\""));
        // and counted in no composite figure: the composite histogram saw only the served requests
        assertEquals(carlOk + ginaOk, metric(m, "moses_composite_requests_seconds_count", "composite=\"EchoPair\",outcome=\"ok\""));
    }

    @Test
    void aSubscriptionRaisedThroughTheSlaManagerRaisesTheBucket() throws Exception {
        start();
        HttpResponse<String> refused = null;
        for (int i = 0; i < 20 && refused == null; i++) {
            HttpResponse<String> r = pair("carl", "x" + i);
            if (r.statusCode() == 429) refused = r;
        }
        assertTrue(refused != null && refused.body().contains("agreed 0.5 req/s"), "carl above 0.5 req/s is refused");

        HttpResponse<String> changed = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + broker.port() + "/manage/sla"))
                .header("Content-Type", "text/xml; charset=utf-8").header("SOAPAction", "\"urn:moses:sla-manager:ChangeSubscription\"")
                .header("Authorization", basic("carl", "carl-secret")).timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString("<s:Envelope xmlns:s='http://schemas.xmlsoap.org/soap/envelope/' "
                        + "xmlns:m='urn:moses:sla-manager'><s:Body><m:changeSubscription><m:rate>50</m:rate></m:changeSubscription>"
                        + "</s:Body></s:Envelope>")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, changed.statusCode(), changed.body());
        assertTrue(changed.body().contains("<accepted>true</accepted>") || changed.body().matches("(?s).*accepted>true<.*"), changed.body());

        // within the users' refresh: a batch of 10 gets more than 0.5 req/s could ever give it
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            long started = System.nanoTime();
            int ok = 0;
            for (int i = 0; i < 10; i++) if (pair("carl", "y" + i).statusCode() == 200) ok++;
            double seconds = (System.nanoTime() - started) / 1e9;
            if (ok > mostConforming(CARL_RATE, seconds)) break;
            assertTrue(System.nanoTime() < deadline, "carl's bucket never grew past 0.5 req/s (last batch: " + ok + " of 10 in "
                    + seconds + " s)");
        }
    }

    @Test
    void aBurstOutOfRangeIsRefusedWithTheOptionsName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RatePolicy.parse(new String[] {"--over-rate", "reject", "--rate-burst", "0"}));
        assertTrue(e.getMessage().contains("--rate-burst") && e.getMessage().contains("0.1 to 60"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> RatePolicy.parse(new String[] {"--rate-burst", "600"}));
        assertTrue(e.getMessage().contains("--rate-burst"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> RatePolicy.parse(new String[] {"--rate-burst", "lots"}));
        assertTrue(e.getMessage().contains("--rate-burst"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> RatePolicy.parse(new String[] {"--over-rate", "maybe"}));
        assertTrue(e.getMessage().contains("--over-rate"), e.getMessage());
        RatePolicy.Parsed ok = RatePolicy.parse(new String[] {"--port", "0", "--over-rate", "reject", "--rate-burst", "5"});
        assertEquals(new RatePolicy(RatePolicy.OverRate.REJECT, 5), ok.policy());
        assertEquals(List.of("--port", "0"), List.of(ok.rest()));
    }
}
