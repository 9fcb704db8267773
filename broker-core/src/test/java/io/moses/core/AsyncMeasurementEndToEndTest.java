package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.testing.Waits;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker sees an asynchronous task's response time as the time to its callback (docs/model.md,
 * "Asynchronous tasks"): bpel-processes/quote-async on its two suppliers, whose one-way sends are
 * answered at once and whose callbacks come after 600 ms (supplier-a) and 20 ms (supplier-b). The
 * QoS Monitor's view of each, in the admin API, is its callback's delay, not the milliseconds of
 * its send. The stubs call back as AsyncProvidersEndToEndTest says why.
 */
@Tag("e2e")
class AsyncMeasurementEndToEndTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final ObjectMapper JSON = new ObjectMapper();
    static final String OPERATOR = "Basic " + Base64.getEncoder().encodeToString("operator:operator-demo".getBytes(StandardCharsets.UTF_8));
    static final String ALICE = "Basic " + Base64.getEncoder().encodeToString("alice:alice-demo".getBytes(StandardCharsets.UTF_8));

    @Test
    @Timeout(240) // bounds a hang only
    void eachSuppliersObservedResponseTimeIsItsCallbacksDelay(@TempDir Path work) throws Exception {
        try (StubServices stubs = new StubServices();
             ChildProcess broker = stubs.broker(work, "--deploy", "../bpel-processes/quote-async", "--seed",
                     "../bpel-processes/quote-async/seed.yaml", "--optimizer", "off", "--request-timeout", "20000")) {
            String base = "http://127.0.0.1:" + broker.await(BrokerProcessTest.LISTENING, 90);
            Map<String, Integer> delays = Map.of("supplier-a", 600, "supplier-b", 20);
            for (var d : delays.entrySet())
                stubs.set(d.getKey(), "{\"callbackDelayMillis\":" + d.getValue() + ",\"distribution\":\"fixed\",\"callbackAddress\":\"" + base
                        + "/services/QuoteCallbackService\",\"callbackUser\":\"alice\",\"callbackPassword\":\"alice-demo\"}");
            for (int i = 0; i < 20; i++) {
                HttpResponse<String> r = quote(base, "m-" + i);
                assertEquals(200, r.statusCode(), r.body());
            }
            // the QoS Monitor drains the calls every monitor period: wait for both suppliers' samples
            Map<String, JsonNode> observed = new HashMap<>();
            Waits.within(30, () -> {
                observed.clear();
                for (JsonNode s : admin(base, "/admin/concrete-services"))
                    if (s.has("observed") && s.path("observed").path("samples").asInt() >= 5) observed.put(s.path("name").asText(), s.path("observed"));
                return observed.keySet().containsAll(delays.keySet());
            });
            assertTrue(observed.keySet().containsAll(delays.keySet()), "observed: " + observed);
            double a = observed.get("supplier-a").path("responseTime").asDouble(), b = observed.get("supplier-b").path("responseTime").asDouble();
            // at least each callback's delay (a send alone took milliseconds), and in their order; no
            // upper bound of wall-clock time: every callback came (availability 1), none timed out
            assertTrue(a >= 0.6, "supplier-a, 600 ms to its callback, observed at " + a + " s: " + observed);
            assertTrue(b >= 0.02 && b < a, "supplier-b, 20 ms to its callback, observed at " + b + " s: " + observed);
            for (String s : delays.keySet()) assertEquals(1.0, observed.get(s).path("availability").asDouble(), "every callback came: " + observed);
        }
    }

    static HttpResponse<String> quote(String base, String requestId) throws Exception {
        String body = "<soap:Envelope xmlns:soap='http://schemas.xmlsoap.org/soap/envelope/'><soap:Body>"
                + "<qa:quote xmlns:qa='urn:moses:quote-async'><qa:requestId>" + requestId + "</qa:requestId><qa:item>widget</qa:item>"
                + "</qa:quote></soap:Body></soap:Envelope>";
        return HTTP.send(HttpRequest.newBuilder(URI.create(base + "/services/QuoteAsyncService"))
                .header("Content-Type", "text/xml; charset=utf-8").header("SOAPAction", "\"urn:moses:quote-async/quote\"")
                .header("Authorization", ALICE).timeout(Duration.ofSeconds(60)) // bounds a hang only
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode admin(String base, String path) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", OPERATOR)
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return JSON.readTree(r.body());
    }
}
