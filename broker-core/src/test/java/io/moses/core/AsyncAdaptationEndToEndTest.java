package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.moses.testing.Waits;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The feedback loop on asynchronous providers (docs/model.md, "Asynchronous tasks"):
 * bpel-processes/quote-async with the QoS Monitor and the optimizer on. A supplier whose callbacks
 * slow from 50 ms to 2 s is observed at 2 s and re-planned around; one that stops calling back is
 * ejected after three callback timeouts, as a provider that is down, and the other answers. The
 * stubs call back as AsyncProvidersEndToEndTest says why.
 *
 * <p>The seed is this test's own, so that what the program must do is certain, not likely
 * (docs/model.md, "The linear program"; one class, load L = 5 req/s, one task visited once, so R
 * is the sum of x_J r_J):
 * <ul>
 * <li>capacity: supplier-a takes at most 3 req/s, supplier-b 4, so supplier-a's share (of calls
 *     it is called first for) is in [0.2, 0.6] in every plan while both are up;
 * <li>both fast: supplier-a costs 0.1, supplier-b 1.9 (C_max 2): the cost term gains 0.3 per unit
 *     of share moved to supplier-a, far more than any difference of a few ms or of one failure in
 *     the other terms, so the plan gives it its capacity, 0.6;
 * <li>supplier-a at 2 s: the R row (R <= (1 - 0.1) 0.6 = 0.54 s) allows it at most 0.54 / r_a of
 *     the calls (0.36 once r_a >= 1.5 s), and the response-time term loses more than 1 per unit
 *     of its share against the cost term's 0.3, so the plan gives it the least the capacity
 *     allows, 0.2: a plan that does not move at all would break the R row.
 * </ul>
 * One broker for both tests: the second starts from the plan the first leads to.
 */
@Tag("e2e")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AsyncAdaptationEndToEndTest {
    static final String TASK = "supplier.requestQuote";
    static final int FAST_MS = 50, SLOW_MS = 2_000;
    /** The seed's callback timeout: above the slow callbacks with a loaded machine's margin, short for the ejection. */
    static final int CALLBACK_TIMEOUT_MS = 3_500;
    /** Above the callback timeout: the never-answered quotes' callbacks time out while their instances still wait. */
    static final int REQUEST_TIMEOUT_MS = 5_000;
    static final String SEED = """
            composite: QuoteAsync
            classes:
              - {name: standard, maxResponseTime: 0.6, minAvailability: 0.95, maxCost: 2.0, price: 3.0}
            users:
              - {name: alice, class: standard, rate: 5.0, password: alice-demo}
              - {name: operator, class: standard, rate: 0.0, password: operator-demo, role: operator}
            services:
              - {name: supplier-a, task: supplier.requestQuote, endpoint: "${STUBS}/stubs/supplier-a", responseTime: 0.05, availability: 0.999, cost: 0.1, maxRate: 3}
              - {name: supplier-b, task: supplier.requestQuote, endpoint: "${STUBS}/stubs/supplier-b", responseTime: 0.05, availability: 0.999, cost: 1.9, maxRate: 4}
            tasks:
              - {task: supplier.requestQuote, callback: quoteReady, callbackTimeout: %s}
            plan:
              reason: both suppliers, until the optimizer's first plan
              bindings:
                - {class: standard, task: supplier.requestQuote, shares: [{implementation: supplier-a, fraction: 0.5}, {implementation: supplier-b, fraction: 0.5}]}
            """.formatted(CALLBACK_TIMEOUT_MS / 1000.0);
    static final Pattern PRICE = Pattern.compile("<(?:\\w+:)?price[^>]*>([^<]*)</");
    static StubServices stubs;
    static ChildProcess broker;
    static String base;
    static int quotes;
    @TempDir static Path work;

    @BeforeAll
    static void start() throws Exception {
        stubs = new StubServices();
        Path seed = work.resolve("seed.yaml");
        Files.writeString(seed, SEED);
        // short periods: the drift rule acts within a period of the slow callbacks' arrival; the
        // invoke timeout is f_j before a failure is seen, kept small beside the callbacks' delays.
        // No Path Analyzer: it counts each callback as one more request of the class, without an
        // invoke, so it would measure the task's visits at 1/2 and halve the capacity rows' load
        broker = stubs.broker(Files.createDirectories(work.resolve("broker")), "--deploy", "../bpel-processes/quote-async", "--seed", seed.toString(),
                "--monitors", "qos,ws", "--monitor-period", "250", "--hold", "1000", "--request-timeout", Integer.toString(REQUEST_TIMEOUT_MS),
                "--invoke-timeout", "2000");
        base = "http://127.0.0.1:" + broker.await(BrokerProcessTest.LISTENING, 90);
        for (String s : new String[] {"supplier-a", "supplier-b"}) callBack(s, FAST_MS);
    }

    @AfterAll
    static void stop() throws Exception {
        if (broker != null) {
            broker.close();
            Files.writeString(Path.of("target/async-adaptation-broker.log"), broker.output());
        }
        if (stubs != null) stubs.close();
    }

    /** The supplier's callbacks after {@code delayMillis}, to the broker as the conversation's user (see the class comment). */
    static void callBack(String supplier, int delayMillis) throws Exception {
        stubs.set(supplier, "{\"latencyMs\":2,\"callbackDelayMillis\":" + delayMillis + ",\"distribution\":\"fixed\",\"callback\":\"always\","
                + "\"callbackAddress\":\"" + base + "/services/QuoteCallbackService\",\"callbackUser\":\"alice\",\"callbackPassword\":\"alice-demo\"}");
    }

    @Test
    @Order(1)
    @Timeout(180) // bounds a hang only
    void aSupplierWhoseCallbacksSlowDownIsSeenSlowAndPlannedAround() throws Exception {
        long t0 = System.nanoTime();
        // the first quotes of a fresh broker are slow (classes loaded, code compiled), and so are the
        // suppliers' first observations: not judged. Then quote until both read fast and the plan
        // gives supplier-a its capacity, as the program must once they do (class comment)
        run(4, 4);
        List<String> failed = new ArrayList<>();
        Waits.until("both suppliers observed fast and supplier-a given its capacity", 90, () -> {
            failed.addAll(failures(round(8, 4)));
            JsonNode services = AsyncMeasurementEndToEndTest.admin(base, "/admin/concrete-services");
            return share(plan(), "supplier-a") > 0.55 && samples(services, "supplier-a") >= 20 && responseTime(services, "supplier-a") < 0.3
                    && responseTime(services, "supplier-b") < 0.3;
        }, AsyncAdaptationEndToEndTest::context);
        assertEquals(List.of(), failed, "quotes failed with both suppliers fast");
        JsonNode before = plan();
        double shareBefore = share(before, "supplier-a");
        assertEquals(0.6, shareBefore, 0.01, "supplier-a's capacity, 3 of 5 req/s: " + before);
        long t1 = System.nanoTime();

        callBack("supplier-a", SLOW_MS);
        // concurrent rounds: each sends supplier-a several quotes at once, whose slow callbacks
        // arrive within a monitor period or two, so its window holds more than the drift rule's
        // five of them when the rule forgets what came before; after a round, the monitor's
        // next periods and a solve are what is waited for
        Waits.Condition moved = () -> plan().path("version").asLong() > before.path("version").asLong() && share(plan(), "supplier-a") < 0.25
                && responseTime(AsyncMeasurementEndToEndTest.admin(base, "/admin/concrete-services"), "supplier-a") >= 1.5;
        Waits.until("supplier-a observed at its 2 s callbacks and a plan that moves quotes away from it", 60, () -> {
            failed.addAll(failures(round(10, 10)));
            return Waits.within(2, moved);
        }, AsyncAdaptationEndToEndTest::context);
        assertEquals(List.of(), failed, "a 2 s callback is within the " + CALLBACK_TIMEOUT_MS + " ms callback timeout and the request timeout");
        long t2 = System.nanoTime();
        JsonNode after = plan();
        double observed = responseTime(AsyncMeasurementEndToEndTest.admin(base, "/admin/concrete-services"), "supplier-a");
        // the least the capacity allows (class comment), from 0.6
        assertEquals(0.2, share(after, "supplier-a"), 0.01, "supplier-a observed at " + observed + " s: " + after);
        assertTrue(observed >= 1.5, "supplier-a's callbacks take 2 s, observed at " + observed + " s");
        List<String> reasons = reasons(before.path("version").asLong());
        assertTrue(reasons.stream().anyMatch(r -> r.contains("concrete service supplier-a: response time")),
                "a plan because supplier-a's response time drifted: " + reasons);

        // the quotes follow the plan: about one in five to supplier-a (smooth round-robin, and
        // every plan made from a 2 s supplier-a gives it the same 0.2)
        long a0 = stubs.requests("supplier-a"), b0 = stubs.requests("supplier-b");
        List<Quote> next = run(20, 5);
        assertEquals(List.of(), failures(next));
        long a = stubs.requests("supplier-a") - a0, b = stubs.requests("supplier-b") - b0;
        assertEquals(20, a + b);
        assertTrue(a >= 2 && a <= 6 && b >= 2 * a, "supplier-a " + a + ", supplier-b " + b + " of 20 quotes; plan " + plan());
        System.out.printf("fast phase %d ms, slowdown to the plan %d ms, 20 quotes %d ms%n", TimeUnit.NANOSECONDS.toMillis(t1 - t0),
                TimeUnit.NANOSECONDS.toMillis(t2 - t1), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t2));
    }

    @Test
    @Order(2)
    @Timeout(180) // bounds a hang only
    void aSupplierThatStopsCallingBackIsEjectedAndTheOtherAnswers() throws Exception {
        // supplier-b carries four fifths of the quotes now (the test above); supplier-a is fast
        // again, but the plan knows it at 2 s: only supplier-b's ejection moves the quotes to it
        callBack("supplier-a", FAST_MS);
        stubs.set("supplier-b", "{\"callback\":\"never\"}");
        long b0 = stubs.requests("supplier-b"), skipped0 = stubs.counter("supplier-b", "callbacksSkipped");
        long version = plan().path("version").asLong();

        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            long sent = System.nanoTime();
            List<Future<Quote>> unanswered = new ArrayList<>();
            for (int i = 0; i < 6; i++) unanswered.add(pool.submit(quote()));
            Waits.until("supplier-b ejected", 30,
                    () -> "ejected".equals(state("supplier-b")), AsyncAdaptationEndToEndTest::context);
            long ejectedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent);
            long reachedB = stubs.requests("supplier-b") - b0;
            assertTrue(reachedB >= 3, reachedB + " of 6 quotes reached supplier-b");
            // by its callbacks' timeouts (its one-way sends were all answered at once), the third
            assertTrue(ejectedAfter >= CALLBACK_TIMEOUT_MS, "ejected " + ejectedAfter + " ms after the quotes were sent");
            assertTrue(broker.output().contains("concrete service supplier-b ejected from selection: 3 consecutive failures"), broker.output());
            // as for a provider that is down: a plan without it, at once
            Waits.until("a plan without supplier-b", 20, () -> plan().path("version").asLong() > version && share(plan(), "supplier-b") == 0
                    && plan().path("reason").asText().contains("supplier-b ejected"), AsyncAdaptationEndToEndTest::context);

            // later quotes are supplier-a's; supplier-b gets its one trial call a second after the
            // ejection at the earliest, which fails (its callback timeout) and doubles the back-off
            long b1 = stubs.requests("supplier-b");
            List<Quote> later = run(8, 4);
            long trials = stubs.requests("supplier-b") - b1;
            assertTrue(trials <= 1, trials + " later quotes reached supplier-b");
            int answeredByA = 0;
            for (Quote q : later)
                if (q.reply().statusCode() == 200 && AsyncProvidersEndToEndTest.price("supplier-a", q.id()).equals(price(q))) answeredByA++;
            assertEquals(later.size() - trials, answeredByA, "later quotes answered by supplier-a: " + later);

            // the quotes supplier-b took were never answered: the request timeout's fault; the others supplier-a's
            int faults = 0;
            for (Future<Quote> f : unanswered) {
                Quote q = f.get(60, TimeUnit.SECONDS);
                if (q.reply().statusCode() == 500) faults++;
                else assertEquals(AsyncProvidersEndToEndTest.price("supplier-a", q.id()), price(q), q.toString());
            }
            assertEquals(reachedB, faults);
            assertTrue(stubs.counter("supplier-b", "callbacksSkipped") - skipped0 >= 3);
            System.out.printf("ejected after %d ms, %d of 6 quotes to supplier-b, %d trial(s) among 8 later quotes, %d ms in all%n", ejectedAfter,
                    reachedB, trials, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent));
        } finally {
            pool.shutdownNow();
        }
    }

    record Quote(String id, HttpResponse<String> reply) {
        @Override
        public String toString() {
            return id + ": " + reply.statusCode() + " " + reply.body();
        }
    }

    static Callable<Quote> quote() {
        String id = "aq-" + (++quotes);
        return () -> new Quote(id, AsyncMeasurementEndToEndTest.quote(base, id));
    }

    /** {@code n} quotes, {@code callers} at a time. */
    static List<Quote> run(int n, int callers) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            List<Future<Quote>> running = new ArrayList<>();
            for (int i = 0; i < n; i++) running.add(pool.submit(quote()));
            List<Quote> out = new ArrayList<>();
            for (Future<Quote> f : running) out.add(f.get(2, TimeUnit.MINUTES));
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    /** The quotes not answered with their supplier's price. */
    static List<String> failures(List<Quote> quotes) {
        List<String> out = new ArrayList<>();
        for (Quote q : quotes)
            if (q.reply().statusCode() != 200 || AsyncProvidersEndToEndTest.quotedBy(q.id(), price(q)) == null) out.add(q.toString());
        return out;
    }

    /** {@link #run} as a check of a wait: a quote that does not come back ends the test, it is not a "not yet". */
    static List<Quote> round(int n, int callers) {
        try {
            return run(n, callers);
        } catch (Exception e) {
            throw new AssertionError(n + " quotes", e);
        }
    }

    /** What a wait that fails prints: the plan, the services, the latest plans' reasons. */
    static String context() {
        try {
            return "plan " + plan() + "; services " + AsyncMeasurementEndToEndTest.admin(base, "/admin/concrete-services") + "; plans " + reasons(0);
        } catch (Exception e) {
            return "the broker did not answer: " + e;
        }
    }

    static String price(Quote q) {
        Matcher m = PRICE.matcher(q.reply().body());
        return m.find() ? m.group(1) : null;
    }

    static JsonNode plan() throws Exception {
        return AsyncMeasurementEndToEndTest.admin(base, "/admin/plan");
    }

    /** The fraction of the class's quotes {@code plan} sends to {@code supplier} first (alone, or first of an alternate). */
    static double share(JsonNode plan, String supplier) {
        double share = 0;
        for (JsonNode b : plan.path("bindings"))
            if (b.path("class").asText().equals("standard") && b.path("task").asText().equals(TASK))
                for (JsonNode s : b.path("shares")) {
                    String impl = s.path("implementation").asText();
                    String first = impl.startsWith("alt(") ? impl.substring(4, impl.indexOf(',')) : impl;
                    if (first.equals(supplier)) share += s.path("fraction").asDouble();
                }
        return share;
    }

    /** The reasons of the plans after {@code version}. */
    static List<String> reasons(long version) throws Exception {
        List<String> out = new ArrayList<>();
        for (JsonNode p : AsyncMeasurementEndToEndTest.admin(base, "/admin/plans?n=50"))
            if (p.path("version").asLong() > version) out.add(p.path("reason").asText());
        return out;
    }

    static JsonNode service(JsonNode services, String name) {
        for (JsonNode s : services) if (s.path("name").asText().equals(name)) return s;
        throw new AssertionError("no concrete service " + name + ": " + services);
    }

    /** The QoS Monitor's response time of {@code name} [s]; NaN while unobserved. */
    static double responseTime(JsonNode services, String name) {
        JsonNode r = service(services, name).path("observed").path("responseTime");
        return r.isNumber() ? r.asDouble() : Double.NaN;
    }

    static long samples(JsonNode services, String name) {
        return service(services, name).path("observed").path("samples").asLong();
    }

    static String state(String name) throws Exception {
        return service(AsyncMeasurementEndToEndTest.admin(base, "/admin/concrete-services"), name).path("state").asText();
    }
}
