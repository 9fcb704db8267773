package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Two groups of concurrent callers of the echo-pair process, as the tests of the overload bound and
 * of best effort load a broker: the lower group keeps the broker busy (each caller up to a most,
 * backing off briefly after a 503) until the higher group has sent its requests (a fixed number
 * each). Each request counts its reply in its group's {@link Tally}.
 */
final class CallerGroups {
    private CallerGroups() {}

    /** Request {@code i} of caller {@code caller}: sends it, counts its reply, and returns it. */
    interface Call {
        HttpResponse<String> send(int caller, int i) throws Exception;
    }

    /** What runs between the start of the lower group and the start of the higher one. */
    interface Step {
        void run() throws Exception;
    }

    /** Runs both groups; returns once every caller is done. */
    static void run(int lowerCallers, int lowerMost, Call lower, Step beforeHigher, int higherCallers, int higherEach, Call higher)
            throws Exception {
        AtomicBoolean higherDone = new AtomicBoolean();
        ExecutorService callers = Executors.newFixedThreadPool(higherCallers + lowerCallers);
        try {
            List<CompletableFuture<Void>> lowers = new ArrayList<>();
            for (int c = 0; c < lowerCallers; c++) {
                int caller = c;
                lowers.add(CompletableFuture.runAsync(() -> {
                    for (int i = 0; i < lowerMost && !higherDone.get(); i++) {
                        try {
                            if (lower.send(caller, i).statusCode() == 503) Thread.sleep(10); // a client's back-off, part of the load
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }
                }, callers));
            }
            beforeHigher.run();
            List<CompletableFuture<Void>> highers = new ArrayList<>();
            for (int c = 0; c < higherCallers; c++) {
                int caller = c;
                highers.add(CompletableFuture.runAsync(() -> {
                    for (int i = 0; i < higherEach; i++) {
                        try {
                            higher.send(caller, i);
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }
                }, callers));
            }
            try {
                CompletableFuture.allOf(highers.toArray(CompletableFuture[]::new)).get(10, TimeUnit.MINUTES);
            } finally {
                higherDone.set(true);
            }
            CompletableFuture.allOf(lowers.toArray(CompletableFuture[]::new)).get(10, TimeUnit.MINUTES);
        } finally {
            callers.shutdownNow();
        }
    }

    /**
     * Served and refused requests of one group (and the refused that a request of a higher class
     * displaced from the line); a reply other than 200 or 503 fails the test.
     */
    static final class Tally {
        final AtomicInteger served = new AtomicInteger(), refused = new AtomicInteger(), displaced = new AtomicInteger();

        /** A served reply echoes {@code text}. */
        HttpResponse<String> count(HttpResponse<String> r, String text) {
            if (r.statusCode() == 200) {
                assertTrue(r.body().contains(text + " via /left"), r.body());
                served.incrementAndGet();
                return r;
            }
            assertEquals(503, r.statusCode(), r.body());
            if (r.body().contains("was shed for a request of a higher class")) displaced.incrementAndGet();
            refused.incrementAndGet();
            return r;
        }

        /** A refusal says {@code why}. */
        HttpResponse<String> count(HttpResponse<String> r, String text, String why) {
            if (r.statusCode() != 200) {
                assertEquals(503, r.statusCode(), r.body());
                assertTrue(r.body().contains(why), r.body());
            }
            return count(r, text);
        }
    }
}
