package io.moses.core.loop;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.model.ConcreteService;
import io.moses.model.Implementation;
import io.moses.model.Plan;
import io.moses.model.ProviderSla;
import io.moses.model.TaskRef;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The broker solves at start unless the plan in force was made by the optimizer for the services registered now. */
class StartPlanTest {
    static final TaskRef FLIGHT = TaskRef.of("Trip", "flight", "findFlight");
    static final TaskRef HOTEL = TaskRef.of("Trip", "hotel", "findHotel");

    static ConcreteService service(String name, TaskRef task) {
        return new ConcreteService(name, task, URI.create("http://127.0.0.1:1/" + name), new ProviderSla(0.1, 0.99, 1, 100), null);
    }

    static Plan plan(String solver, String flight, String hotel) {
        return new Plan(3, Instant.now(), Map.of(
                new Plan.Key("gold", FLIGHT), List.of(new Plan.Share(Implementation.single(flight), 1.0)),
                new Plan.Key("gold", HOTEL), List.of(new Plan.Share(Implementation.single(hotel), 1.0))),
                Map.of(), 0.5, solver, 1, List.of(), "test");
    }

    @Test
    void solvesWhenThePlanIsMissingHandWrittenStaleOrIncomplete() {
        List<ConcreteService> services = List.of(service("f1", FLIGHT), service("f2", FLIGHT), service("h1", HOTEL));
        assertTrue(FeedbackLoop.startReason(null, services).contains("no plan"));
        assertTrue(FeedbackLoop.startReason(plan("seed", "f1", "h1"), services).contains("not made by the optimizer"));
        assertTrue(FeedbackLoop.startReason(plan("lp_solve", "f1", "gone"), services).contains("gone"));
        List<ConcreteService> more = List.of(service("f1", FLIGHT), service("h1", HOTEL), service("c1", TaskRef.of("Trip", "car", "rent")));
        assertTrue(FeedbackLoop.startReason(plan("lp_solve", "f1", "h1"), more).contains("binds no class"));
        assertNull(FeedbackLoop.startReason(plan("lp_solve", "f2", "h1"), services));
        assertNull(FeedbackLoop.startReason(plan("ojAlgo", "f1", "h1"), services));
        assertTrue(FeedbackLoop.startReason(plan("static", "f1", "h1"), services).contains("not made by the optimizer"));
    }
}
