package io.moses.core.composition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.model.Activity;
import io.moses.model.Activity.Choice;
import io.moses.model.Activity.Flow;
import io.moses.model.Activity.Invoke;
import io.moses.model.Activity.Loop;
import io.moses.model.Activity.NoOp;
import io.moses.model.Activity.Sequence;
import io.moses.model.CompositeService;
import io.moses.model.TaskRef;
import io.moses.model.Visits;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The behavioral model of the processes shipped in bpel-processes/ (surefire runs in the module dir). */
class ShippedProcessesModelTest {
    static final Path TRIP_PLANNER = Path.of("../bpel-processes/trip-planner/TripPlanner.bpel");
    static final Path ORDER_CHECK = Path.of("../bpel-processes/order-check/OrderCheck.bpel");
    private static final double EPS = 1e-12;

    private static TaskRef trip(String partnerLink, String operation) {
        return TaskRef.of("TripPlanner", partnerLink, operation);
    }

    @Test
    void tripPlannerTasksInDocumentOrder() {
        CompositeService cs = BehavioralModelBuilder.build(TRIP_PLANNER);
        assertEquals("TripPlanner", cs.name());
        assertEquals("urn:moses:trip-planner", cs.namespace());
        assertEquals(List.of(trip("flight", "findFlight"), trip("hotel", "findHotel"), trip("weather", "getForecast"),
                trip("car", "rentCar"), trip("attraction", "bookAttraction"), trip("payment", "charge")), cs.tasks());
    }

    @Test
    void tripPlannerActivityTree() {
        CompositeService cs = BehavioralModelBuilder.build(TRIP_PLANNER);
        Sequence root = assertInstanceOf(Sequence.class, cs.root());
        assertEquals("/process/sequence[1]", root.id());
        // receive, assign, flow, if, forEach, if, assign, invoke, assign, reply
        List<Activity> c = root.children();
        assertEquals(10, c.size());
        assertEquals(new NoOp("/process/sequence[1]/receive[1]", "receive"), c.get(0));
        assertEquals(new NoOp("/process/sequence[1]/assign[1]", "assign"), c.get(1));

        Flow flow = assertInstanceOf(Flow.class, c.get(2));
        assertEquals("/process/sequence[1]/flow[1]", flow.id());
        assertEquals(List.of(
                new Invoke("/process/sequence[1]/flow[1]/invoke[1]", trip("flight", "findFlight")),
                new Invoke("/process/sequence[1]/flow[1]/invoke[2]", trip("hotel", "findHotel")),
                new Invoke("/process/sequence[1]/flow[1]/invoke[3]", trip("weather", "getForecast"))), flow.branches());

        Choice car = assertInstanceOf(Choice.class, c.get(3));
        assertEquals("/process/sequence[1]/if[1]", car.id());
        assertEquals(Choice.Kind.IF, car.kind());
        assertEquals(2, car.branches().size());
        Sequence withCar = assertInstanceOf(Sequence.class, car.branches().get(0));
        assertEquals(new Invoke("/process/sequence[1]/if[1]/sequence[1]/invoke[1]", trip("car", "rentCar")),
                withCar.children().get(1));
        assertEquals(new NoOp("/process/sequence[1]/if[1]/else[1]/assign[1]", "assign"), car.branches().get(1));

        Loop attractions = assertInstanceOf(Loop.class, c.get(4));
        assertEquals("/process/sequence[1]/forEach[1]", attractions.id());
        assertEquals(Loop.Kind.FOR_EACH, attractions.kind());
        // the scope is its main activity
        Sequence body = assertInstanceOf(Sequence.class, attractions.body());
        assertEquals("/process/sequence[1]/forEach[1]/scope[1]/sequence[1]", body.id());
        assertEquals(new Invoke("/process/sequence[1]/forEach[1]/scope[1]/sequence[1]/invoke[1]",
                trip("attraction", "bookAttraction")), body.children().get(1));

        Choice summary = assertInstanceOf(Choice.class, c.get(5));
        assertEquals("/process/sequence[1]/if[2]", summary.id());
        assertEquals(new Invoke("/process/sequence[1]/invoke[1]", trip("payment", "charge")), c.get(7));
        assertEquals(new NoOp("/process/sequence[1]/reply[1]", "reply"), c.get(9));
    }

    @Test
    void tripPlannerVisits() {
        CompositeService cs = BehavioralModelBuilder.build(TRIP_PLANNER);
        Map<TaskRef, Double> byDefault = Visits.of(cs, Visits.Profile.DEFAULT);
        assertEquals(Map.of(trip("flight", "findFlight"), 1.0, trip("hotel", "findHotel"), 1.0,
                trip("weather", "getForecast"), 1.0, trip("car", "rentCar"), 0.5,
                trip("attraction", "bookAttraction"), 1.0, trip("payment", "charge"), 1.0), byDefault);

        var measured = new Visits.Profile(
                Map.of("/process/sequence[1]/if[1]", List.of(0.3, 0.7), "/process/sequence[1]/if[2]", List.of(0.9, 0.1)),
                Map.of("/process/sequence[1]/forEach[1]", 2.4));
        Map<TaskRef, Double> v = Visits.of(cs, measured);
        assertEquals(0.3, v.get(trip("car", "rentCar")), EPS);
        assertEquals(2.4, v.get(trip("attraction", "bookAttraction")), EPS);
        assertEquals(1.0, v.get(trip("payment", "charge")), EPS);
    }

    @Test
    void orderCheckModel() {
        CompositeService cs = BehavioralModelBuilder.build(ORDER_CHECK);
        TaskRef reserve = TaskRef.of("OrderCheck", "inventory", "reserve");
        TaskRef quote = TaskRef.of("OrderCheck", "shipping", "quote");
        assertEquals("urn:moses:order-check", cs.namespace());
        assertEquals(List.of(reserve, quote), cs.tasks());
        Sequence root = assertInstanceOf(Sequence.class, cs.root());
        Loop loop = assertInstanceOf(Loop.class, root.children().get(2));
        assertEquals(Loop.Kind.WHILE, loop.kind());
        assertEquals("/process/sequence[1]/while[1]", loop.id());
        Choice ship = assertInstanceOf(Choice.class, root.children().get(3));
        // if, elseif, else: three branches, no implicit one
        assertEquals(3, ship.branches().size());
        assertEquals("/process/sequence[1]/if[1]/elseif[1]/assign[1]", ship.branches().get(1).id());
        assertEquals("/process/sequence[1]/if[1]/else[1]/assign[1]", ship.branches().get(2).id());

        Map<TaskRef, Double> v = Visits.of(cs, Visits.Profile.DEFAULT);
        assertEquals(1.0, v.get(reserve), EPS);
        assertEquals(1.0 / 3, v.get(quote), EPS);
        v = Visits.of(cs, new Visits.Profile(Map.of(ship.id(), List.of(0.8, 0.15, 0.05)), Map.of(loop.id(), 2.5)));
        assertEquals(2.5, v.get(reserve), EPS);
        assertEquals(0.8, v.get(quote), EPS);
    }

    @Test
    void sameFileSameModelAndUniqueIds() {
        for (Path p : List.of(TRIP_PLANNER, ORDER_CHECK)) {
            CompositeService a = BehavioralModelBuilder.build(p);
            assertEquals(a, BehavioralModelBuilder.build(p), p + " parsed twice");
            List<String> ids = ModelTrees.ids(a.root());
            assertEquals(ids.size(), ids.stream().distinct().count(), "duplicate ids in " + p + ": " + ids);
            assertTrue(ids.stream().allMatch(id -> id.startsWith("/process/")), ids.toString());
        }
    }
}
