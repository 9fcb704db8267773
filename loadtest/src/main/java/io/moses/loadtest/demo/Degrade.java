package io.moses.loadtest.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.loadtest.driver.LoadResult;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
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

    /** Runs both halves; returns the second half's result. */
    static LoadResult run(int clients, int requests, String broker, int stubPort, Consumer<String> say) throws Exception {
        Map<String, JsonNode> classes = new LinkedHashMap<>();
        for (JsonNode k : JSON.readTree(Demo.fetch(broker + "/admin/classes"))) classes.put(k.path("name").asText(), k);
        say.accept("demo: first half, every provider as configured");
        LoadResult first = TripLoad.run(broker, clients, requests / 2, null, p -> say.accept(p.toString()));
        System.out.println(first.report());
        JsonNode before = JSON.readTree(Demo.fetch(broker + "/admin/plan"));
        // the victims are services the plan in force relies on, so the change matters
        String slowed = firstUsed(before, "flight.findFlight");
        String down = firstUsed(before, "hotel.findHotel");
        say.accept("demo: " + slowed + " becomes slow (300 ms) and " + down + " goes down");
        stub(stubPort, slowed, "{\"latencyMs\":300,\"distribution\":\"fixed\"}");
        stub(stubPort, down, "{\"up\":false}");
        say.accept("demo: second half");
        LoadResult second = TripLoad.run(broker, clients, requests - requests / 2, null, p -> say.accept(p.toString()));
        System.out.println(second.report());
        JsonNode after = JSON.readTree(Demo.fetch(broker + "/admin/plan"));
        stub(stubPort, slowed, "{\"latencyMs\":40,\"distribution\":\"fixed\"}");
        stub(stubPort, down, "{\"up\":true}");
        adapted = !uses(after, down);
        System.out.println();
        System.out.println("plan before the change:");
        System.out.println(plan(before));
        System.out.println("plan at the end (" + (after.path("version").asLong() - before.path("version").asLong())
                + " new plan(s) since):");
        System.out.println(plan(after));
        System.out.println("SLA compliance per class (mean response time against R_max, share of successful requests against A_min):");
        System.out.printf("  %-8s %-40s %-40s%n", "class", "first half", "second half");
        for (var k : classes.entrySet())
            System.out.printf("  %-8s %-40s %-40s%n", k.getKey(), compliance(first, k.getKey(), k.getValue()),
                    compliance(second, k.getKey(), k.getValue()));
        return second;
    }

    private static String compliance(LoadResult r, String cls, JsonNode sla) {
        double sum = 0;
        long n = 0;
        long errors = 0;
        for (String[] u : Demo.USERS) {
            if (!u[2].equals(cls)) continue;
            LoadResult.UserStats s = r.perUser().get(u[0]);
            if (s == null) continue;
            if (s.latency().samples() > 0) sum += s.latency().meanMs() * s.latency().samples();
            n += s.requests();
            errors += s.errors();
        }
        if (n == 0) return "no requests";
        double meanS = n == errors ? Double.NaN : sum / (n - errors) / 1000;
        double availability = (n - errors) / (double) n;
        boolean ok = meanS <= sla.path("maxResponseTime").asDouble() && availability >= sla.path("minAvailability").asDouble();
        return String.format("R %.3f s, A %.4f: %s", meanS, availability, ok ? "kept" : "BROKEN");
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

    private static void stub(int port, String service, String json) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/admin/services/" + service))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) throw new IllegalStateException("stub admin: " + r.body());
    }

}
