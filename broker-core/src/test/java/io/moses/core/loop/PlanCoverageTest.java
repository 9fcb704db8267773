package io.moses.core.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.moses.model.Activity;
import io.moses.model.CompositeService;
import io.moses.model.ConcreteService;
import io.moses.model.ProviderSla;
import io.moses.model.TaskRef;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The coverage /health shows says what the optimizer decides of a stateful partner without a provider of all its tasks. */
class PlanCoverageTest {
    static final TaskRef RESERVE = new TaskRef("Hotel", "room.reserve"), CONFIRM = new TaskRef("Hotel", "room.confirm");
    static final CompositeService HOTEL = new CompositeService("Hotel", "urn:hotel", List.of(RESERVE, CONFIRM),
            new Activity.Sequence("s", List.of(new Activity.Invoke("r", RESERVE), new Activity.Invoke("c", CONFIRM))));

    static ConcreteService service(String name, TaskRef task, String endpoint) {
        return new ConcreteService(name, task, URI.create(endpoint), new ProviderSla(0.1, 0.99, 1, 10), null);
    }

    @Test
    void aStatefulPartnerIsPlannedOnlyWhereOneEndpointOffersEveryOneOfItsTasks() {
        List<ConcreteService> split = List.of(service("a-reserve", RESERVE, "http://a/room"), service("b-confirm", CONFIRM, "http://b/room"));
        assertEquals(List.of("Hotel"), PlanCoverage.of(List.of(HOTEL), split, Set.of()).planned(), "not stateful: planned task by task");
        PlanCoverage stateful = PlanCoverage.of(List.of(HOTEL), split, Set.of(), Set.of(RESERVE, CONFIRM));
        assertEquals(Map.of("Hotel", "stateful partner Hotel/room: no provider (endpoint) offers every one of its tasks"
                + " [Hotel/room.reserve, Hotel/room.confirm]"), stateful.unplanned());

        List<ConcreteService> both = List.of(split.get(0), split.get(1), service("a-confirm", CONFIRM, "http://a/room"));
        assertEquals(List.of("Hotel"), PlanCoverage.of(List.of(HOTEL), both, Set.of(), Set.of(RESERVE, CONFIRM)).planned());
        assertEquals(Set.of("Hotel"), PlanCoverage.of(List.of(HOTEL), both, Set.of("a-confirm"), Set.of(RESERVE, CONFIRM)).unplanned().keySet(),
                "a's confirm down: a takes no reserve either, and b has none");
    }
}
