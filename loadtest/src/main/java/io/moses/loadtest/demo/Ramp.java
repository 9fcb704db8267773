package io.moses.loadtest.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.loadtest.driver.LoadResult;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * {@code moses demo --scenario ramp}: after a first half as configured, the flight provider the
 * plan relies on most slows down steadily, its latency growing linearly from 250 ms to ten times
 * that over {@link #RAMP}. Prints the violations the broker predicted from its providers'
 * forecasts (docs/model.md, "Forecasts") and whether they came true, the plans made ahead of
 * time and why, and each class's SLA during the ramp.
 */
final class Ramp {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Long enough for a forecast: a trend needs its points, and a prediction looks ahead of them. */
    static final Duration RAMP = Duration.ofSeconds(90);
    /** From well within gold's R_max (1.5 s) to well past it: a plan that kept it would break the SLA. */
    static final int START_MS = 250, FACTOR = 10;
    /** flight-a's cost during the demo (the seed's is 1.2). */
    static final double ALTERNATIVE_COST = 4.0;

    /** Whether every class kept its SLA through the ramp. */
    static boolean slasKept;

    private Ramp() {}

    static LoadResult run(int clients, int requests, String broker, int stubPort, Consumer<String> say) throws Exception {
        // flight-a dearer: the plans keep gold on flight-b until its R_max binds, so that a ramp of
        // flight-b threatens the SLA instead of being left at its first step (bench-proactive.sh's run 2)
        Demo.put(broker + "/admin/services/flight-a", "{\"cost\":" + ALTERNATIVE_COST + "}");
        say.accept("demo: flight-a's cost raised to " + ALTERNATIVE_COST + ": the plans prefer flight-b while it keeps the SLAs");
        Degrade.FirstHalf half = Degrade.firstHalf(clients, requests, broker, say);
        Map<String, JsonNode> classes = half.classes();
        String ramped = Degrade.firstUsed(half.plan(), "flight.findFlight");
        say.accept("demo: " + ramped + " slows down steadily: " + START_MS + " ms to " + START_MS * FACTOR + " ms over "
                + RAMP.toSeconds() + " s (its latency set once a second)");
        Instant rampAt = Instant.now();
        AtomicBoolean ramping = new AtomicBoolean(true);
        Thread ramp = new Thread(() -> {
            long t0 = System.nanoTime();
            try {
                while (ramping.get()) {
                    double f = Math.min(1, (System.nanoTime() - t0) / (double) RAMP.toNanos());
                    Degrade.stub(stubPort, ramped, "{\"latencyMs\":" + Math.round(START_MS * (1 + (FACTOR - 1) * f)) + ",\"distribution\":\"fixed\"}");
                    if (f >= 1) return;
                    Thread.sleep(1000);
                }
            } catch (Exception e) {
                say.accept("demo: the ramp stopped: " + e.getMessage());
            }
        }, "ramp");
        ramp.setDaemon(true);
        ramp.start();
        LoadResult during;
        try {
            during = TripLoad.run(broker, clients, 0, RAMP, p -> say.accept(p.toString()));
        } finally {
            ramping.set(false);
            ramp.join(5000);
        }
        System.out.println(during.report());
        JsonNode after = JSON.readTree(Demo.fetch(broker + "/admin/plan"));
        Degrade.stub(stubPort, ramped, "{\"latencyMs\":" + START_MS + ",\"distribution\":\"fixed\"}");

        System.out.println();
        System.out.println("what the broker foresaw during the ramp (SLA events, /admin/events):");
        int predicted = 0;
        for (JsonNode e : JSON.readTree(Demo.fetch(broker + "/admin/events?n=200"))) {
            Instant at = Instant.parse(e.path("at").asText());
            String kind = e.path("kind").asText();
            if (at.isBefore(rampAt) || !List.of("PREDICTED_VIOLATION", "PREDICTION_MISSED", "VIOLATION").contains(kind)) continue;
            if (kind.equals("PREDICTED_VIOLATION")) predicted++;
            System.out.printf("  +%5.1f s  %-19s %-7s %s%n", Duration.between(rampAt, at).toMillis() / 1000.0, kind, e.path("class").asText(),
                    e.path("detail").asText());
        }
        if (predicted == 0) System.out.println("  no violation predicted");
        System.out.println("plans made during the ramp (/admin/plans), and why:");
        List<JsonNode> plans = new java.util.ArrayList<>();
        for (JsonNode p : JSON.readTree(Demo.fetch(broker + "/admin/plans?n=50")))
            if (!Instant.parse(p.path("created").asText()).isBefore(rampAt)) plans.add(0, p); // newest first: turned around
        for (JsonNode p : plans) {
            String why = p.path("reason").asText();
            System.out.printf("  +%5.1f s  plan %d: %s%n", Duration.between(rampAt, Instant.parse(p.path("created").asText())).toMillis() / 1000.0,
                    p.path("version").asLong(), why.length() > 160 ? why.substring(0, 157) + "..." : why);
        }
        System.out.println("plan at the end: " + (Degrade.uses(after, ramped) ? ramped + " still in use" : ramped + " no longer used"));
        boolean kept = true;
        for (var k : classes.entrySet()) {
            Degrade.Compliance c = Degrade.compliance(List.of(during), k.getKey(), k.getValue());
            kept &= c.kept();
            System.out.printf("verdict %-8s during the ramp: %d of %d requests failed, mean %.3f s (R_max %.3f s): %s%n", k.getKey(),
                    c.failed(), c.requests(), c.meanSeconds(), k.getValue().path("maxResponseTime").asDouble(),
                    c.kept() ? "SLA kept" : "SLA BROKEN");
        }
        slasKept = kept;
        return during;
    }
}
