package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker adapts by itself (docs/model.md, "What triggers a new plan"): real stubs and broker processes under a
 * steady background load; a stub is slowed, one goes down and comes back, the request mix
 * changes; the monitors notice and the optimizer's new plans move the traffic.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("e2e")
class FeedbackLoopTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final ObjectMapper JSON = new ObjectMapper();
    static StubServices stubs;
    static ChildProcess broker;
    static String base;
    static final AtomicBoolean needsCar = new AtomicBoolean(true);
    static SteadyLoad load;
    @TempDir static Path work;

    @BeforeAll
    static void start() throws Exception {
        stubs = new StubServices();
        for (String t : TripPlannerEndToEndTest.TASKS) {
            stubs.set(t + "-a", "{\"latencyMs\":10,\"distribution\":\"fixed\"}");
            stubs.set(t + "-b", "{\"latencyMs\":10,\"distribution\":\"fixed\"}");
        }
        broker = stubs.broker(work, "--deploy", "../bpel-processes/trip-planner", "--seed", "../bpel-processes/trip-planner/seed.yaml",
                "--monitor-period", "500", "--probe-period", "500", "--hold", "1000");
        // 300 s only bounds a hang: a broker on a shared machine under load once took over 90 s to start
        base = "http://127.0.0.1:" + Integer.parseInt(broker.await(BrokerProcessTest.LISTENING, 300));
        load = new SteadyLoad(new String[][] {{"alice", "alice-demo"}, {"bob", "bob-demo"}, {"carl", "carl-demo"}, {"cleo", "cleo-demo"}},
                (user, password) -> TripPlannerEndToEndTest.planTrip(user, password, needsCar.get(), 1, base));
        // the tests start from a plan of the optimizer, with the flight service it calls first
        // observed (the one the first test slows down). (It waited for a re-plan because a flight
        // service answered faster than its promise: on a loaded machine the 10 ms stubs read as
        // slow as the seed's promises, and none came. Then for both flight services observed: a
        // service no plan calls is never observed, and when the first plans sent no request to
        // flight-a, in the first seconds while the users' first logins were being hashed, none came.)
        Waits.until("an optimizer's plan and the flight service it calls first observed", 120,
                () -> get("/admin/plan").path("version").asLong() >= 2 && observedSamples(flightCalledFirst()) > 0, () -> broker.output());
    }

    static long observedSamples(String service) throws Exception {
        for (JsonNode s : get("/admin/concrete-services"))
            if (s.path("name").asText().equals(service)) return s.path("observed").path("samples").asLong();
        return 0;
    }

    @AfterAll
    static void stop() throws Exception {
        if (load != null) load.close();
        if (broker != null) {
            broker.close();
            java.nio.file.Files.writeString(Path.of("target/feedback-loop-broker.log"), broker.output());
        }
        if (stubs != null) stubs.close();
    }

    /** The trip planner seed's operator: the admin API requires one. */
    static final String OPERATOR = "Basic " + java.util.Base64.getEncoder().encodeToString("operator:operator-demo".getBytes());

    static JsonNode get(String path) throws Exception {
        return JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", OPERATOR).build(),
                HttpResponse.BodyHandlers.ofString()).body());
    }

    /** Calls of one concrete service so far, every outcome, from the broker's metrics. */
    static long calls(String service) throws Exception {
        String metrics = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
        Matcher m = Pattern.compile("^moses_concrete_invokes_seconds_count\\{[^}]*service=\"" + Pattern.quote(service) + "\"[^}]*\\} ([0-9.E]+)",
                Pattern.MULTILINE).matcher(metrics);
        long n = 0;
        while (m.find()) n += (long) Double.parseDouble(m.group(1));
        return n;
    }

    static boolean planMentions(String service) throws Exception {
        for (JsonNode b : get("/admin/plan").path("bindings"))
            for (JsonNode s : b.path("shares"))
                if (s.path("fraction").asDouble() > 1e-9 && s.path("implementation").asText().matches(".*\\b" + service + "\\b.*"))
                    return true;
        return false;
    }

    /** The reasons of the last 50 plans, newest first. */
    static List<String> reasons() throws Exception {
        List<String> reasons = new ArrayList<>();
        for (JsonNode p : get("/admin/plans?n=50")) reasons.add(p.path("reason").asText());
        return reasons;
    }

    /** Flight calls of {@code slow} and {@code other} while the next {@code n} flight calls are made. */
    static long[] nextFlightCalls(String slow, String other, int n, long seconds) throws Exception {
        long s0 = calls(slow);
        long o0 = calls(other);
        Waits.until(n + " flight calls", seconds, () -> calls(slow) - s0 + calls(other) - o0 >= n, () -> broker.output());
        return new long[] {calls(slow) - s0, calls(other) - o0};
    }

    /**
     * A flight service the plan calls on its own or first in an alternate or a hedge (a slow member
     * of a 1-out-of-n set is masked: its calls are cancelled, so nobody waits for it).
     */
    static String flightCalledFirst() throws Exception {
        for (JsonNode b : get("/admin/plan").path("bindings"))
            if (b.path("task").asText().equals("flight.findFlight"))
                for (JsonNode s : b.path("shares")) {
                    String impl = s.path("implementation").asText();
                    if (s.path("fraction").asDouble() < 0.2 || impl.startsWith("par(")) continue;
                    // an alternate's or a hedge's first member is called first, and waited for (a hedge's up to its d)
                    return impl.startsWith("alt(") || impl.startsWith("hedge(") ? impl.substring(impl.indexOf('(') + 1, impl.indexOf(',')) : impl;
                }
        throw new AssertionError("no flight service is called on its own: " + get("/admin/plan"));
    }

    @Test
    @Order(1)
    void aSlowedServiceLosesItsTraffic() throws Exception {
        String slow = flightCalledFirst();
        String other = slow.equals("flight-a") ? "flight-b" : "flight-a";
        // 3 s, half of bronze's R_max: no class keeps it. At 1 s bronze (6 s of budget, cost-minded)
        // may rightly keep alt(slow, other): the alternate's availability and the cheaper provider
        // outweigh one second of its budget in the utility (docs/model.md), and one run of this
        // test saw a quarter of the flight calls stay on the slowed service
        stubs.set(slow, "{\"latencyMs\":3000,\"distribution\":\"fixed\"}");
        long ms = Waits.until("a new plan because " + slow + " slowed down", 90,
                () -> get("/health").path("adaptation").path("lastChange").asText().contains(slow), () -> broker.output());
        // the observed response time climbs as slow replies arrive; the plans follow it: windows of
        // 40 flight calls each, until one gives the slow service less than a fifth (at most 10
        // windows; a window's deadline only bounds a hang)
        long s = 0, o = 0;
        for (int window = 0; window < 10; window++) {
            long[] w = nextFlightCalls(slow, other, 40, 60);
            s = w[0];
            o = w[1];
            if (o > 0 && s < 0.2 * (s + o)) break;
        }
        assertTrue(o > 0, other + " carries the traffic; plan " + get("/admin/plan") + " errors " + load.errors.get());
        assertTrue(s < 0.2 * (s + o), slow + " got " + s + " of " + (s + o) + " flight calls in the last window (" + ms + " ms to the first re-plan); plan "
                + get("/admin/plan") + "; services " + get("/admin/concrete-services"));
        // the drift rule's reason, or the stall watch's: 3 s from 10 ms leaves its first calls unanswered past the stall time
        assertTrue(reasons().stream().anyMatch(r -> r.contains(slow) && (r.contains("response time") || r.contains("unanswered"))),
                reasons().toString());
        stubs.set(slow, "{\"latencyMs\":10,\"distribution\":\"fixed\"}");
    }

    @Test
    @Order(2)
    void aServiceThatGoesDownLeavesThePlanAndReturnsWhenBackUp() throws Exception {
        Waits.until("hotel-b in the plan before the test", 90, () -> planMentions("hotel-b"), () -> broker.output());
        int errorsBefore = load.errors.get();
        stubs.set("hotel-b", "{\"up\":false}");
        // ejected after consecutive failures on the request path, or a refused probe; and a solve
        // (the 10 s only bounds a hang: the time it takes is measured by bench-adaptation.sh)
        Waits.until("hotel-b leaves the plan", 10, () -> !planMentions("hotel-b"), () -> broker.output());
        JsonNode adaptation = get("/health").path("adaptation");
        assertTrue(adaptation.path("down").toString().contains("hotel-b") || adaptation.path("ejected").toString().contains("hotel-b"),
                adaptation.toString());
        int errorsAfterPlan = load.errors.get();
        int done = load.successes.get() + errorsAfterPlan;
        Waits.until("40 requests with hotel-b out of the plan", 120, () -> load.done() >= done + 40, () -> broker.output());
        assertEquals(errorsAfterPlan, load.errors.get(), "no errors once the plan avoids hotel-b");
        assertTrue(reasons().stream().anyMatch(r -> r.contains("hotel-b is down") || r.contains("hotel-b ejected")), reasons().toString());
        System.out.println("errors while hotel-b was down and still in the plan: " + (errorsAfterPlan - errorsBefore));
        stubs.set("hotel-b", "{\"up\":true}");
        Waits.until("hotel-b back up", 10,
                () -> !get("/health").path("adaptation").path("down").toString().contains("hotel-b"), () -> broker.output());
        Waits.until("a new plan with hotel-b a candidate again", 10,
                () -> get("/admin/plans?n=5").toString().contains("hotel-b is back up"), () -> broker.output());
    }

    @Test
    @Order(3)
    void theVisitsFollowTheRequestMix() throws Exception {
        long planBefore = get("/admin/plan").path("version").asLong();
        needsCar.set(false); // car.rentCar is no longer visited
        Waits.until("a new plan because the visits changed", 30,
                () -> get("/health").path("adaptation").path("lastChange").asText().contains("visits of"), () -> broker.output());
        assertTrue(get("/admin/plan").path("version").asLong() > planBefore);
        needsCar.set(true);
    }

    @Test
    @Order(4)
    void theHistoryShowsEveryPlanWithItsReasonNewestFirst() throws Exception {
        // on its own too: start() waited for a plan after the broker's start
        JsonNode history = get("/admin/plans?n=50");
        assertTrue(history.size() >= 2, history.toString());
        long previous = Long.MAX_VALUE;
        for (JsonNode p : history) {
            assertFalse(p.path("reason").asText().isEmpty(), p.toString());
            assertTrue(p.path("version").asLong() < previous, "newest first: " + history);
            previous = p.path("version").asLong();
        }
    }
}
