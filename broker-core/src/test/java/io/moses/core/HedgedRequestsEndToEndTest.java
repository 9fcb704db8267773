package io.moses.core;

import static io.moses.core.TripPlannerEndToEndTest.HTTP;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.testing.Waits;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hedged requests end to end (docs/model.md, "Hedged requests"): the stub services and a broker
 * with the trip planner's seed as real processes, gold's weather bound to
 * hedge(weather-a,weather-b;d=0.15), calls counted at the stubs.
 */
@Tag("e2e")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class) // the hang ejects weather-a: it goes last
class HedgedRequestsEndToEndTest {
    static final double DELAY = 0.15;
    static final ObjectMapper JSON = new ObjectMapper();
    static StubServices stubs;
    static ChildProcess broker;
    static int brokerPort;
    @TempDir static Path work;

    @BeforeAll
    static void start() throws Exception {
        String seed = Files.readString(Path.of("../bpel-processes/trip-planner/seed.yaml"));
        String gold = "{class: gold, task: weather.getForecast, shares: [{implementation: \"par(weather-a,weather-b)\", fraction: 1.0}]}";
        assertTrue(seed.contains(gold), "the trip planner's seed binds gold's weather to par");
        Path hedged = work.resolve("seed.yaml");
        Files.writeString(hedged, seed.replace(gold, gold.replace("par(weather-a,weather-b)", "hedge(weather-a,weather-b;d=" + DELAY + ")")));
        stubs = new StubServices();
        // the seed's plan, no optimizer and no monitors: what is tested is the request path alone
        broker = stubs.broker(work.resolve("broker"), "--deploy", "../bpel-processes/trip-planner", "--seed", hedged.toString(),
                "--monitors", "none", "--optimizer", "off", "--invoke-timeout", "2000");
        brokerPort = Integer.parseInt(broker.await(BrokerProcessTest.LISTENING, 90));
        HttpResponse<String> plan = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + brokerPort + "/admin/plan"))
                .header("Authorization", "Basic " + java.util.Base64.getEncoder().encodeToString("operator:operator-demo".getBytes()))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertTrue(plan.body().contains("hedge(weather-a,weather-b;d=" + DELAY + ")"), "the plan in force shows the hedge: " + plan.body());
        for (int i = 0; i < 3; i++) planTrip(); // warm up
    }

    @AfterAll
    static void stop() throws Exception {
        if (broker != null) broker.close();
        if (stubs != null) stubs.close();
    }

    static HttpResponse<String> planTrip() throws Exception {
        return TripPlannerEndToEndTest.planTrip("alice", "alice-demo", true, 1, "http://127.0.0.1:" + brokerPort);
    }

    /** n trips as alice over a few clients; the replies of those that failed, and how many weather-b answered. */
    static List<String> trips(int n, int clients, int[] byB) throws Exception {
        List<String> failed = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<Boolean>> done = new ArrayList<>();
            for (int i = 0; i < n; i++)
                done.add(pool.submit(() -> {
                    HttpResponse<String> r = planTrip();
                    if (r.statusCode() != 200) failed.add(r.statusCode() + " " + r.body());
                    return r.body().contains("by weather-b");
                }));
            for (Future<Boolean> f : done) if (f.get(120, TimeUnit.SECONDS)) byB[0]++;
        } finally {
            pool.shutdownNow();
        }
        return failed;
    }

    @Test
    @Order(1)
    void theSecondProviderIsCalledOnlyForTheFirstOnesSlowFraction() throws Exception {
        // weather-a: a heavy tail (lognormal, mean 50 ms, sigma 1.5: about 7 % of its calls take over 150 ms)
        try {
            stubs.set("weather-a", "{\"latencyMs\":50,\"distribution\":\"lognormal\",\"sigma\":1.5}");
            stubs.set("weather-b", "{\"latencyMs\":20,\"distribution\":\"fixed\"}");
            long aBefore = stubs.requests("weather-a"), bBefore = stubs.requests("weather-b");
            int n = 150;
            int[] byB = {0};
            List<String> failed = trips(n, 4, byB);
            assertEquals(List.of(), failed, "no composite request fails");
            long a = stubs.requests("weather-a") - aBefore, b = stubs.requests("weather-b") - bBefore;
            System.out.printf("hedge(weather-a,weather-b;d=%s): %d requests, weather-a called %d times, weather-b %d (%d of its replies won)%n",
                    DELAY, n, a, b, byB[0]);
            assertEquals(n, a, "weather-a is called once per request");
            // par would call weather-b for every request; the hedge only when weather-a is slow
            assertTrue(b >= 1 && b <= 0.35 * n, "weather-b called " + b + " times for " + n + " requests");
            assertTrue(byB[0] <= b, byB[0] + " replies by weather-b, " + b + " calls");
        } finally {
            stubs.reset();
        }
    }

    @Test
    @Order(2)
    void aFirstProviderThatHangsFailsNoCompositeRequest() throws Exception {
        // weather-a accepts every request and never answers within the invoke timeout
        try {
            stubs.set("weather-a", "{\"latencyMs\":600000,\"distribution\":\"fixed\"}");
            long bBefore = stubs.requests("weather-b");
            int n = 12;
            int[] byB = {0};
            List<String> failed = trips(n, 2, byB);
            assertEquals(List.of(), failed, "no composite request fails");
            assertEquals(n, byB[0], "weather-b answered every request");
            assertEquals(n, stubs.requests("weather-b") - bBefore, "weather-b is called once per request");
            // the hedge does not cancel weather-a's calls: they time out behind it, and three eject it
            AtomicReference<String> seen = new AtomicReference<>("");
            Waits.within(60, () -> {
                seen.set(JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + brokerPort + "/health")).build(),
                        HttpResponse.BodyHandlers.ofString()).body()).path("adaptation").path("ejected").toString());
                return seen.get().contains("\"weather-a\"");
            });
            String ejected = seen.get();
            assertTrue(ejected.contains("\"weather-a\""), "weather-a ejected: " + ejected);
        } finally {
            stubs.reset();
        }
    }
}
