package io.moses.sla;

import io.moses.model.ConcreteService;
import io.moses.optimizer.AdmissionDecision;
import io.moses.optimizer.OptimizationEngine;
import io.moses.optimizer.PlanningInput;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.HashSet;
import java.util.Set;

/**
 * The rate a class can still admit (docs/model.md, "Admission and counter-offer"): the SLA
 * Manager's GetClasses and the what-if answer both read it here, so that what they report is what
 * Subscribe then decides. The optimizer's admission is asked for the {@link #probe} rate (every
 * endpoint's capacity together, more than any class can take); accepted, the class can take all
 * of it; refused, its counter-offer (a bisection to within 1% of the probe) rounded down to three
 * significant digits. A subscription at or below the answer is admitted on the same input, one
 * above the answer plus {@link #within} is refused.
 */
public final class AdmissibleRate {
    /** The bisection's tolerance, as a share of the probe (OptimizationEngine.admit). */
    static final double TOLERANCE = 0.01;

    private AdmissibleRate() {}

    /**
     * The extra rate [req/s] {@code serviceClass} can take on {@code in}: at most
     * 2 + ceil(log2(1 / TOLERANCE)) + (classes - 1) = 9 + classes - 1 feasibility solves of the
     * admission program (one more full plan when the probe itself is admitted).
     */
    public static double of(OptimizationEngine optimizer, PlanningInput in, String serviceClass) {
        double probe = probe(in);
        AdmissionDecision d = optimizer.admit(in, serviceClass, probe);
        return d.accepted() ? probe : roundDown(d.maxFeasibleRate());
    }

    /** How far above the answer a refusal may still come (the bisection's step, req/s). */
    public static double within(PlanningInput in) {
        return TOLERANCE * probe(in);
    }

    /** An upper bound of any class's extra rate: every endpoint's capacity together. */
    static double probe(PlanningInput in) {
        Set<String> endpoints = new HashSet<>();
        double sum = 0;
        for (ConcreteService s : in.services()) if (endpoints.add(s.endpoint().toString())) sum += s.sla().maxRate();
        return Math.max(1, roundDown(sum));
    }

    /** Three significant digits, rounded down: an offer must stay within what was found admissible. */
    static double roundDown(double x) {
        if (!(x > 0) || Double.isInfinite(x)) return 0;
        return new BigDecimal(x).round(new MathContext(3, RoundingMode.DOWN)).doubleValue();
    }
}
