package io.moses.adaptation;

import static io.moses.adaptation.AdaptiveBindingTest.TASK;
import static io.moses.adaptation.AdaptiveBindingTest.by;
import static io.moses.adaptation.AdaptiveBindingTest.invocation;
import static io.moses.adaptation.AdaptiveBindingTest.plan;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.adaptation.TestServices.Behaviour;
import io.moses.model.ConcreteService;
import io.moses.model.Implementation;
import io.moses.model.ProviderSla;
import io.moses.model.TaskRef;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A provider that hangs is avoided before its calls time out (docs/model.md, "Reaction between
 * plans"): two calls unanswered for its stall time take it out of selection; the calls of a
 * task that is not idempotent run on to their timeout, an idempotent task's go to another
 * provider at once. Real HTTP stubs, calls counted at the stubs.
 */
@Tag("e2e")
class StalledProviderTest {
    /** Beyond any wait here: an answer within the test came through the stall watch, not a timeout. */
    private static final Duration TIMEOUT = Duration.ofMinutes(10);
    private static TestServices stubs;
    private static SoapClient client;

    @BeforeAll
    static void start() throws Exception {
        stubs = new TestServices();
        client = new SoapClient(Duration.ofSeconds(1), null);
    }

    @AfterAll
    static void stop() throws Exception {
        if (client != null) client.close();
        if (stubs != null) stubs.close();
    }

    private static TestServices stubs() {
        return stubs;
    }

    private static ConcreteService service(String name) {
        return new ConcreteService(name, TASK, stubs.uri(name), new ProviderSla(0.05, 0.99, 1, 1000), null);
    }

    /** A binding of {@code hung} (single, by the plan) with {@code spare} registered beside it; the hung one's p99 is 10 ms. */
    private static AdaptiveBinding stalling(String hung, String spare, Set<TaskRef> idempotent, CountDownLatch ejected) {
        return stalling(Implementation.single(hung), hung, spare, idempotent, ejected);
    }

    /** As {@link #stalling(String, String, Set, CountDownLatch)}, the plan binding {@code impl}. */
    private static AdaptiveBinding stalling(Implementation impl, String hung, String spare, Set<TaskRef> idempotent, CountDownLatch ejected) {
        stubs().set(hung, 0, Behaviour.HANG);
        stubs().set(spare, 0, Behaviour.REPLY);
        List<ConcreteService> services = List.of(service(hung), service(spare));
        AdaptiveBinding b = new AdaptiveBinding(services, plan(impl), client, new ServiceCallLog(256),
                Duration.ofSeconds(10), Map.of(hung, TIMEOUT), AdaptiveBinding.Options.defaults());
        b.update(b.plan(), services, TaskTraits.idempotent(idempotent));
        b.expect(hung, 0.010, 100);
        b.onEjected((service, why) -> {
            if (service.equals(hung)) ejected.countDown();
        });
        return b;
    }

    private static CompletableFuture<InvokeOutcome> send(AdaptiveBinding b) throws Exception {
        return b.invoke(invocation()).toCompletableFuture();
    }

    @Test
    void aHungProviderOfATaskThatIsNotIdempotentIsLeftForNewCallsWhileItsCallsRunOn() throws Exception {
        CountDownLatch ejected = new CountDownLatch(1);
        AdaptiveBinding b = stalling("stuckPay", "sparePay", Set.of(), ejected);
        long start = System.nanoTime();
        CompletableFuture<InvokeOutcome> first = send(b), second = send(b);
        assertTrue(ejected.await(10, TimeUnit.SECONDS), "two calls unanswered, no reply: stalled");
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(tookMillis >= 500, "not before its stall time: " + tookMillis + " ms");
        assertTrue(b.ejected().contains("stuckPay"));
        assertFalse(first.isDone() || second.isDone(), "the calls sent are not failed: they may have been processed");
        // the next trial is a second away: this invoke goes to the other provider
        assertEquals("sparePay", by(send(b).get(10, TimeUnit.SECONDS)));
        assertEquals(2, stubs().calls("stuckPay"), "no call went to the stalled provider after the two");
        assertEquals(1, stubs().calls("sparePay"));
        assertFalse(first.isDone() || second.isDone(), "still waiting for their own end");
        first.cancel(true);
        second.cancel(true);
    }

    @Test
    void anIdempotentTasksCallsToAHungProviderGoToAnotherAtOnce() throws Exception {
        CountDownLatch ejected = new CountDownLatch(1);
        AdaptiveBinding b = stalling("stuckSearch", "spareSearch", Set.of(TASK), ejected);
        CompletableFuture<InvokeOutcome> first = send(b), second = send(b);
        InvokeOutcome one = first.get(60, TimeUnit.SECONDS), two = second.get(60, TimeUnit.SECONDS); // 60 s: a hang guard only
        assertEquals("spareSearch", by(one), "answered by the other provider, not after the hung one's timeout");
        assertEquals("spareSearch", by(two));
        assertEquals(2, b.abandoned(), "both calls to the hung provider abandoned: their invokes went on without them");
        assertTrue(ejected.await(1, TimeUnit.SECONDS));
        assertEquals(2, stubs().calls("stuckSearch"), "each call sent once to the hung provider");
        assertEquals(2, stubs().calls("spareSearch"), "and once to the other");
        assertInstanceOf(InvokeOutcome.InvokeReply.class, send(b).get(10, TimeUnit.SECONDS));
    }

    @Test
    void anAlternatesHungFirstMemberIsLeftForTheNextAtOnce() throws Exception {
        // no provider beside the alternate's two: the invoke goes on within the implementation
        CountDownLatch ejected = new CountDownLatch(1);
        AdaptiveBinding b = stalling(new Implementation(Implementation.Pattern.ALTERNATE, List.of("stuckAlt", "nextAlt")),
                "stuckAlt", "nextAlt", Set.of(TASK), ejected);
        CompletableFuture<InvokeOutcome> first = send(b), second = send(b);
        assertEquals("nextAlt", by(first.get(60, TimeUnit.SECONDS)));
        assertEquals("nextAlt", by(second.get(60, TimeUnit.SECONDS)));
        assertEquals(2, stubs().calls("stuckAlt"));
        assertEquals(2, b.abandoned(), "both calls abandoned, neither failed");
    }

    @Test
    void aSingleCallThatWaitsLongStallsNothing() throws Exception {
        CountDownLatch ejected = new CountDownLatch(1);
        AdaptiveBinding b = stalling("slowOne", "spareOne", Set.of(TASK), ejected);
        stubs().set("slowOne", 1500, Behaviour.REPLY);
        assertEquals("slowOne", by(send(b).get(10, TimeUnit.SECONDS)), "one call alone is a slow call, not a hang");
        assertEquals(1, ejected.getCount());
        assertTrue(b.ejected().isEmpty());
    }
}
