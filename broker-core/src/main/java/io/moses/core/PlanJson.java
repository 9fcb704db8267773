package io.moses.core;

import io.moses.model.Plan;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A plan as plain JSON-ready maps: what the admin API serves and {@code moses plan} prints. */
final class PlanJson {
    private PlanJson() {}

    static Map<String, Object> of(Plan p) {
        Map<String, Object> m = new LinkedHashMap<>();
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
        Map<String, Object> predictions = new LinkedHashMap<>();
        p.predictions().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> predictions.put(e.getKey(),
                Map.of("responseTime", e.getValue().responseTime(), "availability", e.getValue().availability(),
                        "cost", e.getValue().cost())));
        m.put("predictions", predictions);
        List<Map<String, Object>> risk = new ArrayList<>();
        for (Plan.ClassAtRisk r : p.atRisk())
            risk.add(Map.of("class", r.serviceClass(), "responseTimeExcess", r.responseTimeExcess(),
                    "availabilityShortfall", r.availabilityShortfall(), "costExcess", r.costExcess(), "breaksSla", r.breaksSla()));
        m.put("atRisk", risk);
        List<Map<String, Object>> bindings = new ArrayList<>();
        p.bindings().entrySet().stream()
                .sorted(Comparator.comparing((Map.Entry<Plan.Key, List<Plan.Share>> e) -> e.getKey().serviceClass())
                        .thenComparing(e -> e.getKey().task()))
                .forEach(e -> {
                    List<Map<String, Object>> shares = new ArrayList<>();
                    for (Plan.Share s : e.getValue())
                        shares.add(Map.of("implementation", s.implementation().toString(), "fraction", s.fraction()));
                    Map<String, Object> b = new LinkedHashMap<>();
                    b.put("class", e.getKey().serviceClass());
                    b.put("composite", e.getKey().task().composite());
                    b.put("task", e.getKey().task().name());
                    b.put("shares", shares);
                    bindings.add(b);
                });
        m.put("bindings", bindings);
        return m;
    }
}
