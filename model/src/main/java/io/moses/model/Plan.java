package io.moses.model;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One version of the adaptation plan: for every (class, task), the fraction of requests bound
 * to each implementation, with what the optimizer predicts. Immutable; a new version replaces
 * the whole plan.
 *
 * @param version     increasing version number
 * @param created     when it was solved
 * @param bindings    per (class, task), the shares (fractions sum to 1)
 * @param predictions per class, predicted response time, availability and cost
 * @param objective   the objective value
 * @param solver      which solver produced it ("lp_solve", "ojAlgo", "seed", "static")
 * @param solveMillis solve time
 * @param atRisk      classes whose SLA the plan cannot keep (relaxed program)
 * @param reason      why this plan was made (one line)
 */
public record Plan(long version, Instant created, Map<Key, List<Share>> bindings, Map<String, Prediction> predictions,
                   double objective, String solver, double solveMillis, List<ClassAtRisk> atRisk, String reason) {

    public Plan {
        bindings = Map.copyOf(bindings);
        predictions = Map.copyOf(predictions);
        atRisk = List.copyOf(atRisk);
    }

    public record Key(String serviceClass, TaskRef task) {}

    public record Share(Implementation implementation, double fraction) {}

    /** Predicted R [s], A and C of a class. */
    public record Prediction(double responseTime, double availability, double cost) {}

    /**
     * A class whose SLA is predicted broken, in native units (seconds, availability, cost).
     *
     * @param breaksSla true if the prediction breaks the SLA itself, false if only its margin
     */
    public record ClassAtRisk(String serviceClass, double responseTimeExcess, double availabilityShortfall,
                              double costExcess, boolean breaksSla) {}

    public List<Share> shares(String serviceClass, TaskRef task) {
        return bindings.getOrDefault(new Key(serviceClass, task), List.of());
    }
}
