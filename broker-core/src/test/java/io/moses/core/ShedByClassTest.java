package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.core.CallerGroups.Tally;
import io.moses.core.frontend.OverloadBound;
import io.moses.core.loop.Adaptation;
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
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Overload shed by class, on a real broker whose bound a slow partner saturates over real
 * sockets: gold (price 15) and bronze (price 4) callers together send more than the bound and
 * its wait line hold; bronze absorbs the 503s, gold's are near zero. Counts, never timings.
 */
@Tag("e2e")
class ShedByClassTest {
    private static final int IN_FLIGHT = 2, QUEUED = 4;
    private static final int HIGH_CALLERS = 4, HIGH_EACH = 10, LOW_CALLERS = 8, LOW_MOST = 2_000;
    private final HttpClient http = HttpClient.newBuilder().executor(Executors.newFixedThreadPool(4)).build();
    private EchoPartner partner;
    private Broker broker;
    @TempDir Path work;
    private io.moses.core.frontend.ClassWorth classWorth = new io.moses.core.frontend.ClassWorth();

    private void start(io.moses.core.frontend.RatePolicy rates) throws Exception {
        partner = new EchoPartner(100);
        Files.writeString(work.resolve("seed.yaml"), """
                composite: EchoPair
                classes:
                  - {name: gold, maxResponseTime: 30.0, minAvailability: 0.5, maxCost: 10, price: 15}
                  - {name: bronze, maxResponseTime: 30.0, minAvailability: 0.5, maxCost: 10, price: 4}
                users:
                  - {name: gina, class: gold, rate: 100000, password: gina-secret}
                  - {name: bob, class: bronze, rate: 100000, password: bob-secret}
                services:
                  - {name: left-1, task: left.echo, endpoint: "${PARTNER}/left", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 200}
                  - {name: right-1, task: right.echo, endpoint: "${PARTNER}/right", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 200}
                """);
        BrokerConfig config = BrokerConfig.defaults().withAdaptation(Adaptation.off()).withPort(0).withWorkDir(work)
                .withDb("mem:shed-" + System.nanoTime()).withSeeds(List.of(work.resolve("seed.yaml")))
                .withVariables(Map.of("PARTNER", partner.url("")))
                .withDeployments(List.of(Path.of("src/test/resources/processes/echo-pair")))
                // a long wait: every refusal here is for room, none for time
                .withOverloadBound(new OverloadBound(IN_FLIGHT, QUEUED, Duration.ofSeconds(120)));
        broker = new Broker(config).ratePolicy(rates).classWorth(classWorth);
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
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":" + user + "-secret")
                        .getBytes(StandardCharsets.UTF_8)))
                .timeout(Duration.ofMinutes(5))
                .POST(HttpRequest.BodyPublishers.ofString(BrokerInProcessTest.pair(text))).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void underOverloadBronzeAbsorbsTheRefusalsAndGoldIsServed() throws Exception {
        start(io.moses.core.frontend.RatePolicy.OFF);
        overload(GOLD, BRONZE);
    }

    /** With rates policed (far above what is sent), the class the policing resolved is the one the line uses. */
    @Test
    void withRatesPolicedTheClassResolvedForPolicingOrdersTheLine() throws Exception {
        start(new io.moses.core.frontend.RatePolicy(io.moses.core.frontend.RatePolicy.OverRate.REJECT, 2));
        overload(GOLD, BRONZE);
    }

    /** The operator's priority before the price: with bronze ranked above gold, gold absorbs the refusals. */
    @Test
    void anOperatorsPriorityComesBeforeThePrice() throws Exception {
        classWorth = new io.moses.core.frontend.ClassWorth(Map.of("bronze", 1.0));
        start(io.moses.core.frontend.RatePolicy.OFF);
        overload(BRONZE, GOLD);
    }

    private record Caller(String user, String serviceClass) {}

    private static final Caller GOLD = new Caller("gina", "gold"), BRONZE = new Caller("bob", "bronze");

    private void overload(Caller high, Caller low) throws Exception {
        Tally higher = new Tally(), lower = new Tally();
        // the lower class keeps the bound and the line full until the higher is done (bounded in count), backing off briefly after a 503
        CallerGroups.run(LOW_CALLERS, LOW_MOST, (caller, i) -> {
            String text = "b" + caller + "-" + i;
            return lower.count(pair(low.user, text), text, "the broker is overloaded");
        }, () -> {
            // the higher class starts once the partner holds the bound's requests, so it arrives into a full broker
            Waits.until(low.serviceClass + " saturating the bound", 60, () -> partner.calls.get() >= IN_FLIGHT && lower.refused.get() > 0,
                    () -> partner.calls.get() + " partner calls, " + lower.refused.get() + " refused");
        }, HIGH_CALLERS, HIGH_EACH, (caller, i) -> {
            String text = "g" + caller + "-" + i;
            return higher.count(pair(high.user, text), text, "the broker is overloaded");
        });

        int higherSent = HIGH_CALLERS * HIGH_EACH;
        String counts = high.serviceClass + " served " + higher.served + ", refused " + higher.refused + "; " + low.serviceClass + " served " + lower.served + ", refused "
                + lower.refused + " (" + lower.displaced + " displaced)";
        System.out.println("shed by class: " + counts);
        assertEquals(higherSent, higher.served.get() + higher.refused.get(), counts);
        // the higher class alone fits the line, so none of its requests need be refused; a generous bound all the same
        assertTrue(higher.refused.get() <= higherSent / 20, high.serviceClass + " absorbed refusals: " + counts);
        assertTrue(lower.refused.get() >= 10 * Math.max(1, higher.refused.get()), low.serviceClass + " did not absorb the refusals: " + counts);
        assertTrue(lower.displaced.get() >= 1, "no waiting " + low.serviceClass + " request was displaced: " + counts);
        // refused requests started no process: only the served ones called the partners (2 calls each)
        assertEquals(2 * (higher.served.get() + lower.served.get()), partner.calls.get(), counts);

        String m = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + broker.port() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        assertEquals(lower.refused.get(), shed(m, low.serviceClass), low.serviceClass + " shed counters");
        assertEquals(lower.displaced.get(), metric(m, "cause=\"displaced\",class=\"" + low.serviceClass + "\""), low.serviceClass + " displaced");
        assertEquals(higher.refused.get(), shed(m, high.serviceClass), high.serviceClass + " shed counters");
    }

    private static double metric(String text, String labels) {
        Matcher m = Pattern.compile("(?m)^moses_admission_shed_total\\{" + Pattern.quote(labels) + "\\} ([0-9.Ee+-]+)$").matcher(text);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    private static double shed(String text, String serviceClass) {
        double sum = 0;
        for (String cause : List.of("full", "displaced", "timeout")) sum += metric(text, "cause=\"" + cause + "\",class=\"" + serviceClass + "\"");
        return sum;
    }
}
