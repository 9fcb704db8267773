package io.moses.monitor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.testing.Waits;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ReplannerTest {
    @Test
    void aBurstOfAHundredEventsYieldsOneOrTwoSolves() throws Exception {
        List<String> reasons = new CopyOnWriteArrayList<>();
        CountDownLatch burstDone = new CountDownLatch(1);
        try (Replanner r = new Replanner(why -> {
            reasons.add(why);
            try {
                // a solve takes time: events keep coming meanwhile, here until the whole burst is in
                // (whatever the scheduler does), so at most one more solve can follow this one
                burstDone.await(30, TimeUnit.SECONDS);
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
            burstDone.countDown();
            awaitIdle(r);
            assertTrue(r.solves() >= 1 && r.solves() <= 2, "solves: " + r.solves() + " " + reasons);
            assertTrue(reasons.stream().anyMatch(s -> s.contains("more events: event ") && s.contains("; ")), reasons.toString());
            // every event is named by one of the reasons, in full or by its subject
            for (int t = 0; t < 4; t++)
                for (int i = 0; i < 25; i++) {
                    String e = "event " + t + "/" + i;
                    assertTrue(reasons.stream().anyMatch(s -> s.matches(".*\\b" + java.util.regex.Pattern.quote(e) + "\\b.*")), e + " in " + reasons);
                }
        }
    }

    @Test
    void eventsAfterASolveGetANewSolve() throws Exception {
        try (Replanner r = new Replanner(why -> {})) {
            r.request("first");
            awaitIdle(r);
            r.request("second");
            awaitIdle(r);
            assertTrue(r.solves() == 2, "solves " + r.solves());
        }
    }

    @Test
    void requestsMadeBeforeItsSolveIsGivenAreSolvedOnceItIs() throws Exception {
        List<String> reasons = new CopyOnWriteArrayList<>();
        try (Replanner r = new Replanner()) {
            r.request("first");
            r.request("second");
            assertFalse(r.busy(), "no solve to run yet");
            assertEquals(0, r.solves());
            r.solveWith(reasons::add);
            awaitIdle(r);
            assertEquals(List.of("first; second"), reasons, "both requests in one solve");
            assertThrows(IllegalStateException.class, () -> r.solveWith(why -> {}), "one solve per re-planner");
        }
    }

    /** Waits until the replanner has nothing left to solve; the deadline only bounds a hang. */
    private static void awaitIdle(Replanner r) {
        Waits.until("the replanner idle", 10, () -> !r.busy());
    }
}
