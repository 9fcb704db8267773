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
import io.moses.model.Implementation;
import io.moses.model.Observation;
import io.moses.model.Plan;
import io.moses.model.ProviderSla;
import io.moses.model.TaskRef;
import io.moses.model.Visits;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Inputs the monitors and operators can produce that have no good answer: every one gives a
 * plan result that says what happened (a relaxed plan with the classes at risk, or no plan and
 * the cause), never an exception, on both solvers and with column generation.
 */
class BadInputTest {
    static final TaskRef T1 = new TaskRef("Two", "p1.op"), T2 = new TaskRef("Two", "p2.op");
    static final List<OptimizationEngine> ENGINES = java.util.stream.Stream.concat(Both.ENGINES.stream(),
            Both.columnGeneration().stream()).toList();

    static PlanningInput.Builder two() {
        return PlanningInput.builder()
                .composite(new CompositeService("Two", "urn:two", List.of(T1, T2), new Activity.Sequence("/", List.of(
                        new Activity.Invoke("/1", T1), new Activity.Invoke("/2", T2)))))
                .service(service("a1", T1, 0.5, 0.99, 1, 100)).service(service("a2", T1, 0.8, 0.98, 0.5, 100))
                .service(service("b1", T2, 0.5, 0.99, 1, 100));
    }

    @Test
    void anInstanceWithNoFeasiblePlanGetsTheRelaxedPlanWithTheClassesAtRisk() {
        // R >= 1 s whatever the binding, gold promises 0.5 s
        PlanningInput in = two().serviceClass(serviceClass("gold", 0.5, 0.9, 10, 5), 2)
                .serviceClass(serviceClass("silver", 10, 0.9, 10, 1), 2).build();
        for (OptimizationEngine e : ENGINES) {
            PlanResult r = e.plan(in);
            assertEquals(PlanResult.Status.RELAXED, r.status(), r.message());
            assertEquals(List.of("gold"), r.plan().atRisk().stream().map(Plan.ClassAtRisk::serviceClass).toList());
            assertTrue(r.message().contains("gold"), r.message());
        }
    }

    @Test
    void aClassWithZeroRateIsPlannedAndLoadsNothing() {
        PlanningInput in = two().serviceClass(serviceClass("gold", 5, 0.9, 10, 5), 0)
                .serviceClass(serviceClass("silver", 10, 0.9, 10, 1), 0).build();
        for (OptimizationEngine e : ENGINES) {
            PlanResult r = e.plan(in);
            assertEquals(PlanResult.Status.OPTIMAL, r.status(), r.message());
            assertFalse(r.plan().shares("gold", T1).isEmpty());
            assertTrue(r.plan().predictions().get("gold").responseTime() <= 4.5 + 1e-9);
        }
    }

    @Test
    void aTaskWithASingleServiceIsBoundToIt() {
        PlanningInput in = two().serviceClass(serviceClass("gold", 5, 0.9, 10, 5), 3).build();
        for (OptimizationEngine e : ENGINES) {
            PlanResult r = e.plan(in);
            assertEquals(PlanResult.Status.OPTIMAL, r.status(), r.message());
            assertEquals(List.of(new Plan.Share(Implementation.single("b1"), 1.0)), r.plan().shares("gold", T2));
        }
    }

    @Test
    void zeroCapacityIsRefusedNamingTheFieldAndTooLittleCapacityIsReportedAsOverload() {
        var ex = assertThrows(IllegalArgumentException.class, () -> new ProviderSla(0.5, 0.99, 1, 0));
        assertTrue(ex.getMessage().contains("maxRate"), ex.getMessage());
        // b1 is T2's only service and can take 1e-6 req/s: the plan is made, over its capacity, and says so
        PlanningInput in = two().service(service("b2", T1, 0.5, 0.99, 1, 100)).serviceClass(serviceClass("gold", 5, 0.9, 10, 5), 3)
                .build();
        PlanningInput starved = new PlanningInput(in.composites(), in.classes(), in.classLoad(),
                in.services().stream().map(s -> s.name().equals("b1")
                        ? service("b1", T2, 0.5, 0.99, 1, 1e-6) : s).toList(),
                in.down(), in.observed(), in.successSamples(), in.failureDetection(), in.profiles(), in.visits(), in.settings());
        for (OptimizationEngine e : ENGINES) {
            PlanResult r = e.plan(starved);
            assertEquals(PlanResult.Status.OVERLOADED, r.status(), r.message());
            assertTrue(r.overloadedProviders().contains("http://127.0.0.1:9/b1"), r.overloadedProviders().toString());
            assertTrue(r.message().contains("capacity overloaded"), r.message());
        }
    }

    @Test
    void aTaskWithNoServiceLeftIsARefusalNamingTheTask() {
        PlanningInput in = two().down("b1").serviceClass(serviceClass("gold", 5, 0.9, 10, 5), 3).build();
        for (OptimizationEngine e : ENGINES) {
            PlanResult r = e.plan(in);
            assertEquals(PlanResult.Status.FAILED, r.status());
            assertNull(r.plan());
            assertTrue(r.message().contains("p2.op"), r.message());
        }
    }

    @Test
    void estimatesThatAreNotNumbersAreIgnoredAndNamed() {
        double nan = Double.NaN, inf = Double.POSITIVE_INFINITY;
        PlanningInput in = two().serviceClass(serviceClass("gold", 5, 0.9, 10, 5), 3)
                .observed(new Observation.ServiceQos("a1", nan, nan, 1000, Instant.now()))
                .observed(new Observation.ServiceQos("a2", inf, 0.97, 1000, Instant.now()))
                .failureDetection("b1", nan).failureDetection("a2", inf)
                .successSamples("a1", new double[] {0.1, nan, 0.2}).successSamples("a2", new double[] {0.1, -inf})
                .visits("gold", Map.of(T1, nan, T2, 1.0)).build();
        PlanningInput clean = two().serviceClass(serviceClass("gold", 5, 0.9, 10, 5), 3)
                .observed(new Observation.ServiceQos("a2", 0.8, 0.97, 1000, Instant.now()))
                .visits("gold", Map.of(T2, 1.0)).build();
        for (OptimizationEngine e : ENGINES) {
            PlanResult r = e.plan(in), c = e.plan(clean);
            assertEquals(PlanResult.Status.OPTIMAL, r.status(), r.message());
            for (String what : List.of("response time of a1", "availability of a1", "response time of a2",
                    "failure-detection time of b1", "failure-detection time of a2", "latency samples of a1",
                    "latency samples of a2", "visits of"))
                assertTrue(r.message().contains(what), what + " in " + r.message());
            // what is left is the clean input: same plan value
            Both.assertClose(c.plan().objective(), r.plan().objective(), 1e-9, "objective without the bad estimates");
        }
        var ex = assertThrows(IllegalArgumentException.class, () -> two().failureDetection("a1", -1).build());
        assertTrue(ex.getMessage().contains("failureDetection[a1]"), ex.getMessage());
    }

    @Test
    void aProfileThatDoesNotFitItsTreeIsARefusalNotAnException() {
        PlanningInput in = PlanningInput.builder().composite(Fixtures.tripPlanner())
                .services(Fixtures.tripPlannerInput(1, 1).build().services())
                .serviceClass(serviceClass("gold", 20, 0.5, 100, 5), 1)
                .profile("gold", new Visits.Profile(Map.of("/seq/if", List.of(0.2, 0.3, 0.5)), Map.of())).build();
        for (OptimizationEngine e : ENGINES) {
            PlanResult r = e.plan(in);
            assertEquals(PlanResult.Status.FAILED, r.status());
            assertTrue(r.message().contains("/seq/if"), r.message());
            AdmissionDecision d = e.admit(in, "gold", 1);
            assertFalse(d.accepted());
            assertTrue(d.reason().contains("/seq/if"), d.reason());
        }
    }
}
