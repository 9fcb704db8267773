package io.moses.core;

import static io.moses.core.TripPlannerEndToEndTest.HTTP;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whether a second call is safe, end to end (docs/model.md, "Idempotent tasks"): the stub
 * services and a broker with the trip planner's seed as real processes, calls counted at the
 * stubs. The seed's bookings and payment are not idempotent, its searches are.
 */
@Tag("e2e")
class IdempotentTasksEndToEndTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static ChildProcess stubs;
    static ChildProcess broker;
    static int stubPort;
    static int brokerPort;
    @TempDir static Path work;

    @BeforeAll
    static void start() throws Exception {
        stubs = new ChildProcess("io.moses.loadtest.stubs.StubServer", List.of("--port", "0"));
        stubPort = Integer.parseInt(stubs.await(Pattern.compile("stubs listening on http://[^:]+:(\\d+)"), 60));
        // the seed's plan, no optimizer and no monitors: what is tested is the request path alone
        broker = new ChildProcess("io.moses.core.Main", List.of("--port", "0", "--work", work.toString(),
                "--deploy", "../bpel-processes/trip-planner", "--seed", "../bpel-processes/trip-planner/seed.yaml",
                "--set", "STUBS=http://127.0.0.1:" + stubPort, "--monitors", "none", "--optimizer", "off",
                "--invoke-timeout", "2000"));
        brokerPort = Integer.parseInt(broker.await(BrokerProcessTest.LISTENING, 90));
        for (int i = 0; i < 3; i++) planTrip("alice", "alice-demo"); // warm up
    }

    @AfterAll
    static void stop() throws Exception {
        if (broker != null) broker.close();
        if (stubs != null) stubs.close();
    }

    static HttpResponse<String> planTrip(String user, String password) throws Exception {
        return TripPlannerEndToEndTest.planTrip(user, password, true, 1, "http://127.0.0.1:" + brokerPort);
    }

    static void setStub(String service, String json) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + stubPort + "/admin/services/" + service))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
    }

    static void resetStubs() throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + stubPort + "/admin/reset"))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
    }

    /** SOAP requests that reached the stub so far (replied, failed, or still waiting out their latency). */
    static long requests(String service) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + stubPort + "/admin/services/" + service))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return JSON.readTree(r.body()).path("requests").asLong();
    }

    @Test
    void aTaskThatIsNotIdempotentIsCalledOnceForEachInvokeUnderATimeoutADropAnd503s() throws Exception {
        // gold's plan for car, attraction and payment: alt(x-a, x-b); each -a fails its own way,
        // twice only (three failures in a row would eject it, and the alternate would skip it)
        record Case(String task, String failing, String spare, String stub) {}
        List<Case> cases = List.of(
                new Case("payment", "payment-a", "payment-b", "{\"latencyMs\":600000,\"distribution\":\"fixed\"}"), // hangs past the timeout
                new Case("car", "car-a", "car-b", "{\"failureProbability\":1.0,\"failureKind\":\"drop\"}"),
                new Case("attraction", "attraction-a", "attraction-b", "{\"up\":false}")); // 503 with a SOAP fault
        try {
            for (Case c : cases) {
                setStub(c.failing(), c.stub());
                long failingBefore = requests(c.failing()), spareBefore = requests(c.spare());
                List<Integer> statuses = new ArrayList<>();
                for (int i = 0; i < 2; i++) statuses.add(planTrip("alice", "alice-demo").statusCode());
                assertEquals(2, requests(c.failing()) - failingBefore, c + ": each request called " + c.failing() + " once");
                assertEquals(0, requests(c.spare()) - spareBefore,
                        c + ": a call that may have been processed is not sent to " + c.spare() + " (statuses " + statuses + ")");
                assertEquals(List.of(500, 500), statuses, c + ": the failure reaches the user as a fault");
                setStub(c.failing(), "{\"up\":true,\"failureProbability\":0.0,\"latencyMs\":0}");
            }
        } finally {
            resetStubs();
        }
    }

    @Test
    void anIdempotentTaskUnderAProviderThatHangsFailsNoCompositeRequest() throws Exception {
        // bronze's plan for weather: weather-b alone for half the requests, alt(weather-a,weather-b)
        // for the other half; weather-b accepts every request and never answers in time
        try {
            setStub("weather-b", "{\"latencyMs\":600000,\"distribution\":\"fixed\"}");
            long hungBefore = requests("weather-b");
            List<String> failed = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                HttpResponse<String> r = planTrip("carl", "carl-demo");
                if (r.statusCode() != 200) failed.add(r.statusCode() + " " + r.body());
            }
            assertEquals(List.of(), failed, "no composite request fails");
            long hung = requests("weather-b") - hungBefore;
            // the plan sent some requests to the hung provider (then ejected it after three in a row)
            assertEquals(true, hung >= 1, "weather-b was called " + hung + " times");
        } finally {
            resetStubs();
        }
    }
}
