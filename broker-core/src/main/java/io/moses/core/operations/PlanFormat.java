package io.moses.core.operations;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.moses.model.Implementation;
import io.moses.model.Plan;
import io.moses.model.TaskRef;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link Plan} as JSON (what the admin API serves and {@code moses plan --json} prints), back
 * from JSON, and as a table for people: presentation, so it lives with the admin API and the
 * command line, not in the optimizer. The JSON:
 * <pre>
 * {"version":3,"created":"...","reason":"...","solver":"lp_solve","objective":0.41,"solveMillis":1.2,
 *  "predictions":{"gold":{"responseTime":..,"availability":..,"cost":..}},
 *  "atRisk":[{"class":..,"responseTimeExcess":..,"availabilityShortfall":..,"costExcess":..,"breaksSla":..}],
 *  "bindings":[{"class":"gold","composite":"TripPlanner","task":"flight.findFlight",
 *               "shares":[{"implementation":"par(a,b)","fraction":0.7}, ...]}]}
 * </pre>
 * No plan at all is {@code {"version":0}}.
 */
public final class PlanFormat {
    private static final ObjectMapper MAPPER = new ObjectMapper().disable(SerializationFeature.INDENT_OUTPUT);

    private PlanFormat() {}

    /** The plan as a JSON tree; {@code {"version":0}} for null. */
    public static ObjectNode toTree(Plan p) {
        ObjectNode m = MAPPER.createObjectNode();
        if (p == null) {
            m.put("version", 0);
            return m;
        }
        m.put("version", p.version());
        m.put("created", p.created().toString());
        m.put("reason", p.reason());
        m.put("solver", p.solver());
        m.put("objective", p.objective());
        m.put("solveMillis", p.solveMillis());
        ObjectNode predictions = m.putObject("predictions");
        p.predictions().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
            ObjectNode o = predictions.putObject(e.getKey());
            o.put("responseTime", e.getValue().responseTime());
            o.put("availability", e.getValue().availability());
            o.put("cost", e.getValue().cost());
        });
        ArrayNode risk = m.putArray("atRisk");
        for (Plan.ClassAtRisk r : p.atRisk()) {
            ObjectNode o = risk.addObject();
            o.put("class", r.serviceClass());
            o.put("responseTimeExcess", r.responseTimeExcess());
            o.put("availabilityShortfall", r.availabilityShortfall());
            o.put("costExcess", r.costExcess());
            o.put("breaksSla", r.breaksSla());
        }
        ArrayNode bindings = m.putArray("bindings");
        sortedKeys(p).forEach(k -> {
            ObjectNode b = bindings.addObject();
            b.put("class", k.serviceClass());
            b.put("composite", k.task().composite());
            b.put("task", k.task().name());
            ArrayNode shares = b.putArray("shares");
            for (Plan.Share s : p.bindings().get(k)) {
                ObjectNode o = shares.addObject();
                o.put("implementation", s.implementation().toString());
                o.put("fraction", s.fraction());
            }
        });
        return m;
    }

    public static String toJson(Plan p) {
        try {
            return MAPPER.writeValueAsString(toTree(p));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("plan JSON: " + e.getOriginalMessage(), e);
        }
    }

    /**
     * Parses {@link #toJson}'s form; null for {@code {"version":0}} (no plan).
     *
     * @throws IllegalArgumentException naming the field that is missing or malformed
     */
    public static Plan fromJson(String json) {
        JsonNode n;
        try {
            n = MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("plan JSON is not JSON: " + e.getOriginalMessage());
        }
        if (n == null || !n.isObject()) throw new IllegalArgumentException("plan JSON must be an object");
        return fromTree(n);
    }

    public static Plan fromTree(JsonNode n) {
        long version = number(n, "version").asLong();
        if (version == 0 && !n.has("bindings")) return null;
        Instant created;
        try {
            created = Instant.parse(text(n, "created"));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("plan JSON: created is not an instant: " + n.get("created").asText());
        }
        Map<String, Plan.Prediction> predictions = new LinkedHashMap<>();
        JsonNode pr = n.path("predictions");
        pr.fields().forEachRemaining(e -> predictions.put(e.getKey(), new Plan.Prediction(
                number(e.getValue(), "predictions." + e.getKey(), "responseTime").asDouble(),
                number(e.getValue(), "predictions." + e.getKey(), "availability").asDouble(),
                number(e.getValue(), "predictions." + e.getKey(), "cost").asDouble())));
        List<Plan.ClassAtRisk> risk = new ArrayList<>();
        for (JsonNode r : n.path("atRisk"))
            risk.add(new Plan.ClassAtRisk(text(r, "atRisk.class", "class"),
                    number(r, "atRisk", "responseTimeExcess").asDouble(),
                    number(r, "atRisk", "availabilityShortfall").asDouble(),
                    number(r, "atRisk", "costExcess").asDouble(), r.path("breaksSla").asBoolean()));
        Map<Plan.Key, List<Plan.Share>> bindings = new LinkedHashMap<>();
        for (JsonNode b : n.path("bindings")) {
            TaskRef task = new TaskRef(text(b, "bindings.composite", "composite"), text(b, "bindings.task", "task"));
            List<Plan.Share> shares = new ArrayList<>();
            for (JsonNode s : b.path("shares")) {
                Implementation impl;
                try {
                    impl = Implementation.parse(text(s, "bindings.shares.implementation", "implementation"));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("plan JSON: bindings.shares.implementation: " + e.getMessage());
                }
                shares.add(new Plan.Share(impl, number(s, "bindings.shares", "fraction").asDouble()));
            }
            bindings.put(new Plan.Key(text(b, "bindings.class", "class"), task), shares);
        }
        return new Plan(version, created, bindings, predictions, number(n, "objective").asDouble(), text(n, "solver"),
                number(n, "solveMillis").asDouble(), risk, n.path("reason").asText(""));
    }

    /** The plan as a table for a terminal. */
    public static String table(Plan p) {
        if (p == null) return "no plan yet (every task bound to its first concrete service)\n";
        StringBuilder out = new StringBuilder();
        out.append(String.format("plan %d  %s  solver %s  objective %.6g  solved in %.1f ms%n  reason: %s%n",
                p.version(), p.created(), p.solver(), p.objective(), p.solveMillis(), p.reason()));
        if (!p.predictions().isEmpty()) {
            int w = Math.max(5, p.predictions().keySet().stream().mapToInt(String::length).max().orElse(5));
            out.append(String.format("  %-" + w + "s %10s %12s %10s%n", "class", "R [s]", "A", "C"));
            p.predictions().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> out.append(String.format(
                    "  %-" + w + "s %10.4f %12.6f %10.4f%n", e.getKey(), e.getValue().responseTime(),
                    e.getValue().availability(), e.getValue().cost())));
        }
        for (Plan.ClassAtRisk r : p.atRisk())
            out.append(String.format("  AT RISK %s: R +%.4f s, A -%.6f, C +%.4f (%s)%n", r.serviceClass(),
                    r.responseTimeExcess(), r.availabilityShortfall(), r.costExcess(),
                    r.breaksSla() ? "breaks the SLA" : "within the margin only"));
        int cw = Math.max(5, p.bindings().keySet().stream().mapToInt(k -> k.serviceClass().length()).max().orElse(5));
        int tw = Math.max(4, p.bindings().keySet().stream().mapToInt(k -> k.task().toString().length()).max().orElse(4));
        out.append(String.format("  %-" + cw + "s %-" + tw + "s  %s%n", "class", "task", "implementation: fraction"));
        sortedKeys(p).forEach(k -> {
            StringBuilder shares = new StringBuilder();
            for (Plan.Share s : p.bindings().get(k))
                shares.append(String.format("%s: %.3f  ", s.implementation(), s.fraction()));
            out.append(String.format("  %-" + cw + "s %-" + tw + "s  %s%n", k.serviceClass(), k.task(),
                    shares.toString().strip()));
        });
        return out.toString();
    }

    private static List<Plan.Key> sortedKeys(Plan p) {
        return p.bindings().keySet().stream()
                .sorted(Comparator.comparing(Plan.Key::serviceClass).thenComparing(Plan.Key::task)).toList();
    }

    private static JsonNode number(JsonNode n, String field) {
        return number(n, "", field);
    }

    private static JsonNode number(JsonNode n, String where, String field) {
        JsonNode v = n.get(field);
        if (v == null || !v.isNumber())
            throw new IllegalArgumentException("plan JSON: " + (where.isEmpty() ? "" : where + ".") + field + " must be a number");
        return v;
    }

    private static String text(JsonNode n, String field) {
        return text(n, field, field);
    }

    private static String text(JsonNode n, String qualified, String field) {
        JsonNode v = n.get(field);
        if (v == null || !v.isTextual()) throw new IllegalArgumentException("plan JSON: " + qualified + " must be a string");
        return v.asText();
    }
}
