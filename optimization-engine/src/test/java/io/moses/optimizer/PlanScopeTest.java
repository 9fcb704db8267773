package io.moses.optimizer;

import static io.moses.optimizer.Fixtures.service;
import static io.moses.optimizer.Fixtures.serviceClass;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.model.Activity;
import io.moses.model.CompositeService;
import io.moses.model.Plan;
import io.moses.model.TaskRef;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What is planned (docs/model.md, "What is planned"): tasks with no registered concrete service
 * are outside the program, and a composite that cannot be planned does not stop the others.
 */
class PlanScopeTest {
    static final TaskRef PRICE = new TaskRef("Quote", "price.getPrice"), STOCK = new TaskRef("Quote", "stock.checkStock");
    static final TaskRef VERIFY = new TaskRef("Order", "check.verify"), SHIP = new TaskRef("Order", "ship.send");

    /** A process whose partners are not registered: its invokes go to its WSDL's addresses. */
    static CompositeService quote() {
        return new CompositeService("Quote", "urn:quote", List.of(PRICE, STOCK), new Activity.Sequence("/", List.of(
                new Activity.Invoke("/price", PRICE), new Activity.Invoke("/stock", STOCK))));
    }

    static CompositeService order() {
        return new CompositeService("Order", "urn:order", List.of(VERIFY, SHIP), new Activity.Sequence("/", List.of(
                new Activity.Invoke("/verify", VERIFY), new Activity.Invoke("/ship", SHIP))));
    }

    @Test
    void anUnmanagedCompositeBesideTheTripPlannerChangesNothingInItsPlan() {
        PlanResult alone = Both.plan(Fixtures.tripPlannerInput(3, 7).build());
        PlanResult beside = Both.plan(Fixtures.tripPlannerInput(3, 7).composite(quote()).build());
        assertEquals(PlanResult.Status.OPTIMAL, beside.status(), beside.message());
        assertEquals(alone.plan().objective(), beside.plan().objective(), 1e-9, "the same optimum");
        assertEquals(alone.plan().bindings().keySet(), beside.plan().bindings().keySet(), "no binding for an unmanaged task");
        assertTrue(beside.unplanned().get("Quote").startsWith("unmanaged: no concrete service registered for"), beside.unplanned().toString());
        assertTrue(beside.message().contains("not planned"), beside.message());
    }

    @Test
    void aCompositeWhoseOnlyProviderIsDownDoesNotStopTheOthers() {
        // Order's verify has one provider, down; its ship task is unmanaged
        PlanResult alone = Both.plan(Fixtures.tripPlannerInput(2, 3).build());
        PlanResult r = Both.plan(Fixtures.tripPlannerInput(2, 3).composite(order()).composite(quote())
                .service(service("verify-a", VERIFY, 0.1, 0.99, 1, 100)).down("verify-a").build());
        assertEquals(PlanResult.Status.OPTIMAL, r.status(), r.message());
        assertEquals(alone.plan().objective(), r.plan().objective(), 1e-9, "the trip planner's optimum");
        assertEquals("no available concrete service for [" + VERIFY + "]", r.unplanned().get("Order"));
        assertTrue(r.unplanned().containsKey("Quote"), r.unplanned().toString());
        assertTrue(r.plan().bindings().keySet().stream().allMatch(k -> k.task().composite().equals(Fixtures.TRIP)), r.plan().bindings().keySet().toString());
        // admission decides on what can be planned too
        assertTrue(new OptimizationEngine().admit(Fixtures.tripPlannerInput(2, 3).composite(order())
                .service(service("verify-a", VERIFY, 0.1, 0.99, 1, 100)).down("verify-a").build(), "class0", 0.5).accepted());
    }

    @Test
    void whenNothingCanBePlannedTheResultSaysWhy() {
        PlanResult down = Both.plan(PlanningInput.builder().composite(order()).serviceClass(serviceClass("gold", 5, 0.9, 10, 5), 1)
                .service(service("verify-a", VERIFY, 0.1, 0.99, 1, 100)).down("verify-a").build());
        assertEquals(PlanResult.Status.FAILED, down.status());
        assertTrue(down.message().contains("no available concrete service"), down.message());
        PlanResult nothing = Both.plan(PlanningInput.builder().composite(quote()).serviceClass(serviceClass("gold", 5, 0.9, 10, 5), 1).build());
        assertEquals(PlanResult.Status.FAILED, nothing.status());
        assertTrue(nothing.message().startsWith("nothing to plan"), nothing.message());
    }

    @Test
    void anUnmanagedTaskAddsNothingToItsCompositesPrediction() {
        // Order with verify managed (r 0.3, a 0.99, c 2) and ship unmanaged: R, A and C are verify's alone
        PlanResult r = Both.plan(PlanningInput.builder().composite(order()).serviceClass(serviceClass("gold", 5, 0.9, 10, 5), 1)
                .service(service("verify-a", VERIFY, 0.3, 0.99, 2, 100)).build());
        assertEquals(PlanResult.Status.OPTIMAL, r.status(), r.message());
        Plan.Prediction p = r.plan().predictions().get("gold");
        assertEquals(0.3, p.responseTime(), 1e-9);
        assertEquals(0.99, p.availability(), 1e-9);
        assertEquals(2.0, p.cost(), 1e-9);
        assertFalse(r.plan().bindings().containsKey(new Plan.Key("gold", SHIP)));
        assertTrue(r.unplanned().isEmpty(), r.unplanned().toString());
    }
}
