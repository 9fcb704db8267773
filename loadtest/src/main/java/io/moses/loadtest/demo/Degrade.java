package io.moses.loadtest.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.loadtest.driver.LoadResult;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code moses demo --scenario degrade}: halfway through the workload one concrete service
 * becomes slow and another goes down. Prints the plan before and after, and each class's SLA
 * compliance in both halves, so the broker's adaptation shows.
 */
public final class Degrade {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Whether the plan at the end no longer used the service that went down. */
    static boolean adapted;

    private Degrade() {}

    /** The service the plan relies on most for a task (alone, or first of a group). */
    public static String firstUsed(JsonNode plan, String task) {
        for (JsonNode b : plan.path("bindings"))
            if (b.path("task").asText().equals(task))
                for (JsonNode s : b.path("shares"))
                    if (s.path("fraction").asDouble() > 0.2) {
                        String impl = s.path("implementation").asText();
                        return impl.contains("(") ? impl.substring(impl.indexOf('(') + 1, impl.indexOf(',')) : impl;
                    }
        throw new IllegalStateException("the plan binds no service to " + task);
    }

    /** Whether the plan binds any share to a group containing {@code service}. */
    public static boolean uses(JsonNode plan, String service) {
        for (JsonNode b : plan.path("bindings"))
            for (JsonNode s : b.path("shares"))
                if (s.path("fraction").asDouble() > 1e-9 && s.path("implementation").asText().matches(".*\\b" + service + "\\b.*"))
                    return true;
        return false;
    }

    /** How long after the change the broker may take to react before the SLA must hold again. */
    static final Duration REACTION_WINDOW = Duration.ofSeconds(2);

    /** Whether every class kept its SLA after the reaction window. */
    static boolean slasKept;

    /** A scenario's first half, every provider as configured: the classes' SLAs, its result, the plan in force at its end. */
    record FirstHalf(Map<String, JsonNode> classes, LoadResult result, JsonNode plan) {}

    /** Runs half of {@code requests} with every provider as configured; prints its report. */
    static FirstHalf firstHalf(int clients, int requests, String broker, Consumer<String> say) throws Exception {
        Map<String, JsonNode> classes = new LinkedHashMap<>();
        for (JsonNode k : JSON.readTree(Demo.fetch(broker + "/admin/classes"))) classes.put(k.path("name").asText(), k);
        say.accept("demo: first half, every provider as configured");
        LoadResult first = TripLoad.run(broker, clients, requests / 2, null, p -> say.accept(p.toString()));
        System.out.println(first.report());
        return new FirstHalf(classes, first, JSON.readTree(Demo.fetch(broker + "/admin/plan")));
    }

    /** Runs both halves; returns the second half's result. */
    static LoadResult run(int clients, int requests, String broker, int stubPort, Consumer<String> say) throws Exception {
        FirstHalf half = firstHalf(clients, requests, broker, say);
        Map<String, JsonNode> classes = half.classes();
        LoadResult first = half.result();
        JsonNode before = half.plan();
        // the victims are services the plan in force relies on, so the change matters
        String slowed = firstUsed(before, "flight.findFlight");
        String down = firstUsed(before, "hotel.findHotel");
        say.accept("demo: " + slowed + " becomes slow (300 ms) and " + down + " goes down");
        stub(stubPort, slowed, "{\"latencyMs\":300,\"distribution\":\"fixed\"}");
        stub(stubPort, down, "{\"up\":false}");
        say.accept("demo: second half: the first " + REACTION_WINDOW.toMillis() + " ms are the broker's reaction window");
        LoadResult window = TripLoad.run(broker, clients, 0, REACTION_WINDOW, null);
        long rest = Math.max(clients, requests - requests / 2 - window.requests());
        LoadResult after = TripLoad.run(broker, clients, rest, null, p -> say.accept(p.toString()));
        System.out.println(after.report());
        JsonNode afterPlan = JSON.readTree(Demo.fetch(broker + "/admin/plan"));
        JsonNode adaptation = JSON.readTree(Demo.fetch(broker + "/health")).path("adaptation");
        stub(stubPort, slowed, "{\"latencyMs\":40,\"distribution\":\"fixed\"}");
        stub(stubPort, down, "{\"up\":true}");
        adapted = !uses(afterPlan, down);
        System.out.println();
        System.out.println("plan before the change:");
        System.out.println(plan(before));
        System.out.println("plan at the end (" + (afterPlan.path("version").asLong() - before.path("version").asLong())
                + " new plan(s) since):");
        System.out.println(plan(afterPlan));
        System.out.println("SLA per class (mean response time against R_max, share of successful requests against A_min):");
        System.out.printf("  %-8s %-34s %-34s %-34s%n", "class", "first half", "second half (all)", "after the reaction window");
        boolean kept = true;
        for (var k : classes.entrySet()) {
            Compliance c = compliance(List.of(after), k.getKey(), k.getValue());
            kept &= c.kept();
            System.out.printf("  %-8s %-34s %-34s %-34s%n", k.getKey(), compliance(List.of(first), k.getKey(), k.getValue()),
                    compliance(List.of(window, after), k.getKey(), k.getValue()), c);
        }
        slasKept = kept;
        for (var k : classes.entrySet()) {
            Compliance c = compliance(List.of(window, after), k.getKey(), k.getValue());
            System.out.printf("verdict %-8s second half: %d of %d requests failed (%.2f %%), mean %.3f s (R_max %.3f s): %s%n", k.getKey(),
                    c.failed(), c.requests(), c.requests() == 0 ? 0 : 100.0 * c.failed() / c.requests(), c.meanSeconds(),
                    k.getValue().path("maxResponseTime").asDouble(),
                    compliance(List.of(after), k.getKey(), k.getValue()).kept() ? "SLA kept after the reaction window" : "SLA BROKEN after the reaction window");
        }
        System.out.printf("broker: %d calls that never reached their provider sent again to another one; ejected now %s, down now %s%n",
                adaptation.path("retries").asLong(), adaptation.path("ejected"), adaptation.path("down"));
        return after;
    }

    /** One class's requests in some load results, against its SLA. */
    record Compliance(long requests, long failed, double meanSeconds, boolean kept) {
        @Override
        public String toString() {
            if (requests == 0) return "no requests";
            return String.format("R %.3f s, A %.4f: %s", meanSeconds, (requests - failed) / (double) requests, kept ? "kept" : "BROKEN");
        }
    }

    static Compliance compliance(List<LoadResult> results, String cls, JsonNode sla) {
        double sum = 0;
        long n = 0;
        long errors = 0;
        long ok = 0;
        for (LoadResult r : results)
            for (String[] u : Demo.USERS) {
                if (!u[2].equals(cls)) continue;
                LoadResult.UserStats s = r.perUser().get(u[0]);
                if (s == null) continue;
                if (s.latency().samples() > 0) {
                    sum += s.latency().meanMs() * s.latency().samples();
                    ok += s.latency().samples();
                }
                n += s.requests();
                errors += s.errors();
            }
        double meanS = ok == 0 ? Double.NaN : sum / ok / 1000;
        double availability = n == 0 ? 1 : (n - errors) / (double) n;
        boolean kept = n == 0 || (meanS <= sla.path("maxResponseTime").asDouble() && availability >= sla.path("minAvailability").asDouble());
        return new Compliance(n, errors, meanS, kept);
    }

    private static String plan(JsonNode p) {
        StringBuilder out = new StringBuilder(String.format("  version %d (%s)%n", p.path("version").asLong(), p.path("reason").asText()));
        for (JsonNode b : p.path("bindings")) {
            StringBuilder shares = new StringBuilder();
            for (JsonNode s : b.path("shares"))
                if (s.path("fraction").asDouble() > 1e-6)
                    shares.append(String.format("%s %.2f  ", s.path("implementation").asText(), s.path("fraction").asDouble()));
            out.append(String.format("  %-7s %-26s %s%n", b.path("class").asText(), b.path("task").asText(), shares.toString().trim()));
        }
        return out.toString();
    }

    static void stub(int port, String service, String json) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/admin/services/" + service))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) throw new IllegalStateException("stub admin: " + r.body());
    }

}
