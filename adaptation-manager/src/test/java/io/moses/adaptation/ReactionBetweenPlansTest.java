package io.moses.adaptation;

import static io.moses.adaptation.AdaptiveBindingTest.by;
import static io.moses.adaptation.AdaptiveBindingTest.client;
import static io.moses.adaptation.AdaptiveBindingTest.invocation;
import static io.moses.adaptation.AdaptiveBindingTest.plan;
import static io.moses.adaptation.AdaptiveBindingTest.service;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.adaptation.TestServices.Behaviour;
import io.moses.model.ConcreteService;
import io.moses.model.Implementation;
import io.moses.model.Plan;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Outlier ejection, retry of calls that never reached a provider, exploration, bad input. */
@Tag("e2e")
class ReactionBetweenPlansTest {
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

    static AdaptiveBinding binding(Plan plan, List<ConcreteService> services, AdaptiveBinding.Options options) {
        return new AdaptiveBinding(services, plan, client, new ServiceCallLog(256), Duration.ofSeconds(10), Map.of(), options);
    }

    static InvokeOutcome call(AdaptiveBinding b) throws Exception {
        return b.invoke(invocation()).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    static AdaptiveBinding.Options noExploration() {
        return AdaptiveBinding.Options.defaults().withExplorePeriod(Duration.ZERO);
    }

    @Test
    void aCallRefusedWithHttp503IsRetriedAtOnceOnAnotherProviderOfTheTask() throws Exception {
        stubs().set("down1", 0, Behaviour.UNAVAILABLE);
        stubs().set("up1", 0, Behaviour.REPLY);
        AdaptiveBinding b = binding(plan(Implementation.single("down1")), List.of(service("down1"), service("up1")),
                noExploration().withEjectAfter(0));
        for (int i = 0; i < 5; i++) assertEquals("up1", by(call(b)));
        assertEquals(5, b.retries());
        assertEquals(5, stubs().calls("down1"), "every call went to the plan's choice first");
    }

    @Test
    void aCallThatMayHaveBeenProcessedIsNotSentTwice() throws Exception {
        stubs().set("dropper", 0, Behaviour.DROP);
        stubs().set("spare1", 0, Behaviour.REPLY);
        AdaptiveBinding b = binding(plan(Implementation.single("dropper")), List.of(service("dropper"), service("spare1")),
                noExploration().withEjectAfter(0));
        InvokeOutcome.InvokeFailure f = assertInstanceOf(InvokeOutcome.InvokeFailure.class, call(b));
        assertEquals(List.of("dropper"), f.tried());
        assertEquals(0, b.retries());
        assertEquals(0, stubs().calls("spare1"));
    }

    @Test
    void aParallelGroupWhoseMembersAreAllRefusedIsRetriedElsewhere() throws Exception {
        stubs().set("pdown1", 0, Behaviour.UNAVAILABLE);
        stubs().set("pdown2", 0, Behaviour.UNAVAILABLE);
        stubs().set("pup", 0, Behaviour.REPLY);
        AdaptiveBinding b = binding(plan(new Implementation(Implementation.Pattern.PARALLEL, List.of("pdown1", "pdown2"))),
                List.of(service("pdown1"), service("pdown2"), service("pup")), noExploration().withEjectAfter(0));
        assertEquals("pup", by(call(b)));
    }

    @Test
    void consecutiveFailuresEjectAServiceAndItsShareGoesToTheOtherImplementations() throws Exception {
        stubs().set("flaky", 0, Behaviour.DROP);
        stubs().set("steady", 0, Behaviour.REPLY);
        Plan p = new Plan(1, Instant.now(), Map.of(new Plan.Key("gold", AdaptiveBindingTest.TASK), List.of(
                new Plan.Share(Implementation.single("flaky"), 0.5), new Plan.Share(Implementation.single("steady"), 0.5))),
                Map.of(), 0, "test", 0, List.of(), "test");
        AdaptiveBinding b = binding(p, List.of(service("flaky"), service("steady")), noExploration().withEjectAfter(3));
        List<String> ejections = new ArrayList<>();
        b.onEjected((s, why) -> ejections.add(s + ": " + why));
        int failures = 0;
        for (int i = 0; i < 20; i++) if (call(b) instanceof InvokeOutcome.InvokeFailure) failures++;
        assertEquals(3, failures, "three dropped calls (not retried: they may have been processed), then none");
        assertEquals(List.of("flaky: 3 consecutive failures"), ejections);
        assertEquals(java.util.Set.of("flaky"), b.ejected());
        assertEquals(3, stubs().calls("flaky"));

        // a probe that answers does not bring it back; its trial call, after a 1 s back-off, does
        stubs().set("flaky", 0, Behaviour.REPLY);
        assertFalse(b.reinstate("flaky", "probe answered"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!b.ejected().isEmpty() && System.nanoTime() < deadline) assertInstanceOf(InvokeOutcome.InvokeReply.class, call(b));
        assertEquals(java.util.Set.of(), b.ejected());
        assertEquals(4, stubs().calls("flaky"), "one trial call brought it back");
        for (int i = 0; i < 10; i++) assertInstanceOf(InvokeOutcome.InvokeReply.class, call(b));
        assertEquals(9, stubs().calls("flaky"), "half of the next ten calls");
    }

    @Test
    void anEjectedMemberIsLeftOutOfItsGroupAndANewPlanUsingItBringsItBack() throws Exception {
        stubs().set("g1", 0, Behaviour.REPLY);
        stubs().set("g2", 0, Behaviour.REPLY);
        List<ConcreteService> services = List.of(service("g1"), service("g2"));
        AdaptiveBinding b = binding(plan(new Implementation(Implementation.Pattern.ALTERNATE, List.of("g1", "g2"))),
                services, noExploration());
        b.eject("g1", "probe failed");
        for (int i = 0; i < 4; i++) assertEquals("g2", by(call(b)));
        assertEquals(0, stubs().calls("g1"));
        b.update(plan(Implementation.single("g2")), services);
        assertEquals(java.util.Set.of("g1"), b.ejected(), "a plan that does not use it leaves it out");
        b.update(planAt(Instant.now().minusSeconds(60), "g1"), services);
        assertEquals(java.util.Set.of("g1"), b.ejected(), "a plan solved before the ejection does not bring it back");
        b.update(planAt(Instant.now().plusMillis(1), "g1"), services);
        assertTrue(b.ejected().isEmpty(), "a plan solved after the ejection that uses it brings it back");
        assertEquals("g1", by(call(b)));
    }

    static Plan planAt(Instant created, String service) {
        return new Plan(2, created, Map.of(new Plan.Key("gold", AdaptiveBindingTest.TASK),
                List.of(new Plan.Share(Implementation.single(service), 1.0))), Map.of(), 0, "test", 0, List.of(), "test");
    }

    @Test
    void aServiceThePlanDoesNotUseIsExploredAtMostOncePerPeriod() throws Exception {
        stubs().set("planned", 0, Behaviour.REPLY);
        stubs().set("idle", 0, Behaviour.REPLY);
        AtomicLong now = new AtomicLong(1_000_000_000L);
        AdaptiveBinding b = AdaptiveBindingTest.idempotent(binding(plan(Implementation.single("planned")),
                List.of(service("planned"), service("idle")),
                AdaptiveBinding.Options.defaults().withExplorePeriod(Duration.ofSeconds(2)).withClock(now::get)),
                List.of(service("planned"), service("idle")));
        for (int i = 0; i < 5; i++) assertEquals("planned", by(call(b)), "not explored before a period has passed");
        now.addAndGet(2_000_000_000L);
        List<String> by = new ArrayList<>();
        for (int i = 0; i < 5; i++) by.add(by(call(b)));
        assertEquals(List.of("idle", "planned", "planned", "planned", "planned"), by);
        assertEquals(1, b.explorations());
        b.eject("idle", "test");
        now.addAndGet(10_000_000_000L);
        assertEquals("planned", by(call(b)), "an ejected service is not explored");
    }

    @Test
    void callsInFlightAreVisibleWithTheirAge() throws Exception {
        stubs().set("slowpoke", 400, Behaviour.REPLY);
        AdaptiveBinding b = binding(plan(Implementation.single("slowpoke")), List.of(service("slowpoke")), noExploration());
        CompletableFuture<InvokeOutcome> pending = b.invoke(invocation()).toCompletableFuture();
        double[] ages = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (ages == null && System.nanoTime() < deadline) ages = b.inFlight().get("slowpoke");
        assertTrue(ages != null && ages.length == 1, "one call in flight");
        pending.get(5, TimeUnit.SECONDS);
        assertFalse(b.inFlight().containsKey("slowpoke"), "gone once it answered");
    }

    @Test
    void aPlanNamingARemovedServiceKeepsServingWithTheRest() throws Exception {
        stubs().set("kept", 0, Behaviour.REPLY);
        Plan p = new Plan(1, Instant.now(), Map.of(new Plan.Key("gold", AdaptiveBindingTest.TASK), List.of(
                new Plan.Share(Implementation.single("removed"), 0.5), new Plan.Share(Implementation.single("kept"), 0.5))),
                Map.of(), 0, "test", 0, List.of(), "test");
        AdaptiveBinding b = binding(p, List.of(service("kept")), noExploration());
        for (int i = 0; i < 4; i++) assertEquals("kept", by(call(b)));
    }

    @Test
    void garbageAndHangsEndAsFailuresWithinTheTimeoutAndReachTheMonitors() throws Exception {
        stubs().set("garbage", 0, Behaviour.GARBAGE);
        stubs().set("hang", 5_000, Behaviour.REPLY);
        ServiceCallLog log = new ServiceCallLog(64);
        AdaptiveBinding b = new AdaptiveBinding(List.of(service("garbage"), service("hang")),
                new Plan(1, Instant.now(), Map.of(new Plan.Key("gold", AdaptiveBindingTest.TASK), List.of(
                        new Plan.Share(Implementation.single("garbage"), 0.5), new Plan.Share(Implementation.single("hang"), 0.5))),
                        Map.of(), 0, "test", 0, List.of(), "test"),
                client, log, Duration.ofSeconds(5), Map.of("hang", Duration.ofMillis(200)), noExploration().withEjectAfter(0));
        InvokeOutcome first = call(b);
        InvokeOutcome second = call(b);
        assertInstanceOf(InvokeOutcome.InvokeFailure.class, first);
        assertInstanceOf(InvokeOutcome.InvokeFailure.class, second);
        List<ServiceCall> seen = new ArrayList<>();
        log.drain(seen::add);
        assertTrue(seen.stream().anyMatch(o -> o.service().equals("garbage") && o.kind() == CallEnd.PROTOCOL), seen.toString());
        assertTrue(seen.stream().anyMatch(o -> o.service().equals("hang") && o.kind() == CallEnd.TIMEOUT), seen.toString());
        assertTrue(b.inFlight().isEmpty(), "no call left in flight");
        assertEquals(0, b.retries(), "neither may have been processed: not retried");
    }
}
