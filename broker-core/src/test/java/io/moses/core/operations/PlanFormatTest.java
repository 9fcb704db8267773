package io.moses.core.operations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.model.Activity;
import io.moses.model.CompositeService;
import io.moses.model.ConcreteService;
import io.moses.model.Plan;
import io.moses.model.ProviderSla;
import io.moses.model.ServiceClass;
import io.moses.model.TaskRef;
import io.moses.optimizer.OptimizationEngine;
import io.moses.optimizer.PlanningInput;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Plans the optimizer makes, as JSON and back, and as a table. */
class PlanFormatTest {
    static final TaskRef FLIGHT = TaskRef.of("Trip", "flight", "findFlight");
    static final TaskRef HOTEL = TaskRef.of("Trip", "hotel", "findHotel");
    static final TaskRef PAYMENT = TaskRef.of("Trip", "payment", "charge");
    static final OptimizationEngine ENGINE = new OptimizationEngine();

    /** sequence{flow{flight, hotel}, payment}, three services per task, and these classes. */
    static PlanningInput trip(ServiceClass... classes) {
        Activity root = new Activity.Sequence("/seq", List.of(
                new Activity.Flow("/seq/flow", List.of(new Activity.Invoke("/seq/flow/flight", FLIGHT),
                        new Activity.Invoke("/seq/flow/hotel", HOTEL))),
                new Activity.Invoke("/seq/payment", PAYMENT)));
        PlanningInput.Builder b = PlanningInput.builder()
                .composite(new CompositeService("Trip", "urn:moses:trip", List.of(FLIGHT, HOTEL, PAYMENT), root));
        for (TaskRef t : List.of(FLIGHT, HOTEL, PAYMENT))
            for (int j = 0; j < 3; j++)
                b.service(new ConcreteService(t.partnerLink() + j, t, URI.create("http://127.0.0.1:9/" + t.partnerLink() + j),
                        new ProviderSla(0.2 + 0.3 * j, 0.95 + 0.02 * j, 1 + j, 50), null));
        for (ServiceClass k : classes) b.serviceClass(k, 2);
        return b.build();
    }

    @Test
    void jsonRoundTripsAPlanAndTheTableShowsEveryBinding() {
        Plan p = ENGINE.plan(trip(new ServiceClass("gold", 3, 0.95, 20, 10), new ServiceClass("silver", 4, 0.9, 15, 5),
                new ServiceClass("bronze", 5, 0.9, 10, 2))).plan();
        String json = PlanFormat.toJson(p);
        Plan back = PlanFormat.fromJson(json);
        assertEquals(p, back);
        assertEquals(json, PlanFormat.toJson(back));
        String table = PlanFormat.table(p);
        assertTrue(table.contains("solver " + p.solver()), table);
        for (Plan.Key k : p.bindings().keySet()) assertTrue(table.contains(k.task().toString()), k.toString());
        // title and reason, predictions header and 3 classes, bindings header and 3 classes x 3 tasks
        assertEquals(2 + 1 + 3 + 1 + 3 * 3, table.strip().split("\n").length, table);
    }

    @Test
    void aHedgedPairKeepsItsDelayInTheJsonAndTheTableNamesIt() {
        io.moses.model.Implementation hedge = io.moses.model.Implementation.hedged("flight0", "flight1", 0.1523);
        Plan p = new Plan(3, java.time.Instant.parse("2026-11-25T08:00:00Z"), java.util.Map.of(new Plan.Key("gold", FLIGHT),
                List.of(new Plan.Share(hedge, 0.75), new Plan.Share(io.moses.model.Implementation.single("flight0"), 0.25))),
                java.util.Map.of(), 0.5, "clp", 1, List.of(), "test");
        String json = PlanFormat.toJson(p);
        assertTrue(json.contains("\"implementation\":\"hedge(flight0,flight1;d=0.1523)\""), json);
        assertEquals(p, PlanFormat.fromJson(json));
        assertTrue(PlanFormat.table(p).contains("hedge(flight0,flight1;d=0.1523): 0.750"), PlanFormat.table(p));
        var ex = assertThrows(IllegalArgumentException.class, () -> PlanFormat.fromJson(json.replace(";d=0.1523", "")));
        assertTrue(ex.getMessage().contains("hedge(a,b;d=0.25)"), ex.getMessage());
    }

    @Test
    void relaxedPlansKeepTheirClassesAtRisk() {
        Plan p = ENGINE.plan(trip(new ServiceClass("hurried", 0.1, 0.9, 100, 10))).plan();
        assertEquals(1, p.atRisk().size());
        Plan back = PlanFormat.fromJson(PlanFormat.toJson(p));
        assertEquals(p.atRisk(), back.atRisk());
        assertTrue(PlanFormat.table(p).contains("AT RISK hurried"), PlanFormat.table(p));
    }

    @Test
    void noPlanAndBadJson() {
        assertEquals("{\"version\":0}", PlanFormat.toJson(null));
        assertNull(PlanFormat.fromJson("{\"version\":0}"));
        assertTrue(PlanFormat.table(null).startsWith("no plan yet"));
        var ex = assertThrows(IllegalArgumentException.class, () -> PlanFormat.fromJson("{\"version\":1}"));
        assertTrue(ex.getMessage().contains("created"), ex.getMessage());
        ex = assertThrows(IllegalArgumentException.class, () -> PlanFormat.fromJson("[1,"));
        assertTrue(ex.getMessage().contains("not JSON"), ex.getMessage());
        String json = PlanFormat.toJson(ENGINE.plan(trip(new ServiceClass("gold", 3, 0.95, 20, 10))).plan());
        ex = assertThrows(IllegalArgumentException.class, () -> PlanFormat.fromJson(json.replace("\"fraction\":", "\"fraction\":\"x\",\"f\":")));
        assertTrue(ex.getMessage().contains("fraction"), ex.getMessage());
    }
}
