package io.moses.monitor;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class ReplannerTest {
    @Test
    void aBurstOfAHundredEventsYieldsOneOrTwoSolves() throws Exception {
        List<String> reasons = new CopyOnWriteArrayList<>();
        try (Replanner r = new Replanner(why -> {
            reasons.add(why);
            try {
                Thread.sleep(50); // a solve takes time; events keep coming meanwhile
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        })) {
            List<Thread> sources = new java.util.ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int id = t;
                sources.add(new Thread(() -> { for (int i = 0; i < 25; i++) r.request("event " + id + "/" + i); }));
            }
            sources.forEach(Thread::start);
            for (Thread s : sources) s.join();
            long deadline = System.currentTimeMillis() + 5000;
            while (r.busy() && System.currentTimeMillis() < deadline) Thread.sleep(10);
            assertTrue(r.solves() >= 1 && r.solves() <= 2, "solves: " + r.solves() + " " + reasons);
            assertTrue(reasons.stream().anyMatch(s -> s.contains("more events") && s.contains("; ")), reasons.toString());
        }
    }

    @Test
    void eventsAfterASolveGetANewSolve() throws Exception {
        try (Replanner r = new Replanner(why -> {})) {
            r.request("first");
            while (r.busy()) Thread.sleep(5);
            r.request("second");
            while (r.busy()) Thread.sleep(5);
            assertTrue(r.solves() == 2, "solves " + r.solves());
        }
    }
}
