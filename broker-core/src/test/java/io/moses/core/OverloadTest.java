package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.core.frontend.OverloadBound;
import io.moses.core.loop.Adaptation;
import io.moses.testing.Waits;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The front-end's overload bound: beyond it a fast 503 SOAP fault with a reason, running requests unharmed. */
@Tag("e2e")
class OverloadTest {
    private final HttpClient http = HttpClient.newHttpClient();
    private EchoPartner partner;
    private Broker broker;
    @TempDir Path work;

    private void start(OverloadBound bound) throws Exception {
        partner = new EchoPartner(2_000);
        broker = new Broker(echoPair(work, partner, bound));
        broker.start();
    }

    /** A broker serving EchoPair over {@code partner}, adaptation off, under {@code bound}. */
    static BrokerConfig echoPair(Path work, EchoPartner partner, OverloadBound bound) throws java.io.IOException {
        Files.writeString(work.resolve("seed.yaml"), """
                composite: EchoPair
                services:
                  - {name: left-1, task: left.echo, endpoint: "${PARTNER}/left", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 100}
                  - {name: right-1, task: right.echo, endpoint: "${PARTNER}/right", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 100}
                """);
        return BrokerConfig.defaults().withAdaptation(Adaptation.off()).withPort(0).withWorkDir(work)
                .withDb("mem:echo-pair-" + System.nanoTime()).withSeeds(List.of(work.resolve("seed.yaml")))
                .withVariables(Map.of("PARTNER", partner.url("")))
                .withDeployments(List.of(Path.of("src/test/resources/processes/echo-pair")))
                .withOverloadBound(bound);
    }

    @AfterEach
    void stop() {
        if (broker != null) broker.close();
        if (partner != null) partner.close();
    }

    private HttpRequest pair(String text) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + broker.port() + "/services/EchoPairService"))
                .header("Content-Type", "text/xml; charset=utf-8")
                .header("SOAPAction", "\"urn:moses:test:echo-pair/pair\"")
                .timeout(Duration.ofSeconds(20))
                .POST(HttpRequest.BodyPublishers.ofString(BrokerInProcessTest.pair(text))).build();
    }

    private void awaitPartnerCalls(int n) {
        Waits.until("the first request at the partner", 20, () -> partner.calls.get() >= n);
    }

    @Test
    void beyondTheBoundARequestGets503WithAReasonAndTheRunningOneSucceeds() throws Exception {
        start(new OverloadBound(1, 0, Duration.ZERO));
        CompletableFuture<HttpResponse<String>> running = http.sendAsync(pair("first"), HttpResponse.BodyHandlers.ofString());
        awaitPartnerCalls(1); // the first request is in the engine, holding the only place for its partners' 2 s

        HttpResponse<String> refused = http.send(pair("second"), HttpResponse.BodyHandlers.ofString());
        // refused at once: while the first request still runs, not after waiting for it
        assertFalse(running.isDone(), "the refusal waited for the running request");
        assertEquals(503, refused.statusCode(), refused.body());
        assertEquals("1", refused.headers().firstValue("Retry-After").orElse(null));
        assertTrue(refused.body().contains("<faultcode>soap:Server</faultcode>"), refused.body());
        assertTrue(refused.body().contains("the broker is overloaded: 1 composite requests are running"), refused.body());
        assertFalse(refused.body().contains("second via"), "a refused request must not run: " + refused.body());

        HttpResponse<String> first = running.get();
        assertEquals(200, first.statusCode(), first.body());
        assertTrue(first.body().contains("first via /left") && first.body().contains("first via /right"), first.body());
        assertEquals(2, partner.calls.get(), "only the running request called the partners");

        // each request sent the moment the previous one is answered finds the place free: it is
        // given back when the answer is complete, not a moment later when the servlet returns
        for (int i = 0; i < 3; i++) { // 3: each takes the partners' 2 s
            HttpResponse<String> after = http.send(pair("after" + i), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, after.statusCode(), "the place is free again (request " + i + " after the first): " + after.body());
            assertTrue(after.body().contains("after" + i + " via /left"), after.body());
        }
    }

    @Test
    void aRequestWhoseCredentialsAreRefusedTakesNoPlaceAndIsToldWhyWhileThePlacesAreFull() throws Exception {
        partner = new EchoPartner(2_000);
        BrokerConfig config = echoPair(work, partner, new OverloadBound(1, 0, Duration.ZERO));
        Files.writeString(work.resolve("seed.yaml"), Files.readString(work.resolve("seed.yaml"))
                + "classes:\n  - {name: gold, maxResponseTime: 20.0, minAvailability: 0.5, maxCost: 10, price: 5}\n"
                + "users:\n  - {name: alice, class: gold, rate: 100, password: alice-secret}\n");
        broker = new Broker(config);
        broker.start();
        CompletableFuture<HttpResponse<String>> running = http.sendAsync(as(pair("first"), "alice:alice-secret"),
                HttpResponse.BodyHandlers.ofString());
        awaitPartnerCalls(1); // alice's request holds the only place for its partners' 2 s

        // refused for its credentials, not for want of a place: the check came first, and needed none
        BrokerInProcessTest.assertFault(http.send(as(pair("guess"), "alice:wrong"), HttpResponse.BodyHandlers.ofString()),
                "Client", "unknown user or wrong password");
        BrokerInProcessTest.assertFault(http.send(pair("nobody"), HttpResponse.BodyHandlers.ofString()), "Client",
                "authentication required");
        assertFalse(running.isDone(), "answered while the place was still taken");
        HttpResponse<String> busy = http.send(as(pair("second"), "alice:alice-secret"), HttpResponse.BodyHandlers.ofString());
        assertEquals(503, busy.statusCode(), "a request with good credentials still needs a place: " + busy.body());
        assertEquals(200, running.get().statusCode());
        assertEquals(2, partner.calls.get(), "only alice's first request called the partners");
    }

    private static HttpRequest as(HttpRequest r, String credentials) {
        return HttpRequest.newBuilder(r, (name, value) -> true)
                .header("Authorization", "Basic " + java.util.Base64.getEncoder().encodeToString(credentials.getBytes())).build();
    }

    @Test
    void aQueuedRequestWaitsForItsTurnAndSucceeds() throws Exception {
        start(new OverloadBound(1, 1, Duration.ofSeconds(15)));
        CompletableFuture<HttpResponse<String>> running = http.sendAsync(pair("one"), HttpResponse.BodyHandlers.ofString());
        awaitPartnerCalls(1);
        HttpResponse<String> queued = http.send(pair("two"), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, queued.statusCode(), queued.body());
        assertTrue(queued.body().contains("two via /left"), queued.body());
        assertEquals(200, running.get().statusCode());
        // one at a time: the partner never had calls of both requests open at once (a flow opens 2)
        assertEquals(2, partner.peakInFlight.get(), "calls in flight at once");
    }
}
