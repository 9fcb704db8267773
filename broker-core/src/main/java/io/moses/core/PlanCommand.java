package io.moses.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** {@code moses plan [--broker URL] [--json] [--history [N]]}: the plan of a running broker. */
public final class PlanCommand {
    private PlanCommand() {}

    public static void main(String[] args) {
        String broker = "http://127.0.0.1:8080";
        boolean json = false;
        int history = 0;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--broker" -> {
                    if (++i >= args.length) fail("--broker needs a URL");
                    broker = args[i];
                }
                case "--json" -> json = true;
                case "--history" -> history = i + 1 < args.length && args[i + 1].matches("\\d+") ? Integer.parseInt(args[++i]) : 10;
                default -> fail("unknown option " + args[i] + "\nusage: moses plan [--broker URL] [--json] [--history [N]]");
            }
        }
        String path = history > 0 ? "/admin/plans?n=" + history : "/admin/plan";
        String body;
        try {
            HttpResponse<String> r = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build().send(
                    HttpRequest.newBuilder(URI.create(broker.replaceAll("/+$", "") + path)).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) fail("broker answered HTTP " + r.statusCode() + ": " + r.body());
            body = r.body();
        } catch (Exception e) {
            fail("cannot reach the broker at " + broker + ": " + e);
            return;
        }
        if (json) {
            System.out.println(body);
            return;
        }
        try {
            JsonNode node = new ObjectMapper().readTree(body);
            if (node.isArray()) for (JsonNode p : node) System.out.println(table(p));
            else System.out.println(table(node));
        } catch (Exception e) {
            fail("unreadable answer: " + e.getMessage());
        }
    }

    static String table(JsonNode p) {
        StringBuilder out = new StringBuilder();
        if (p.path("version").asLong() == 0) return "no plan yet (every task bound to its first concrete service)";
        out.append(String.format("plan %d  %s  solver %s  objective %.4f  solved in %.1f ms%n  reason: %s%n",
                p.path("version").asLong(), p.path("created").asText(), p.path("solver").asText(),
                p.path("objective").asDouble(), p.path("solveMillis").asDouble(), p.path("reason").asText()));
        if (p.path("predictions").size() > 0) {
            out.append(String.format("  %-12s %10s %12s %10s%n", "class", "R [s]", "A", "C"));
            p.path("predictions").fields().forEachRemaining(e -> out.append(String.format("  %-12s %10.4f %12.6f %10.4f%n",
                    e.getKey(), e.getValue().path("responseTime").asDouble(), e.getValue().path("availability").asDouble(),
                    e.getValue().path("cost").asDouble())));
        }
        for (JsonNode r : p.path("atRisk"))
            out.append(String.format("  AT RISK %s: R +%.4f s, A -%.6f, C +%.4f (%s)%n", r.path("class").asText(),
                    r.path("responseTimeExcess").asDouble(), r.path("availabilityShortfall").asDouble(),
                    r.path("costExcess").asDouble(), r.path("breaksSla").asBoolean() ? "breaks the SLA" : "within the margin only"));
        out.append(String.format("  %-10s %-28s %s%n", "class", "task", "implementation: fraction"));
        for (JsonNode b : p.path("bindings")) {
            StringBuilder shares = new StringBuilder();
            for (JsonNode s : b.path("shares"))
                shares.append(String.format("%s: %.3f  ", s.path("implementation").asText(), s.path("fraction").asDouble()));
            out.append(String.format("  %-10s %-28s %s%n", b.path("class").asText(),
                    b.path("composite").asText() + "/" + b.path("task").asText(), shares.toString().trim()));
        }
        return out.toString();
    }

    private static void fail(String message) {
        System.err.println("moses plan: " + message);
        System.exit(2);
    }
}
