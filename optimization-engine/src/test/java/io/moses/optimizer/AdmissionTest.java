package io.moses.optimizer;

import static io.moses.optimizer.Fixtures.service;
import static io.moses.optimizer.Fixtures.serviceClass;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.model.Activity;
import io.moses.model.CompositeService;
import io.moses.model.TaskRef;
import java.util.List;
import java.util.Map;
import io.moses.model.Visits;
import org.junit.jupiter.api.Test;

/**
 * Admission (docs/model.md, "Admission and counter-offer"). One task; s1 fast (r .2, l 10), s2 slow (r 1, l 1000). Gold's
 * R_max .3 needs R <= .27, so at least (1 - .27) / (1 - .2) = .9125 of its requests on s1:
 * gold can carry at most 10 / .9125 = 10.959 req/s in all. Silver (R_max 5) is content on s2.
 */
class AdmissionTest {
    static final TaskRef T = new TaskRef("One", "p.op");
    static final double GOLD_MAX = 10 / 0.9125;

    static PlanningInput input(double goldLoad, double silverLoad) {
        return PlanningInput.builder()
                .composite(new CompositeService("One", "urn:one", List.of(T), new Activity.Invoke("/1", T)))
                .service(service("s1", T, 0.2, 0.99, 1, 10)).service(service("s2", T, 1, 0.99, 1, 1000))
                .serviceClass(serviceClass("gold", 0.3, 0.9, 10, 5), goldLoad)
                .serviceClass(serviceClass("silver", 5, 0.9, 10, 1), silverLoad).build();
    }

    @Test
    void acceptsWhatStaysFeasibleAndReturnsThePlanWithTheNewLoad() {
        for (OptimizationEngine e : Both.ENGINES) {
            AdmissionDecision d = e.admit(input(4, 4), "gold", 5);
            assertTrue(d.accepted(), d.reason());
            assertEquals(5, d.maxFeasibleRate());
            assertEquals(PlanResult.Status.OPTIMAL, d.plan().status());
            assertTrue(d.plan().plan().reason().contains("gold"));
        }
    }

    @Test
    void rejectionCarriesTheLargestFeasibleRateAndTheClassesThatWouldAccept() {
        for (OptimizationEngine e : Both.ENGINES) {
            AdmissionDecision d = e.admit(input(4, 4), "gold", 8);
            assertFalse(d.accepted(), d.reason());
            assertNull(d.plan());
            double exact = GOLD_MAX - 4;
            assertTrue(d.maxFeasibleRate() <= exact + 1e-9 && d.maxFeasibleRate() >= exact - 0.01 * 8,
                    "counter-offer " + d.maxFeasibleRate() + " against " + exact);
            assertEquals(List.of("silver"), d.otherClassesThatAccept());
            // the counter-offer itself is accepted
            assertTrue(e.admit(input(4, 4), "gold", d.maxFeasibleRate()).accepted());
        }
    }

    @Test
    void whenAlreadyRelaxedAcceptsOnlyIfTheWeightedSlackDoesNotGrow() {
        // Gold at 12 req/s is already beyond what it can carry: the plan is relaxed. More silver
        // (on s2) does not grow gold's violation; more gold does.
        PlanningInput in = input(12, 4);
        assertEquals(PlanResult.Status.RELAXED, Both.plan(in).status());
        for (OptimizationEngine e : Both.ENGINES) {
            assertTrue(e.admit(in, "silver", 20).accepted());
            AdmissionDecision d = e.admit(in, "gold", 1);
            assertFalse(d.accepted());
            assertEquals(0, d.maxFeasibleRate(), 0.01);
        }
    }

    @Test
    void whileCapacityIsOverloadedNothingIsAccepted() {
        PlanningInput in = input(0, 2000); // 2,000 req/s against 1,010 of capacity
        assertEquals(PlanResult.Status.OVERLOADED, Both.plan(in).status());
        for (OptimizationEngine e : Both.ENGINES) {
            AdmissionDecision d = e.admit(in, "gold", 0.1);
            assertFalse(d.accepted());
            assertEquals(0, d.maxFeasibleRate());
            assertTrue(d.reason().contains("overloaded"), d.reason());
        }
    }

    /**
     * The trip planner with SLAs nothing can break, so that capacity alone limits the load: each
     * task can carry the sum of its services' limits, and class k's extra rate l loads task i with
     * l V_i (car 0.5, the others 1). The largest extra rate is min_i (capacity_i - load_i) / V_i.
     */
    @Test
    void counterOfferWhereCapacityBindsOnTheTripPlanner() {
        PlanningInput base = Fixtures.tripPlannerInput(1, 7).build();
        var b = PlanningInput.builder().composite(Fixtures.tripPlanner()).services(base.services())
                .serviceClass(serviceClass("gold", 1000, 0.01, 1e6, 5), 20)
                .serviceClass(serviceClass("silver", 1000, 0.01, 1e6, 1), 30);
        PlanningInput in = b.build();
        Map<TaskRef, Double> v = Visits.of(Fixtures.tripPlanner(), Visits.Profile.DEFAULT);
        double exact = Double.POSITIVE_INFINITY;
        for (TaskRef t : Fixtures.TRIP_TASKS) {
            double cap = in.services().stream().filter(s -> s.task().equals(t)).mapToDouble(s -> s.sla().maxRate()).sum();
            exact = Math.min(exact, (cap - 50 * v.get(t)) / v.get(t));
        }
        assertTrue(exact > 10, "the instance leaves room: " + exact);
        double asked = 2 * exact;
        List<OptimizationEngine> engines = new java.util.ArrayList<>(Both.ENGINES);
        engines.addAll(Both.columnGeneration());
        for (OptimizationEngine e : engines) {
            AdmissionDecision d = e.admit(in, "gold", asked);
            assertFalse(d.accepted(), d.reason());
            assertTrue(d.maxFeasibleRate() <= exact * (1 + 1e-9) && d.maxFeasibleRate() >= exact - 0.01 * asked,
                    "counter-offer " + d.maxFeasibleRate() + " against " + exact);
            assertTrue(d.reason().contains("at most"), d.reason());
            // the counter-offer is accepted and its plan keeps every SLA; a little more is not
            AdmissionDecision yes = e.admit(in, "gold", d.maxFeasibleRate());
            assertTrue(yes.accepted(), yes.reason());
            assertEquals(PlanResult.Status.OPTIMAL, yes.plan().status());
            assertFalse(e.admit(in, "gold", exact * 1.01).accepted());
            // capacity is what binds: beyond it the plan is overloaded, not merely relaxed
            assertEquals(PlanResult.Status.OVERLOADED, e.plan(in.withLoad("gold", 20 + exact * 1.01)).status());
            // silver has the same visits: it can take no more than gold could
            assertEquals(List.of(), d.otherClassesThatAccept());
        }
    }

    @Test
    void badQuestionsGetClearErrors() {
        var e = Both.LP;
        var ex = assertThrows(IllegalArgumentException.class, () -> e.admit(input(1, 1), "platinum", 1));
        assertTrue(ex.getMessage().contains("platinum"));
        ex = assertThrows(IllegalArgumentException.class, () -> e.admit(input(1, 1), "gold", -1));
        assertTrue(ex.getMessage().contains("rate"));
    }
}
