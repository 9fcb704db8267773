package io.moses.monitor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.moses.model.TaskRef;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PathAnalyzerTest {
    static final TaskRef CAR = TaskRef.of("Trip", "car", "rentCar");
    static final TaskRef ATTRACTION = TaskRef.of("Trip", "attraction", "bookAttraction");

    @Test
    void visitsAreMeanInvokesPerRequestOverTheWindow() {
        PathAnalyzer p = new PathAnalyzer(4);
        p.record("gold", "Trip", Map.of(CAR, 1, ATTRACTION, 3));
        p.record("gold", "Trip", Map.of(ATTRACTION, 1));
        p.record("gold", "Trip", Map.of(CAR, 1, ATTRACTION, 2));
        p.record("gold", "Trip", Map.of());
        PathAnalyzer.Visits v = p.visits().get("gold");
        assertEquals(0.5, v.perTask().get(CAR), 1e-9);
        assertEquals(1.5, v.perTask().get(ATTRACTION), 1e-9);
        p.record("gold", "Trip", Map.of(CAR, 1)); // the first request leaves the window of 4
        assertEquals(0.5, p.visits().get("gold").perTask().get(CAR), 1e-9);
        assertEquals(0.75, p.visits().get("gold").perTask().get(ATTRACTION), 1e-9);
    }
}
