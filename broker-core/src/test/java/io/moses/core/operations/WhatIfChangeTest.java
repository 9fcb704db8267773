package io.moses.core.operations;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.model.ConcreteService;
import io.moses.model.Observation;
import io.moses.model.ProviderSla;
import io.moses.model.ServiceClass;
import io.moses.model.TaskRef;
import io.moses.model.User;
import io.moses.optimizer.PlanningInput;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The what-if changes: their two forms, what each does to a planning input, and refusals naming the field. */
class WhatIfChangeTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final TaskRef HOTEL = new TaskRef("Trip", "hotel.findHotel");

    static PlanningInput input() {
        return PlanningInput.builder()
                .serviceClass(new ServiceClass("gold", 1.5, 0.99, 12, 15), 3.0)
                .service(new ConcreteService("hotel-a", HOTEL, URI.create("http://127.0.0.1:1/a"), new ProviderSla(0.1, 0.99, 2.0, 100), null))
                .observed(new Observation.ServiceQos("hotel-a", 0.2, 0.98, 100, Instant.EPOCH))
                .successSamples("hotel-a", new double[] {0.1, 0.3})
                .build();
    }

    static List<WhatIfChange> parse(String json) throws Exception {
        return WhatIfChange.parseAll(JSON.readTree(json));
    }

    @Test
    void textAndJsonFormsAreTheSameChange() throws Exception {
        assertEquals(parse("{\"changes\":[{\"kind\":\"slower\",\"service\":\"hotel-a\",\"factor\":2}]}"), parse("{\"changes\":[\"slower hotel-a 2x\"]}"));
        assertEquals(parse("{\"changes\":[{\"kind\":\"subscriber\",\"class\":\"gold\",\"rate\":5}]}"), parse("{\"changes\":[\"subscriber gold 5\"]}"));
        assertEquals(parse("{\"changes\":[{\"kind\":\"class-sla\",\"class\":\"gold\",\"maxCost\":3}]}"), parse("{\"changes\":[\"class gold maxCost=3\"]}"));
    }

    @Test
    void slowerScalesTheSlaTheObservationAndTheSamples() throws Exception {
        PlanningInput in = parse("{\"changes\":[\"slower hotel-a to 0.5\"]}").get(0).applyTo(input(), Map.of());
        // "to 0.5" from the observed 0.2: a factor of 2.5 on everything the optimizer reads
        assertEquals(0.25, in.services().get(0).sla().responseTime(), 1e-12);
        assertEquals(0.5, in.observed().get("hotel-a").responseTime(), 1e-12);
        assertArrayEquals(new double[] {0.25, 0.75}, in.successSamples().get("hotel-a"), 1e-12);
        assertEquals(0.2, input().observed().get("hotel-a").responseTime(), "the input itself is not changed");
    }

    @Test
    void lessAvailableMultipliesTheUnavailability() throws Exception {
        PlanningInput in = parse("{\"changes\":[\"less-available hotel-a 3x\"]}").get(0).applyTo(input(), Map.of());
        assertEquals(0.97, in.services().get(0).sla().availability(), 1e-12);
        assertEquals(0.94, in.observed().get("hotel-a").availability(), 1e-12);
    }

    @Test
    void loadsDownAndClassSla() throws Exception {
        Map<String, User> users = Map.of("alice", new User("alice", "gold", 2.0, "x"));
        PlanningInput in = input();
        for (WhatIfChange c : parse("{\"changes\":[\"rate alice 0.5\",\"subscriber gold 4\",\"down hotel-a\",\"class gold maxResponseTime=0.7\"]}"))
            in = c.applyTo(in, users);
        assertEquals(3.0 - 2.0 + 0.5 + 4, in.load("gold"), 1e-12);
        assertTrue(in.down().contains("hotel-a"));
        assertEquals(0.7, in.serviceClass("gold").maxResponseTime());
        assertEquals(0.99, in.serviceClass("gold").minAvailability(), "the terms not given stay");
    }

    /** Apply's calls: one admin call per change that has one, from the input before it; a reason for the rest. */
    @Test
    void eachChangeNamesTheAdminCallThatMakesItForReal() throws Exception {
        List<WhatIfChange> c = parse("{\"changes\":[\"down hotel-a\",\"subscriber gold 4\",\"rate alice 0.5\",\"class gold maxCost=3 price=9\","
                + "\"costlier hotel-a 1.5x\",\"costlier hotel-a to 7\",\"slower hotel-a 2x\",\"less-available hotel-a to 0.9\","
                + "\"add hotel-c hotel.findHotel r=0.1 a=0.99 c=1 l=5\"]}");
        PlanningInput in = input();
        assertEquals(Map.of("method", "POST", "path", "/admin/concrete-services/hotel-a/out", "body", Map.of("reason", "what-if applied: down hotel-a")),
                c.get(0).action(in));
        assertEquals(Map.of("method", "POST", "path", "/admin/subscriptions", "body", Map.of("serviceClass", "gold", "rate", 4.0),
                "asks", List.of("user", "password")), c.get(1).action(in));
        assertEquals(Map.of("method", "PUT", "path", "/admin/subscriptions/alice", "body", Map.of("rate", 0.5)), c.get(2).action(in));
        assertEquals(Map.of("method", "PUT", "path", "/admin/classes/gold", "body", Map.of("maxCost", 3.0, "price", 9.0)), c.get(3).action(in));
        // a cost is its provider SLA's: the factor on the cost of the input before the change (2.0)
        assertEquals(Map.of("method", "PUT", "path", "/admin/services/hotel-a", "body", Map.of("cost", 3.0)), c.get(4).action(in));
        assertEquals(Map.of("cost", 7.0), c.get(5).action(in).get("body"));
        for (int i = 6; i < 9; i++) {
            assertEquals(java.util.Set.of("none"), c.get(i).action(in).keySet(), c.get(i).describe());
            assertTrue(c.get(i).action(in).get("none").toString().length() > 20, "says why: " + c.get(i).action(in));
        }
        assertTrue(c.get(8).action(in).get("none").toString().contains("endpoint"), c.get(8).action(in).toString());
    }

    @Test
    void refusalsNameTheField() throws Exception {
        assertEquals("changes: the list is empty; name at least one change",
                assertThrows(IllegalArgumentException.class, () -> parse("{\"changes\":[]}")).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parse("{\"changes\":[\"down a\",\"costlier a -1x\"]}"))
                .getMessage().startsWith("changes[1].factor: must be > 0"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parse("{\"changes\":[\"less-available a to 1.5\"]}"))
                .getMessage().startsWith("changes[0].to:"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parse("{\"changes\":[{\"kind\":\"slower\",\"service\":\"a\",\"factor\":2,\"to\":1}]}"))
                .getMessage().startsWith("changes[0].factor: give either factor or to"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parse("{\"changes\":[\"subscriber gold -1\"]}"))
                .getMessage().startsWith("changes[0].rate: must be >= 0"));
        WhatIfChange unknown = parse("{\"changes\":[\"down hotel-z\"]}").get(0);
        assertEquals("service: no concrete service hotel-z",
                assertThrows(IllegalArgumentException.class, () -> unknown.applyTo(input(), Map.of())).getMessage());
    }
}
