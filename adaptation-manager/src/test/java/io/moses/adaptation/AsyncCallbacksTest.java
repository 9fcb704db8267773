package io.moses.adaptation;

import static io.moses.adaptation.AdaptiveBindingTest.TASK;
import static io.moses.adaptation.AdaptiveBindingTest.client;
import static io.moses.adaptation.AdaptiveBindingTest.invocation;
import static io.moses.adaptation.AdaptiveBindingTest.plan;
import static io.moses.adaptation.AdaptiveBindingTest.service;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.adaptation.TestServices.Behaviour;
import io.moses.model.Callback;
import io.moses.model.ConcreteService;
import io.moses.model.Implementation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * An asynchronous task is observed by its callback (docs/model.md, "Asynchronous tasks"): the
 * one-way send's reply says nothing, the callback reaching the instance is the call's reply,
 * timed from the request, and none within the timeout is its failure, which ejects the provider
 * like any other. Real HTTP stubs.
 */
@Tag("e2e")
class AsyncCallbacksTest {
    static final String CALLBACK = "quoteReady";

    @BeforeAll
    static void start() throws Exception {
        AdaptiveBindingTest.start();
    }

    @AfterAll
    static void stop() {
        AdaptiveBindingTest.stop();
    }

    static AdaptiveBinding asynchronous(String name, ServiceCallLog log, Duration timeout, int ejectAfter) {
        List<ConcreteService> services = List.of(service(name));
        AdaptiveBinding b = new AdaptiveBinding(services, plan(Implementation.single(name)), client, log, Duration.ofSeconds(5), Map.of(),
                AdaptiveBinding.Options.defaults().withEjectAfter(ejectAfter));
        b.update(b.plan(), services, new TaskTraits(Set.of(), Set.of(), Map.of(TASK, new Callback(CALLBACK, timeout))));
        return b;
    }

    /** Sends one request for instance {@code instance}, as the engine does: invoke, then told it was sent. */
    static void send(AdaptiveBinding b, long instance) throws Exception {
        Invocation inv = invocation();
        InvokeOutcome out = b.invoke(inv).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertInstanceOf(InvokeOutcome.InvokeReply.class, out);
        b.sent(instance, inv, out);
    }

    /** The calls logged until {@code n} are, or the deadline (which only bounds a hang). */
    static List<ServiceCall> drain(ServiceCallLog log, int n) {
        List<ServiceCall> seen = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (seen.size() < n && System.nanoTime() < deadline) log.drain(seen::add);
        return seen;
    }

    @Test
    void theCallbackIsTheCallsReplyTimedFromTheRequestAndTheSendAloneIsNotObserved() throws Exception {
        AdaptiveBindingTest.stubs.set("async-a", 0, Behaviour.REPLY);
        ServiceCallLog log = new ServiceCallLog(64);
        AdaptiveBinding b = asynchronous("async-a", log, Duration.ofSeconds(10), 3);
        long before = System.nanoTime();
        send(b, 7);
        assertEquals(1, b.callbacksAwaited());
        assertEquals(List.of(), drain(log, 0), "the send's own reply is not an observation");
        b.received(8, TASK.composite(), TASK.partnerLink(), CALLBACK, null); // another instance's: nothing awaited there
        b.received(7, TASK.composite(), TASK.partnerLink(), "somethingElse", null);
        assertEquals(1, b.callbacksAwaited());
        Thread.sleep(60); // the callback's delay, the thing measured
        b.received(7, TASK.composite(), TASK.partnerLink(), CALLBACK, null);
        long elapsed = System.nanoTime() - before;
        List<ServiceCall> seen = drain(log, 1);
        assertEquals(1, seen.size(), seen.toString());
        ServiceCall c = seen.get(0);
        assertEquals("async-a", c.service());
        assertEquals(CallEnd.REPLY, c.kind());
        assertEquals("gold", c.serviceClass());
        assertTrue(c.nanos() >= TimeUnit.MILLISECONDS.toNanos(60) && c.nanos() <= elapsed, "timed from the request to the callback: " + c.nanos());
        assertEquals(0, b.callbacksAwaited());
        assertEquals(1, b.lateCallbacks(), "instance 8's callback came with none awaited");
    }

    @Test
    void noCallbackWithinTheTimeoutIsAFailureThatEjectsAndALateOneIsCounted() throws Exception {
        AdaptiveBindingTest.stubs.set("async-mute", 0, Behaviour.REPLY);
        ServiceCallLog log = new ServiceCallLog(64);
        AdaptiveBinding b = asynchronous("async-mute", log, Duration.ofMillis(100), 2);
        send(b, 1);
        send(b, 2);
        List<ServiceCall> seen = drain(log, 2);
        assertEquals(List.of(CallEnd.TIMEOUT, CallEnd.TIMEOUT), seen.stream().map(ServiceCall::kind).toList());
        assertTrue(b.ejected().contains("async-mute"), "two callbacks missed in a row: " + b.ejected());
        b.received(1, TASK.composite(), TASK.partnerLink(), CALLBACK, null);
        assertEquals(1, b.lateCallbacks());
        assertEquals(List.of(), drain(log, 0), "a late callback is no observation");
    }

    @Test
    void aLateCallbackSendsTheCallToThePlansAlternateAndTheFirstProvidersCallbackIsDiscarded() throws Exception {
        AdaptiveBindingTest.stubs.set("late-a", 0, Behaviour.REPLY);
        AdaptiveBindingTest.stubs.set("late-b", 0, Behaviour.REPLY);
        ServiceCallLog log = new ServiceCallLog(64);
        List<ConcreteService> services = List.of(service("late-a"), service("late-b"));
        AdaptiveBinding b = new AdaptiveBinding(services, plan(new Implementation(Implementation.Pattern.ALTERNATE, List.of("late-a", "late-b"))),
                client, log, Duration.ofSeconds(5), Map.of(), AdaptiveBinding.Options.defaults());
        b.update(b.plan(), services, new TaskTraits(Set.of(TASK), Set.of(), Map.of(TASK, new Callback(CALLBACK, Duration.ofSeconds(1)))));
        org.w3c.dom.Document d = Xml.parse(("<f:findFlight xmlns:f='urn:moses:task:flight' xmlns:wsa='http://www.w3.org/2005/08/addressing'>"
                + "<f:replyTo><wsa:EndpointReference><wsa:Address>http://broker:8080/services/QuoteService</wsa:Address></wsa:EndpointReference>"
                + "</f:replyTo></f:findFlight>").getBytes());
        Invocation inv = new Invocation(TASK, "gold", "urn:findFlight", d.getDocumentElement(), null)
                .withReplyTo(ReplyTo.at("http://broker:8080/services/"));
        String first = inv.replyTo().call();
        InvokeOutcome out = b.invoke(inv).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals("late-a", out.answeredBy());
        assertTrue(AdaptiveBindingTest.stubs.lastRequest.get("late-a").contains("/services/QuoteService?moses-call=" + first),
                "the request's reply address names its call: " + AdaptiveBindingTest.stubs.lastRequest.get("late-a"));
        b.sent(1, inv, out);

        List<ServiceCall> seen = drain(log, 1);
        assertEquals(List.of(CallEnd.TIMEOUT), seen.stream().map(ServiceCall::kind).toList());
        assertEquals("late-a", seen.get(0).service());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (AdaptiveBindingTest.stubs.lastRequest.get("late-b") == null || b.callbacksAwaited() == 0) {
            assertTrue(System.nanoTime() < deadline, "the late call was not sent to the alternate");
            Thread.onSpinWait();
        }
        String resent = AdaptiveBindingTest.stubs.lastRequest.get("late-b");
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("moses-call=([A-Za-z0-9_-]+)").matcher(resent);
        assertTrue(m.find(), resent);
        String second = m.group(1);
        assertTrue(!second.equals(first), "the second call has a number of its own");
        assertEquals(1, b.lateResends());

        assertTrue(b.superseded(first), "the first provider's callback, late, is discarded");
        assertTrue(b.superseded(first), "every time it comes");
        assertEquals(2, b.discardedCallbacks());
        assertTrue(!b.superseded(second));
        b.received(1, TASK.composite(), TASK.partnerLink(), CALLBACK, second);
        List<ServiceCall> answered = drain(log, 1);
        assertEquals(1, answered.size(), answered.toString());
        assertEquals("late-b", answered.get(0).service());
        assertEquals(CallEnd.REPLY, answered.get(0).kind());
        assertEquals(0, b.callbacksAwaited());
        assertEquals(0, b.lateCallbacks());
    }
}
