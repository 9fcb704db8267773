package io.moses.optimizer;

import java.util.List;

/**
 * The answer to "may class k take l more requests per second" (docs/model.md, "Admission and counter-offer").
 *
 * @param serviceClass           the class asked for
 * @param requestedRate          the extra rate l asked for
 * @param accepted               whether the program stays feasible (or, when already relaxed,
 *                               its weighted slack does not grow)
 * @param maxFeasibleRate        the largest extra rate the class can take (to within 1% of l);
 *                               equals l when accepted, 0 while capacity is overloaded
 * @param otherClassesThatAccept on rejection, the other classes that would accept l
 * @param plan                   on acceptance, the plan with the new load (it becomes the plan)
 * @param reason                 one line for the user and the log
 */
public record AdmissionDecision(String serviceClass, double requestedRate, boolean accepted, double maxFeasibleRate,
                                List<String> otherClassesThatAccept, PlanResult plan, String reason) {
    public AdmissionDecision {
        otherClassesThatAccept = List.copyOf(otherClassesThatAccept);
    }
}
