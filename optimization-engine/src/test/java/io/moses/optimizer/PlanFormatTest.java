package io.moses.optimizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.model.Plan;
import org.junit.jupiter.api.Test;

class PlanFormatTest {
    @Test
    void jsonRoundTripsAPlanAndTheTableShowsEveryBinding() {
        Plan p = Both.LP.plan(Fixtures.tripPlannerInput(3, 2).build()).plan();
        String json = PlanFormat.toJson(p);
        Plan back = PlanFormat.fromJson(json);
        assertEquals(p, back);
        assertEquals(json, PlanFormat.toJson(back));
        String table = PlanFormat.table(p);
        assertTrue(table.contains("solver lp_solve"), table);
        for (Plan.Key k : p.bindings().keySet()) assertTrue(table.contains(k.task().toString()), k.toString());
        assertEquals(2 + 1 + 3 + 1 + 3 * 6, table.strip().split("\n").length, table);
    }

    @Test
    void relaxedPlansKeepTheirClassesAtRisk() {
        Plan p = new OptimizationEngine(Both.OJALGO, null).plan(PlanningInput.builder()
                .composite(Fixtures.tripPlanner())
                .services(Fixtures.tripPlannerInput(1, 3).build().services())
                .serviceClass(Fixtures.serviceClass("hurried", 0.1, 0.9, 100, 10), 1).build()).plan();
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
        String json = PlanFormat.toJson(Both.LP.plan(Fixtures.tripPlannerInput(1, 2).build()).plan());
        ex = assertThrows(IllegalArgumentException.class, () -> PlanFormat.fromJson(json.replace("\"fraction\":", "\"fraction\":\"x\",\"f\":")));
        assertTrue(ex.getMessage().contains("fraction"), ex.getMessage());
    }
}
