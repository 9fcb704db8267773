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
        PathAnalyzer.ClassVisits v = p.visits().get("gold");
        assertEquals(0.5, v.perTask().get(CAR), 1e-9);
        assertEquals(1.5, v.perTask().get(ATTRACTION), 1e-9);
        p.record("gold", "Trip", Map.of(CAR, 1)); // the first request leaves the window of 4
        assertEquals(0.5, p.visits().get("gold").perTask().get(CAR), 1e-9);
        assertEquals(0.75, p.visits().get("gold").perTask().get(ATTRACTION), 1e-9);
    }

    @Test
    void aRequestThatCannotBeReadChangesNothing() {
        PathAnalyzer p = new PathAnalyzer(2);
        p.record("gold", "Trip", Map.of(CAR, 1));
        p.record("gold", "Trip", Map.of(CAR, 3));
        java.util.Map<TaskRef, Integer> broken = new java.util.HashMap<>();
        broken.put(ATTRACTION, 2);
        broken.put(CAR, null);
        org.junit.jupiter.api.Assertions.assertThrows(NullPointerException.class, () -> p.record("gold", "Trip", broken));
        assertEquals(Map.of(CAR, 2.0), p.visits().get("gold").perTask(), "both requests still in, nothing of the third");
        p.record("gold", "Trip", Map.of(ATTRACTION, 1)); // the first leaves
        assertEquals(Map.of(CAR, 1.5, ATTRACTION, 0.5), p.visits().get("gold").perTask());
        p.record("gold", "Trip", Map.of(ATTRACTION, 1));
        assertEquals(Map.of(ATTRACTION, 1.0), p.visits().get("gold").perTask(), "a task no request in the window names is not seen");
    }

    @Test
    void concurrentRecordsKeepTheWindowWhole() throws Exception {
        PathAnalyzer p = new PathAnalyzer(100);
        int threads = 8, each = 5_000;
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        java.util.List<Thread> started = new java.util.ArrayList<>();
        for (int t = 0; t < threads; t++) {
            String cls = t % 2 == 0 ? "gold" : "silver";
            Thread th = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < each; i++)
                    p.record(cls, "Trip", cls.equals("gold") ? Map.of(CAR, 1, ATTRACTION, 2) : Map.of(ATTRACTION, 3));
            });
            th.start();
            started.add(th);
        }
        go.countDown();
        for (Thread th : started) th.join();
        var visits = p.visits();
        assertEquals(100, visits.get("gold").requests());
        assertEquals(1.0, visits.get("gold").perTask().get(CAR), 1e-9);
        assertEquals(2.0, visits.get("gold").perTask().get(ATTRACTION), 1e-9);
        assertEquals(100, visits.get("silver").requests());
        assertEquals(3.0, visits.get("silver").perTask().get(ATTRACTION), 1e-9);
        assertEquals(null, visits.get("silver").perTask().get(CAR));
    }
}
