package io.moses.core.operations;

import io.moses.management.PlanFormat;
import io.moses.model.CompositeService;
import io.moses.model.Plan;
import io.moses.model.ServiceClass;
import io.moses.model.User;
import io.moses.optimizer.PlanResult;
import io.moses.optimizer.PlanningInput;
import io.moses.sla.AdmissibleRate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.ToDoubleBiFunction;

/**
 * A hypothetical question to the optimizer (POST /admin/what-if): the plan it would make if the
 * changes were made, from a copy of the current planning input. Nothing is stored or published;
 * the plan in force stays. The answer holds the plan (the /admin/plan JSON), each class's
 * predicted R, A and C against its SLA (as changed) with verdicts, the rate it could still admit
 * before and after the changes (the SLA Manager's rule, {@link AdmissibleRate}), the objective
 * before and after, the classes at risk, what differs from the plan in force, and for each change
 * the admin action that makes it for real, or why there is none.
 */
final class WhatIf {
    /** Fractions closer than this are the same (the solvers' tolerance). */
    static final double SAME = 1e-6;

    private WhatIf() {}

    /**
     * @param base    what the optimizer plans with now
     * @param users   the subscribers by name (a rate change)
     * @param inForce the plan in force (null: none)
     * @param planner the optimizer, without publishing
     * @param admissible the rate a class can still admit on an input (the SLA Manager's rule)
     * @throws IllegalArgumentException naming the change and its field that does not fit the input
     */
    static Map<String, Object> answer(List<WhatIfChange> changes, PlanningInput base, List<User> users, Plan inForce,
                                      Function<PlanningInput, PlanResult> planner, ToDoubleBiFunction<PlanningInput, String> admissible) {
        Map<String, User> byName = new LinkedHashMap<>();
        for (User u : users) byName.put(u.name(), u);
        PlanningInput in = base;
        List<Map<String, Object>> actions = new ArrayList<>();
        for (int i = 0; i < changes.size(); i++) {
            try {
                Map<String, Object> action = new LinkedHashMap<>();
                action.put("change", changes.get(i).describe());
                action.putAll(changes.get(i).action(in));
                actions.add(action);
                in = changes.get(i).applyTo(in, byName);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("changes[" + i + "]." + e.getMessage());
            }
        }
        PlanResult result = planner.apply(in);
        Plan plan = result.plan();

        Map<String, Object> m = new LinkedHashMap<>();
        m.put("changes", changes.stream().map(WhatIfChange::describe).toList());
        m.put("planInForce", inForce == null ? 0 : inForce.version());
        m.put("status", result.status().name());
        m.put("message", result.message());
        m.put("objectiveBefore", inForce == null ? null : inForce.objective());
        m.put("objectiveAfter", plan == null ? null : plan.objective());
        List<Map<String, Object>> atRisk = atRisk(in, result);
        m.put("keepsEverySla", plan != null && result.status() == PlanResult.Status.OPTIMAL && atRisk.isEmpty());
        m.put("plan", plan == null ? null : PlanFormat.toTree(plan));
        m.put("inForce", PlanFormat.toTree(inForce)); // for showing the two side by side
        m.put("classes", classes(base, in, plan, inForce, admissible));
        m.put("admissibleRateWithin", beforeAfter(AdmissibleRate.within(base), AdmissibleRate.within(in)));
        m.put("atRisk", atRisk);
        m.put("diff", diff(inForce, plan, result));
        m.put("actions", actions); // for Apply: each change's admin call, in order, or why it has none
        return m;
    }

    /** Each class's SLA (as changed), load, and the predictions of the plan in force and the new plan with verdicts. */
    private static List<Map<String, Object>> classes(PlanningInput base, PlanningInput in, Plan plan, Plan inForce,
                                                     ToDoubleBiFunction<PlanningInput, String> admissible) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (ServiceClass k : in.classes()) {
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("class", k.name());
            c.put("load", in.load(k.name()));
            c.put("sla", Map.of("maxResponseTime", k.maxResponseTime(), "minAvailability", k.minAvailability(), "maxCost", k.maxCost()));
            c.put("before", prediction(k, inForce));
            c.put("after", prediction(k, plan));
            c.put("admissibleRate", beforeAfter(admissible.applyAsDouble(base, k.name()), admissible.applyAsDouble(in, k.name())));
            out.add(c);
        }
        return out;
    }

    private static Map<String, Object> beforeAfter(Object before, Object after) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("before", before);
        m.put("after", after);
        return m;
    }

    private static Map<String, Object> prediction(ServiceClass k, Plan p) {
        Plan.Prediction q = p == null ? null : p.predictions().get(k.name());
        if (q == null) return null;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("responseTime", q.responseTime());
        m.put("availability", q.availability());
        m.put("cost", q.cost());
        boolean r = q.responseTime() <= k.maxResponseTime() * (1 + SAME), a = q.availability() >= k.minAvailability() * (1 - SAME),
                c = q.cost() <= k.maxCost() * (1 + SAME);
        m.put("responseTimeMet", r);
        m.put("availabilityMet", a);
        m.put("costMet", c);
        m.put("slaMet", r && a && c);
        return m;
    }

    /**
     * The classes the plan would not keep: the relaxed plan's, and every class with load on a
     * composite the optimizer could not plan at all (a task with no available provider).
     */
    private static List<Map<String, Object>> atRisk(PlanningInput in, PlanResult result) {
        Map<String, Map<String, Object>> out = new TreeMap<>();
        if (result.plan() != null)
            for (Plan.ClassAtRisk r : result.plan().atRisk()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("class", r.serviceClass());
                m.put("responseTimeExcess", r.responseTimeExcess());
                m.put("availabilityShortfall", r.availabilityShortfall());
                m.put("costExcess", r.costExcess());
                m.put("breaksSla", r.breaksSla());
                out.put(r.serviceClass(), m);
            }
        // a composite with no registered service at all is unmanaged, whatever the change: not a risk
        Map<String, String> unplanned = new LinkedHashMap<>();
        result.unplanned().forEach((c, why) -> {
            if (!why.startsWith("unmanaged:")) unplanned.put(c, why);
        });
        if (result.plan() == null && unplanned.isEmpty()) // nothing planned: every composite is out, for the reason the optimizer gave
            for (CompositeService c : in.composites()) unplanned.putIfAbsent(c.name(), result.message());
        if (!unplanned.isEmpty())
            for (ServiceClass k : in.classes()) {
                if (in.load(k.name()) <= 0) continue;
                Map<String, Object> m = out.computeIfAbsent(k.name(), n -> new LinkedHashMap<>(Map.of("class", n)));
                m.put("breaksSla", true);
                m.put("availabilityShortfall", k.minAvailability()); // its requests to these composites cannot be served
                m.put("unplanned", unplanned);
            }
        return new ArrayList<>(out.values());
    }

    /** Each class and task whose shares differ between the plan in force and the new plan. */
    private static List<Map<String, Object>> diff(Plan inForce, Plan plan, PlanResult result) {
        List<Map<String, Object>> out = new ArrayList<>();
        if (plan == null) return out;
        TreeSet<Plan.Key> keys = new TreeSet<>(java.util.Comparator.comparing(Plan.Key::serviceClass).thenComparing(Plan.Key::task));
        keys.addAll(plan.bindings().keySet());
        if (inForce != null)
            for (Plan.Key k : inForce.bindings().keySet())
                if (!result.unplanned().containsKey(k.task().composite())) keys.add(k); // an unplanned composite keeps its shares
        for (Plan.Key k : keys) {
            Map<String, Double> before = shares(inForce, k), after = shares(plan, k);
            if (same(before, after)) continue;
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("class", k.serviceClass());
            d.put("composite", k.task().composite());
            d.put("task", k.task().name());
            d.put("before", before);
            d.put("after", after);
            out.add(d);
        }
        return out;
    }

    private static Map<String, Double> shares(Plan p, Plan.Key k) {
        Map<String, Double> m = new TreeMap<>();
        if (p == null) return m;
        for (Plan.Share s : p.bindings().getOrDefault(k, List.of()))
            if (s.fraction() > SAME) m.merge(s.implementation().toString(), s.fraction(), Double::sum);
        return m;
    }

    static boolean same(Map<String, Double> a, Map<String, Double> b) {
        if (!a.keySet().equals(b.keySet())) return false;
        for (var e : a.entrySet()) if (Math.abs(e.getValue() - b.get(e.getKey())) > 1e-4) return false;
        return true;
    }
}
