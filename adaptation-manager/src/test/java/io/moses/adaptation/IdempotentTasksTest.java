package io.moses.adaptation;

import static io.moses.adaptation.AdaptiveBindingTest.TASK;
import static io.moses.adaptation.AdaptiveBindingTest.by;
import static io.moses.adaptation.AdaptiveBindingTest.client;
import static io.moses.adaptation.AdaptiveBindingTest.invocation;
import static io.moses.adaptation.AdaptiveBindingTest.plan;
import static io.moses.adaptation.AdaptiveBindingTest.service;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.adaptation.TestServices.Behaviour;
import io.moses.model.ConcreteService;
import io.moses.model.Implementation;
import io.moses.model.Plan;
import io.moses.model.TaskRef;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Whether a second call is safe decides the request path (docs/model.md, "Idempotent tasks"):
 * a task that is not idempotent is called once per invoke, whatever the pattern and the failure;
 * an idempotent one survives a provider that hangs. Real HTTP stubs, calls counted at the stubs.
 */
@Tag("e2e")
class IdempotentTasksTest {
    /** Short enough to keep the test quick, long enough for a loaded machine to answer a healthy stub. */
    static final Duration HANG_TIMEOUT = Duration.ofMillis(300);

    @BeforeAll
    static void start() throws Exception {
        AdaptiveBindingTest.start();
    }

    @AfterAll
    static void stop() {
        AdaptiveBindingTest.stop();
    }

    static TestServices stubs() {
        return AdaptiveBindingTest.stubs;
    }

    static AdaptiveBinding binding(Plan plan, List<ConcreteService> services, Set<TaskRef> idempotent, Map<String, Duration> timeouts,
                                   AdaptiveBinding.Options options) {
        AdaptiveBinding b = new AdaptiveBinding(services, plan, client, new ServiceCallLog(256), Duration.ofSeconds(10), timeouts, options);
        b.update(plan, services, TaskTraits.idempotent(idempotent));
        return b;
    }

    static InvokeOutcome call(AdaptiveBinding b) throws Exception {
        return b.invoke(invocation()).toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    static AdaptiveBinding.Options noEjection() {
        return AdaptiveBinding.Options.defaults().withEjectAfter(0).withExplorePeriod(Duration.ZERO);
    }

    /** Every call of the test's stubs, whether it answered yet or not (a hung call counts when it arrives). */
    static int callsOf(List<String> names) {
        return names.stream().mapToInt(n -> stubs().calls(n)).sum();
    }

    static int awaitCalls(List<String> names, int atLeast) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (callsOf(names) < atLeast && System.nanoTime() < deadline) Thread.onSpinWait();
        return callsOf(names);
    }

    @Test
    void aTaskThatIsNotIdempotentIsCalledOnceForOneInvokeInEveryPatternUnderTimeoutsDropsAnd503s() throws Exception {
        int n = 0;
        for (Behaviour failure : List.of(Behaviour.HANG, Behaviour.DROP, Behaviour.REFUSE)) {
            for (Implementation.Pattern pattern : Implementation.Pattern.values()) {
                String first = "once" + n + "a", second = "once" + n + "b", spare = "once" + n + "c";
                n++;
                stubs().set(first, 0, failure);
                stubs().set(second, 0, Behaviour.REPLY);
                stubs().set(spare, 0, Behaviour.REPLY);
                Implementation impl = pattern == Implementation.Pattern.SINGLE ? Implementation.single(first)
                        : pattern == Implementation.Pattern.HEDGED ? Implementation.hedged(first, second, 0.05)
                        : new Implementation(pattern, List.of(first, second));
                List<ConcreteService> services = List.of(service(first), service(second), service(spare));
                AdaptiveBinding b = binding(plan(impl), services, Set.of(), Map.of(first, HANG_TIMEOUT), noEjection());
                InvokeOutcome out = call(b);
                String what = pattern + " under " + failure;
                // a par (from a plan made before the task was declared not idempotent) runs as an
                // alternate that does not move on: the one call that may have been processed is all
                assertInstanceOf(InvokeOutcome.InvokeFailure.class, out, what + ": the call may have been processed, so it fails");
                List<String> all = List.of(first, second, spare);
                // every call of the invoke was sent before it ended; wait only for the first to arrive
                assertEquals(1, awaitCalls(all, 1), what + ": calls at the stubs " + all.stream().map(s -> s + "=" + stubs().calls(s)).toList());
                assertEquals(1, stubs().calls(first), what);
                assertEquals(0, b.retries(), what);
            }
        }
    }

    @Test
    void a503WithASoapFaultIsNotRetriedButOneWithoutIsForATaskThatIsNotIdempotent() throws Exception {
        stubs().set("gw503", 0, Behaviour.REFUSE);
        stubs().set("bare503", 0, Behaviour.UNAVAILABLE);
        stubs().set("after503", 0, Behaviour.REPLY);
        CallOutcome faulted = client.call(stubs().uri("gw503"), "urn:x", invocation().body(), Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
        assertEquals(CallEnd.PROTOCOL, assertInstanceOf(CallOutcome.CallFailure.class, faulted).kind(),
                "a 503 with a SOAP fault may come from a gateway whose backend processed the call");
        CallOutcome bare = client.call(stubs().uri("bare503"), "urn:x", invocation().body(), Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
        assertEquals(CallEnd.UNAVAILABLE, assertInstanceOf(CallOutcome.CallFailure.class, bare).kind());

        AdaptiveBinding gw = binding(plan(Implementation.single("gw503")), List.of(service("gw503"), service("after503")), Set.of(),
                Map.of(), noEjection());
        assertInstanceOf(InvokeOutcome.InvokeFailure.class, call(gw));
        assertEquals(0, stubs().calls("after503"));
        AdaptiveBinding unavailable = binding(plan(Implementation.single("bare503")), List.of(service("bare503"), service("after503")),
                Set.of(), Map.of(), noEjection());
        assertEquals("after503", by(call(unavailable)));
        assertEquals(1, unavailable.retries());
    }

    @Test
    void anIdempotentTaskUnderAProviderThatHangsFailsNoRequest() throws Exception {
        stubs().set("hung", 0, Behaviour.HANG);
        stubs().set("healthy", 0, Behaviour.REPLY);
        List<ConcreteService> services = List.of(service("hung"), service("healthy"));
        Map<String, Duration> timeouts = Map.of("hung", HANG_TIMEOUT);
        // half the requests to the hung provider alone, a quarter each to a par and an alt with it first
        Plan p = new Plan(1, Instant.now(), Map.of(new Plan.Key("gold", TASK), List.of(
                new Plan.Share(Implementation.single("hung"), 0.5),
                new Plan.Share(new Implementation(Implementation.Pattern.PARALLEL, List.of("hung", "healthy")), 0.25),
                new Plan.Share(new Implementation(Implementation.Pattern.ALTERNATE, List.of("hung", "healthy")), 0.25))),
                Map.of(), 0, "test", 0, List.of(), "test");
        AdaptiveBinding b = binding(p, services, Set.of(TASK), timeouts, noEjection());
        List<CompletableFuture<InvokeOutcome>> pending = new ArrayList<>();
        for (int i = 0; i < 16; i++) pending.add(b.invoke(invocation()).toCompletableFuture());
        Map<String, Integer> answeredBy = new HashMap<>();
        for (CompletableFuture<InvokeOutcome> f : pending) {
            InvokeOutcome out = f.get(20, TimeUnit.SECONDS);
            assertInstanceOf(InvokeOutcome.InvokeReply.class, out, "no request fails: " + out);
            answeredBy.merge(out.answeredBy(), 1, Integer::sum);
        }
        assertEquals(Map.of("healthy", 16), answeredBy);
        assertEquals(8, b.retries(), "each request the plan sent to the hung provider alone was sent once more");
    }

    @Test
    void anIdempotentTaskIsSentAtMostOnceMoreAfterACallThatMayHaveBeenProcessed() throws Exception {
        for (String s : List.of("budget1", "budget2", "budget3")) stubs().set(s, 0, Behaviour.DROP);
        List<ConcreteService> services = List.of(service("budget1"), service("budget2"), service("budget3"));
        AdaptiveBinding b = binding(plan(Implementation.single("budget1")), services, Set.of(TASK), Map.of(), noEjection());
        InvokeOutcome.InvokeFailure f = assertInstanceOf(InvokeOutcome.InvokeFailure.class, call(b));
        assertEquals(List.of("budget1", "budget2"), f.tried());
        assertEquals(2, awaitCalls(List.of("budget1", "budget2", "budget3"), 2));
    }

    @Test
    void explorationCallsOnlyIdempotentTasksAndFallsBackToThePlansChoice() throws Exception {
        stubs().set("usual", 0, Behaviour.REPLY);
        stubs().set("unused", 0, Behaviour.HANG);
        List<ConcreteService> services = List.of(service("usual"), service("unused"));
        AtomicLong now = new AtomicLong(1_000_000_000L);
        AdaptiveBinding.Options explore = AdaptiveBinding.Options.defaults().withExplorePeriod(Duration.ofSeconds(2)).withClock(now::get);
        Map<String, Duration> timeouts = Map.of("unused", HANG_TIMEOUT);

        AdaptiveBinding notIdempotent = binding(plan(Implementation.single("usual")), services, Set.of(), timeouts, explore);
        for (int i = 0; i < 3; i++) {
            assertEquals("usual", by(call(notIdempotent)));
            now.addAndGet(10_000_000_000L); // an exploration is due at every call
        }
        assertEquals(0, notIdempotent.explorations());
        assertEquals(0, stubs().calls("unused"), "a task that is not idempotent is not explored with users' requests");

        AdaptiveBinding idempotent = binding(plan(Implementation.single("usual")), services, Set.of(TASK), timeouts, explore);
        assertEquals("usual", by(call(idempotent)), "not explored before a period has passed");
        now.addAndGet(10_000_000_000L);
        assertEquals("usual", by(call(idempotent)), "the explored provider hung: the plan's choice answered");
        assertEquals(1, idempotent.explorations());
        assertEquals(1, stubs().calls("unused"));
        assertEquals(5, stubs().calls("usual"));
    }
}
