package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.moses.testing.Waits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proactive rule end to end (docs/model.md, "Forecasts"): the trip planner, the stubs and the
 * broker as real processes, {@code --monitors qos,ws,paths,forecast}. The flight provider the plan
 * relies on ramps its latency by 20 ms a monitor period (1 s) of the broker's; the broker predicts that the class will break
 * its SLA (a {@code PREDICTED_VIOLATION} event in /admin/events, naming the provider) and the plan
 * made on that prediction moves the class's flights away from it before the class breaks its SLA.
 *
 * <p>The seed is this test's own, so that what the program must do is certain: one class, gold
 * (R_max 1 s); requests without a car or attractions, so its R is the flight's (the slowest of the
 * flow) plus the payment's; every stub at a fixed 10 ms but both flight providers at 200 ms,
 * flight-a cheaper, so the first plan gives flight-a every flight. The ramp takes the plan's R
 * over R_max when flight-a passes about 990 ms, 40 periods into it. The drift rule's hold is an hour
 * (a drift of d times its threshold fires after hold / d: minutes, past this test), so the
 * reactive rules do not move the flights first.
 */
@Tag("e2e")
class ProactiveAdaptationEndToEndTest {
    static final int START_MS = 200, STEP_MS = 20, LAST_MS = 1400;
    /** The latency of flight-a at which the first plan takes gold over its R_max (see the class comment), less a margin. */
    static final int BREAKS_AT_MS = 900;
    static final String SEED = """
            composite: TripPlanner
            classes:
              - {name: gold, maxResponseTime: 1.0, minAvailability: 0.9, maxCost: 20.0, price: 30.0}
            users:
              - {name: alice, class: gold, rate: 30.0, password: alice-demo}
              - {name: operator, class: gold, rate: 0.0, password: operator-demo, role: operator}
            services:
              - {name: flight-a, task: flight.findFlight, endpoint: "${STUBS}/stubs/flight-a", responseTime: 0.2, availability: 0.999, cost: 0.5, maxRate: 200}
              - name: flight-b
                task: flight.findFlight
                endpoint: "${STUBS}/stubs/flight-b"
                responseTime: 0.2
                availability: 0.999
                cost: 3.0
                maxRate: 200
                mapping:
                  operation: searchFlights
                  soapAction: "urn:moses:provider-b:flight/searchFlights"
                  request:
                    "{urn:moses:task:flight}findFlightRequest": "{urn:moses:provider-b:flight}searchFlights"
                    "{urn:moses:task:flight}customer": "{urn:moses:provider-b:flight}client"
                    "{urn:moses:task:flight}*": "{urn:moses:provider-b:flight}*"
                  reply:
                    "{urn:moses:provider-b:flight}searchFlightsResponse": "{urn:moses:task:flight}findFlightResponse"
                    "{urn:moses:provider-b:flight}outcome": "{urn:moses:task:flight}result"
                    "{urn:moses:provider-b:flight}*": "{urn:moses:task:flight}*"
              - {name: hotel-a, task: hotel.findHotel, endpoint: "${STUBS}/stubs/hotel-a", responseTime: 0.01, availability: 0.999, cost: 0.5, maxRate: 200}
              - {name: weather-a, task: weather.getForecast, endpoint: "${STUBS}/stubs/weather-a", responseTime: 0.01, availability: 0.999, cost: 0.1, maxRate: 200}
              - {name: car-a, task: car.rentCar, endpoint: "${STUBS}/stubs/car-a", responseTime: 0.01, availability: 0.999, cost: 0.5, maxRate: 200}
              - {name: attraction-a, task: attraction.bookAttraction, endpoint: "${STUBS}/stubs/attraction-a", responseTime: 0.01, availability: 0.999, cost: 0.5, maxRate: 200}
              - {name: payment-a, task: payment.charge, endpoint: "${STUBS}/stubs/payment-a", responseTime: 0.01, availability: 0.999, cost: 0.5, maxRate: 200}
            """;
    static StubServices stubs;
    static ChildProcess broker;
    static String base;
    @TempDir static Path work;

    @BeforeAll
    static void start() throws Exception {
        stubs = new StubServices();
        for (String s : new String[] {"hotel-a", "weather-a", "car-a", "attraction-a", "payment-a"})
            stubs.set(s, "{\"latencyMs\":10,\"distribution\":\"fixed\"}");
        for (String s : new String[] {"flight-a", "flight-b"}) stubs.set(s, "{\"latencyMs\":" + START_MS + ",\"distribution\":\"fixed\"}");
        Path seed = work.resolve("seed.yaml");
        Files.writeString(seed, SEED);
        broker = stubs.broker(Files.createDirectories(work.resolve("broker")), "--deploy", "../bpel-processes/trip-planner", "--seed", seed.toString(),
                "--monitors", "qos,ws,paths,forecast", "--hold", "3600000");
        base = "http://127.0.0.1:" + broker.await(BrokerProcessTest.LISTENING, 90);
    }

    @AfterAll
    static void stop() throws Exception {
        if (broker != null) {
            broker.close();
            Files.writeString(Path.of("target/proactive-adaptation-broker.log"), broker.output());
        }
        if (stubs != null) stubs.close();
    }

    @Test
    @Timeout(300) // bounds a hang only
    void aRampingProviderIsPredictedAndPlannedAroundBeforeTheClassBreaksItsSla() throws Exception {
        String[][] users = new String[6][];
        java.util.Arrays.fill(users, new String[] {"alice", "alice-demo"});
        try (SteadyLoad load = new SteadyLoad(users, (u, p) -> TripPlannerEndToEndTest.planTrip(u, p, false, 0, base))) {
            // the first requests of a fresh broker are slow (classes loaded, code compiled): wait
            // for a plan the optimizer made on observed figures that gives flight-a every flight
            Waits.until("a plan that gives flight-a every flight, on its observed latency", 120,
                    () -> load.done() > 100 && share(plan(), "flight-a") > 0.99 && observed("flight-a") > 0.15, ProactiveAdaptationEndToEndTest::context);
            assertEquals(0, events("VIOLATION").size(), "gold kept its SLA before the ramp: " + events("VIOLATION"));

            // the ramp, one step a monitor period (1 s) of the broker's own: a slow machine slows
            // the ramp with the broker, so what is asserted is how many periods ahead it acted;
            // after each step, the plan in force
            int movedAtMs = -1;
            JsonNode moved = null;
            for (int ms = START_MS + STEP_MS; ms <= LAST_MS && moved == null; ms += STEP_MS) {
                long period = monitorPeriods();
                Waits.until("the broker's next monitor period", 60,
                        () -> monitorPeriods() > period, ProactiveAdaptationEndToEndTest::context);
                stubs.set("flight-a", "{\"latencyMs\":" + ms + ",\"distribution\":\"fixed\"}");
                JsonNode plan = plan();
                if (share(plan, "flight-a") < 0.99) {
                    moved = plan;
                    movedAtMs = ms;
                }
            }
            List<JsonNode> predicted = events("PREDICTED_VIOLATION");
            assertTrue(moved != null, "a plan moved gold's flights from flight-a by " + LAST_MS + " ms; events " + events(null) + "; plans " + plans());
            assertTrue(!predicted.isEmpty(), "a predicted violation: " + events(null));
            JsonNode p = predicted.get(predicted.size() - 1); // newest first: the first prediction
            assertEquals("gold", p.path("class").asText());
            assertTrue(p.path("detail").asText().contains("flight-a"), "the prediction names its driver: " + p);
            assertTrue(movedAtMs <= BREAKS_AT_MS, "the flights moved at " + movedAtMs + " ms, before gold would break its SLA (about "
                    + BREAKS_AT_MS + " ms); plans " + plans());
            assertTrue(reasons().stream().anyMatch(r -> r.contains("predicted to break its SLA")),
                    "a plan made on the prediction: " + plans());
            assertEquals(0, events("VIOLATION").size(), "gold had not broken its SLA when its flights moved: " + events("VIOLATION"));
            assertTrue(share(moved, "flight-b") > 0, "the flights went to flight-b: " + moved);
        }
    }

    /** What a wait that fails prints: the plan and the latest events. */
    static String context() {
        try {
            return "plan " + plan() + "; events " + events(null);
        } catch (Exception e) {
            return "the broker did not answer: " + e;
        }
    }

    /** The monitor periods the broker has run. */
    static long monitorPeriods() throws Exception {
        return AsyncMeasurementEndToEndTest.admin(base, "/admin/status").path("monitorPeriods").asLong();
    }

    static JsonNode plan() throws Exception {
        return AsyncMeasurementEndToEndTest.admin(base, "/admin/plan");
    }

    static List<String> plans() throws Exception {
        return reasons();
    }

    /** The reasons of the newest plans. */
    static List<String> reasons() throws Exception {
        List<String> out = new ArrayList<>();
        for (JsonNode p : AsyncMeasurementEndToEndTest.admin(base, "/admin/plans?n=20")) out.add(p.path("version").asText() + ": " + p.path("reason").asText());
        return out;
    }

    /** The SLA events of a kind (null: every kind), newest first. */
    static List<JsonNode> events(String kind) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e : AsyncMeasurementEndToEndTest.admin(base, "/admin/events?n=200"))
            if (kind == null || e.path("kind").asText().equals(kind)) out.add(e);
        return out;
    }

    /** flight-a's observed response time [s] (NaN before it is observed). */
    static double observed(String service) throws Exception {
        for (JsonNode s : AsyncMeasurementEndToEndTest.admin(base, "/admin/concrete-services"))
            if (s.path("name").asText().equals(service)) return s.path("observed").path("responseTime").asDouble(Double.NaN);
        return Double.NaN;
    }

    /** The fraction of gold's flights {@code plan} sends to {@code service} first (alone, or first of an alternate). */
    static double share(JsonNode plan, String service) {
        double share = 0;
        for (JsonNode b : plan.path("bindings"))
            if (b.path("class").asText().equals("gold") && b.path("task").asText().equals("flight.findFlight"))
                for (JsonNode s : b.path("shares")) {
                    String impl = s.path("implementation").asText();
                    String first = impl.contains("(") ? impl.substring(impl.indexOf('(') + 1, impl.contains(",") ? impl.indexOf(',') : impl.indexOf(')')) : impl;
                    if (first.equals(service)) share += s.path("fraction").asDouble();
                }
        return share;
    }
}
