package io.moses.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A what-if answer (POST /admin/what-if) for people: the plan in force and the plan after the
 * changes side by side per class and task, then each class's predicted R, A and C against its
 * SLA in both, the rate each class can still admit in both, and the classes at risk.
 */
final class WhatIfView {
    private WhatIfView() {}

    static String sideBySide(JsonNode a) {
        StringBuilder out = new StringBuilder();
        out.append("what if: ").append(String.join("; ", texts(a.get("changes")))).append('\n');
        out.append("optimizer: ").append(a.get("status").asText()).append(" (").append(a.get("message").asText()).append(")\n");
        out.append(String.format("objective: %s (plan %d in force) -> %s%n", number(a.get("objectiveBefore")),
                a.get("planInForce").asLong(), number(a.get("objectiveAfter"))));
        Map<String, String[]> rows = new TreeMap<>();
        bindings(a.get("inForce"), rows, 0);
        bindings(a.get("plan"), rows, 1);
        int w0 = "class/task".length(), w1 = "in force".length();
        for (var e : rows.entrySet()) {
            w0 = Math.max(w0, e.getKey().length());
            w1 = Math.max(w1, e.getValue()[0].length());
        }
        String row = "%-" + w0 + "s  %-" + w1 + "s  %s  %s%n";
        out.append('\n').append(String.format(row, "class/task", "in force", " ", "what if"));
        for (var e : rows.entrySet()) {
            String[] v = e.getValue();
            out.append(String.format(row, e.getKey(), v[0], v[0].equals(v[1]) ? " " : "*", v[1].isEmpty() ? "(not planned)" : v[1]));
        }
        out.append('\n').append(String.format("%-8s  %-34s  %-34s  %s%n", "class", "in force R / A / C", "what if R / A / C", "SLA (R max / A min / C max)"));
        for (JsonNode c : a.get("classes")) {
            JsonNode sla = c.get("sla");
            out.append(String.format("%-8s  %-34s  %-34s  %.3g / %.4g / %.3g%n", c.get("class").asText(), prediction(c.get("before")),
                    prediction(c.get("after")), sla.get("maxResponseTime").asDouble(), sla.get("minAvailability").asDouble(),
                    sla.get("maxCost").asDouble()));
        }
        JsonNode within = a.path("admissibleRateWithin");
        out.append('\n').append(String.format("%-8s  %-34s  %s%n", "class", "can still admit, in force [req/s]", "what if [req/s]"));
        for (JsonNode c : a.get("classes")) {
            JsonNode r = c.path("admissibleRate");
            out.append(String.format("%-8s  %-34s  %s%n", c.get("class").asText(), rate(r.get("before")), rate(r.get("after"))));
        }
        out.append(String.format("(the SLA Manager's admission rule: a subscription up to the rate is admitted, one more than %s req/s above it refused)%n",
                rate(within.get("after"))));
        if (a.get("atRisk").isEmpty()) out.append("\nevery class keeps its SLA\n");
        else {
            out.append("\nclasses at risk:");
            for (JsonNode r : a.get("atRisk")) out.append(' ').append(r.get("class").asText());
            out.append('\n');
        }
        return out.toString();
    }

    private static void bindings(JsonNode plan, Map<String, String[]> rows, int column) {
        if (plan == null || plan.isNull() || !plan.has("bindings")) return;
        for (JsonNode b : plan.get("bindings")) {
            List<String> shares = new ArrayList<>();
            for (JsonNode s : b.get("shares"))
                if (s.get("fraction").asDouble() > 1e-6)
                    shares.add(String.format("%s %.0f%%", s.get("implementation").asText(), 100 * s.get("fraction").asDouble()));
            rows.computeIfAbsent(b.get("class").asText() + " " + b.get("task").asText(), k -> new String[] {"", ""})[column] = String.join(", ", shares);
        }
    }

    /** R / A / C with a verdict: "ok" or the terms it breaks. */
    private static String prediction(JsonNode p) {
        if (p == null || p.isNull()) return "-";
        List<String> broken = new ArrayList<>();
        if (!p.get("responseTimeMet").asBoolean()) broken.add("R");
        if (!p.get("availabilityMet").asBoolean()) broken.add("A");
        if (!p.get("costMet").asBoolean()) broken.add("C");
        return String.format("%.3g / %.4f / %.3g %s", p.get("responseTime").asDouble(), p.get("availability").asDouble(),
                p.get("cost").asDouble(), broken.isEmpty() ? "ok" : "BREAKS " + String.join("", broken));
    }

    private static List<String> texts(JsonNode list) {
        List<String> out = new ArrayList<>();
        for (JsonNode n : list) out.add(n.asText());
        return out;
    }

    private static String rate(JsonNode n) {
        return n == null || n.isNull() ? "-" : String.format("%.3g", n.asDouble());
    }

    private static String number(JsonNode n) {
        return n == null || n.isNull() ? "none" : String.format("%.4f", n.asDouble());
    }
}
