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
import org.junit.jupiter.api.Test;

/**
 * Admission (model.md section 5). One task; s1 fast (r .2, l 10), s2 slow (r 1, l 1000). Gold's
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

    @Test
    void badQuestionsGetClearErrors() {
        var e = Both.LP;
        var ex = assertThrows(IllegalArgumentException.class, () -> e.admit(input(1, 1), "platinum", 1));
        assertTrue(ex.getMessage().contains("platinum"));
        ex = assertThrows(IllegalArgumentException.class, () -> e.admit(input(1, 1), "gold", -1));
        assertTrue(ex.getMessage().contains("rate"));
    }
}
