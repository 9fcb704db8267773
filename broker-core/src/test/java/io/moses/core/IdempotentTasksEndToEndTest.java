package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
 * Whether a second call is safe, end to end (docs/model.md, "Idempotent tasks"): the stub
 * services and a broker with the trip planner's seed as real processes, calls counted at the
 * stubs. The seed's bookings and payment are not idempotent, its searches are.
 */
@Tag("e2e")
class IdempotentTasksEndToEndTest {
    static StubServices stubs;
    static ChildProcess broker;
    static int brokerPort;
    @TempDir static Path work;

    @BeforeAll
    static void start() throws Exception {
        stubs = new StubServices();
        // the seed's plan, no optimizer and no monitors: what is tested is the request path alone
        broker = stubs.broker(work, "--deploy", "../bpel-processes/trip-planner", "--seed", "../bpel-processes/trip-planner/seed.yaml",
                "--monitors", "none", "--optimizer", "off", "--invoke-timeout", "2000");
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
                stubs.set(c.failing(), c.stub());
                long failingBefore = stubs.requests(c.failing()), spareBefore = stubs.requests(c.spare());
                List<Integer> statuses = new ArrayList<>();
                for (int i = 0; i < 2; i++) statuses.add(planTrip("alice", "alice-demo").statusCode());
                assertEquals(2, stubs.requests(c.failing()) - failingBefore, c + ": each request called " + c.failing() + " once");
                assertEquals(0, stubs.requests(c.spare()) - spareBefore,
                        c + ": a call that may have been processed is not sent to " + c.spare() + " (statuses " + statuses + ")");
                assertEquals(List.of(500, 500), statuses, c + ": the failure reaches the user as a fault");
                stubs.set(c.failing(), "{\"up\":true,\"failureProbability\":0.0,\"latencyMs\":0}");
            }
        } finally {
            stubs.reset();
        }
    }

    @Test
    void anIdempotentTaskUnderAProviderThatHangsFailsNoCompositeRequest() throws Exception {
        // bronze's plan for weather: weather-b alone for half the requests, alt(weather-a,weather-b)
        // for the other half; weather-b accepts every request and never answers in time
        try {
            stubs.set("weather-b", "{\"latencyMs\":600000,\"distribution\":\"fixed\"}");
            long hungBefore = stubs.requests("weather-b");
            List<String> failed = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                HttpResponse<String> r = planTrip("carl", "carl-demo");
                if (r.statusCode() != 200) failed.add(r.statusCode() + " " + r.body());
            }
            assertEquals(List.of(), failed, "no composite request fails");
            long hung = stubs.requests("weather-b") - hungBefore;
            // the plan sent some requests to the hung provider (then ejected it after three in a row)
            assertEquals(true, hung >= 1, "weather-b was called " + hung + " times");
        } finally {
            stubs.reset();
        }
    }
}
