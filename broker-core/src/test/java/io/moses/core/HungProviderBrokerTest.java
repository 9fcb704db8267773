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
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A provider that hangs on calls while its WSDL still answers (docs/model.md, "Reaction between
 * plans"), on a real broker with the WS Monitor probing every 500 ms under a steady load: it is
 * ejected once and stays out (the probe does not bring it back), the calls reaching it follow the
 * trial back-off, and once it answers again its trial call brings it back.
 */
@Tag("e2e")
class HungProviderBrokerTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final ObjectMapper JSON = new ObjectMapper();
    static final String OPERATOR = FeedbackLoopTest.OPERATOR;
    static StubServices stubs;
    static ChildProcess broker;
    static String base;
    static SteadyLoad load;
    @TempDir static Path work;

    @BeforeAll
    static void start() throws Exception {
        stubs = new StubServices();
        broker = stubs.broker(work, "--deploy", "../bpel-processes/trip-planner", "--seed", "../bpel-processes/trip-planner/seed.yaml",
                "--monitor-period", "500", "--probe-period", "500", "--hold", "1000", "--invoke-timeout", "1000");
        // 300 s only bounds a hang: a broker on a shared machine under load once took over 90 s to start
        base = "http://127.0.0.1:" + Integer.parseInt(broker.await(BrokerProcessTest.LISTENING, 300));
        load = new SteadyLoad(new String[][] {{"alice", "alice-demo"}, {"bob", "bob-demo"}},
                (user, password) -> TripPlannerEndToEndTest.planTrip(user, password, false, 0, base));
    }

    @AfterAll
    static void stop() throws Exception {
        if (load != null) load.close();
        if (broker != null) {
            broker.close();
            java.nio.file.Files.writeString(Path.of("target/hung-provider-broker.log"), broker.output());
        }
        if (stubs != null) stubs.close();
    }

    @Test
    void aHungProviderWhoseWsdlAnswersStaysOutUntilItsTrialCallIsAnswered() throws Exception {
        Waits.until("an optimizer's plan that calls a weather service on its own or first", 120,
                () -> weatherCalledFirst() != null, () -> broker.output());
        // on a busy machine the WS Monitor may find every stub down at the start, and back up soon
        Waits.until("every service up and in selection", 120,
                () -> get("/health").path("adaptation").path("ejected").isEmpty() && get("/health").path("adaptation").path("down").isEmpty(), () -> broker.output());
        String hung = weatherCalledFirst();
        stubs.set(hung, "{\"latencyMs\":3600000,\"distribution\":\"fixed\"}"); // accepts calls, answers none; its WSDL answers
        Waits.until(hung + " ejected", 120,
                () -> get("/health").path("adaptation").path("ejected").toString().contains("\"" + hung + "\""), () -> broker.output());
        long atEjection = stubs.counter(hung, "requests");
        long probesAtEjection = stubs.counter(hung, "wsdlRequests");
        long start = System.nanoTime();
        int done = load.done();
        // a bounded run: 20 s and 40 composite requests, far more than the WS Monitor's period
        Waits.until("20 s and 40 requests", 300, () -> seconds(start) >= 20 && load.done() >= done + 40, () -> broker.output());
        double elapsed = seconds(start);
        long calls = stubs.counter(hung, "requests") - atEjection;
        // ejected by its stalled calls or by three timeouts in a row, whichever came first
        String ejected = "concrete service " + hung + " ejected from selection: ";
        String log = broker.output();
        log = log.substring(Math.max(0, log.indexOf(ejected)));
        assertTrue(stubs.counter(hung, "wsdlRequests") - probesAtEjection >= 10, "the WS Monitor kept probing its WSDL, which answers");
        assertEquals(1, count(log, ejected), "ejected once");
        assertEquals(0, count(log, "concrete service " + hung + " back in selection"), "the probe never brought it back");
        // trial k is due no earlier than 2^k - 1 s after the ejection; one call may have been on its way at the ejection
        int trialsDue = (int) Math.floor(Math.log(elapsed + 1) / Math.log(2));
        assertTrue(calls <= 1 + trialsDue, calls + " calls reached " + hung + " in " + Math.round(elapsed) + " s after its ejection: more than the "
                + trialsDue + " trials its back-off allows");
        assertTrue(calls >= 1, "it got trial calls");

        stubs.set(hung, "{\"latencyMs\":10,\"distribution\":\"fixed\"}");
        Waits.until(hung + " back after its trial call", 120,
                () -> broker.output().contains("concrete service " + hung + " back in selection: its trial call was answered"), () -> broker.output());
        Waits.until("a new plan that may use it again", 60,
                () -> reasons().stream().anyMatch(r -> r.contains(hung + " back in selection")), () -> broker.output());
    }

    /** A weather service the plan calls on its own or first in an alternate (a hung member of a par is cancelled, of a hedge waited for only until d). */
    static String weatherCalledFirst() throws Exception {
        JsonNode plan = get("/admin/plan");
        if (plan.path("version").asLong() < 2) return null;
        for (JsonNode b : plan.path("bindings"))
            if (b.path("task").asText().equals("weather.getForecast") && b.path("class").asText().equals("gold"))
                for (JsonNode s : b.path("shares")) {
                    String impl = s.path("implementation").asText();
                    if (s.path("fraction").asDouble() < 0.9 || impl.startsWith("par(") || impl.startsWith("hedge(")) continue;
                    return impl.startsWith("alt(") ? impl.substring(4, impl.indexOf(',')) : impl;
                }
        return null;
    }

    static List<String> reasons() throws Exception {
        List<String> reasons = new ArrayList<>();
        for (JsonNode p : get("/admin/plans?n=50")) reasons.add(p.path("reason").asText());
        return reasons;
    }

    static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) n++;
        return n;
    }

    static JsonNode get(String path) throws Exception {
        return JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", OPERATOR).build(),
                HttpResponse.BodyHandlers.ofString()).body());
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }
}
