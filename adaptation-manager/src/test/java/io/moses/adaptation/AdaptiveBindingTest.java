package io.moses.adaptation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.adaptation.TestServices.Behaviour;
import io.moses.model.ConcreteService;
import io.moses.model.Implementation;
import io.moses.model.PayloadMapping;
import io.moses.model.Plan;
import io.moses.model.ProviderSla;
import io.moses.model.TaskRef;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

class AdaptiveBindingTest {
    static final TaskRef TASK = TaskRef.of("Trip", "flight", "findFlight");
    static TestServices stubs;
    static SoapClient client = new SoapClient(Duration.ofSeconds(1), null);

    @BeforeAll
    static void start() throws Exception {
        stubs = new TestServices();
    }

    @AfterAll
    static void stop() {
        stubs.close();
    }

    static ConcreteService service(String name) {
        return service(name, null);
    }

    static ConcreteService service(String name, PayloadMapping mapping) {
        return new ConcreteService(name, TASK, stubs.uri(name), new ProviderSla(0.05, 0.99, 1, 1000), mapping);
    }

    static Plan plan(Implementation impl) {
        return new Plan(1, Instant.now(), Map.of(new Plan.Key("gold", TASK), List.of(new Plan.Share(impl, 1.0))),
                Map.of(), 0, "test", 0, List.of(), "test");
    }

    static Invocation invocation() throws Exception {
        Document d = Xml.parse("<f:findFlight xmlns:f='urn:moses:task:flight'><f:to>Rome</f:to></f:findFlight>".getBytes());
        return new Invocation(TASK, "gold", "urn:findFlight", d.getDocumentElement(), null);
    }

    /** A binding for {@link #TASK}, a search: idempotent, so its patterns may call a second provider. */
    static AdaptiveBinding binding(Implementation impl, List<ConcreteService> services, ServiceCallLog log, Duration timeout) {
        return idempotent(new AdaptiveBinding(services, plan(impl), client, log, timeout, Map.of()), services);
    }

    /** Declares {@link #TASK} idempotent on {@code b}, keeping its plan. */
    static AdaptiveBinding idempotent(AdaptiveBinding b, List<ConcreteService> services) {
        b.update(b.plan(), services, TaskTraits.idempotent(java.util.Set.of(TASK)));
        return b;
    }

    static String by(InvokeOutcome o) {
        Element body = ((InvokeOutcome.InvokeReply) o).body();
        return body.getTextContent().trim();
    }

    @Test
    void parallelAnswersWithTheFastestAndObservesTheRest() throws Exception {
        stubs.set("slow", 200, Behaviour.REPLY);
        stubs.set("fast", 20, Behaviour.REPLY);
        ServiceCallLog log = new ServiceCallLog(64);
        AdaptiveBinding b = binding(new Implementation(Implementation.Pattern.PARALLEL, List.of("slow", "fast")),
                List.of(service("slow"), service("fast")), log, Duration.ofSeconds(2));
        b.invoke(invocation()).toCompletableFuture().get(5, TimeUnit.SECONDS); // warm the connections
        InvokeOutcome o = b.invoke(invocation()).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertEquals("fast", by(o));
        assertEquals("fast", o.answeredBy());
        // not waiting for the 200 ms member: its reply comes later and is discarded, but its
        // latency is observed as its own (a cancelled loser would read as the winner's time);
        // no wall-clock upper bound, which a loaded 2-core machine breaks
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        List<ServiceCall> seen = new ArrayList<>();
        while (seen.size() < 4 && System.nanoTime() < deadline) log.drain(seen::add);
        assertTrue(seen.stream().anyMatch(x -> x.service().equals("fast") && x.winner() && x.kind() == CallEnd.REPLY), seen.toString());
        assertTrue(seen.stream().anyMatch(x -> x.service().equals("slow") && !x.winner() && x.kind() == CallEnd.REPLY
                && x.nanos() >= TimeUnit.MILLISECONDS.toNanos(200)), "slow call observed with its own reply: " + seen);
    }

    @Test
    void parallelReturnsTheSlowReplyWhenTheFastOneFails() throws Exception {
        stubs.set("slow2", 150, Behaviour.REPLY);
        stubs.set("broken", 10, Behaviour.FAULT);
        AdaptiveBinding b = binding(new Implementation(Implementation.Pattern.PARALLEL, List.of("broken", "slow2")),
                List.of(service("broken"), service("slow2")), new ServiceCallLog(64), Duration.ofSeconds(2));
        InvokeOutcome o = b.invoke(invocation()).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertEquals("slow2", by(o));
    }

    @Test
    void alternateMovesOnAtAFailureAndNamesEveryServiceWhenAllFail() throws Exception {
        stubs.set("first", 0, Behaviour.DROP);
        stubs.set("second", 0, Behaviour.REPLY);
        AdaptiveBinding b = binding(new Implementation(Implementation.Pattern.ALTERNATE, List.of("first", "second")),
                List.of(service("first"), service("second")), new ServiceCallLog(64), Duration.ofSeconds(2));
        assertEquals("second", by(b.invoke(invocation()).toCompletableFuture().get(5, TimeUnit.SECONDS)));

        stubs.set("second", 0, Behaviour.FAULT);
        InvokeOutcome o = b.invoke(invocation()).toCompletableFuture().get(5, TimeUnit.SECONDS);
        InvokeOutcome.InvokeFailure f = assertInstanceOf(InvokeOutcome.InvokeFailure.class, o);
        assertEquals(List.of("first", "second"), f.tried());
        assertTrue(f.reason().contains("flight.findFlight") && f.reason().contains("first") && f.reason().contains("second is broken"), f.reason());
    }

    @Test
    void timeoutsAreHonoured() throws Exception {
        stubs.set("sleepy", 1000, Behaviour.REPLY);
        stubs.set("awake", 0, Behaviour.REPLY);
        ServiceCallLog log = new ServiceCallLog(64);
        AdaptiveBinding b = idempotent(new AdaptiveBinding(List.of(service("sleepy"), service("awake")),
                plan(new Implementation(Implementation.Pattern.ALTERNATE, List.of("sleepy", "awake"))), client,
                log, Duration.ofSeconds(5), Map.of("sleepy", Duration.ofMillis(150))), List.of(service("sleepy"), service("awake")));
        long start = System.nanoTime();
        InvokeOutcome o = b.invoke(invocation()).toCompletableFuture().get(5, TimeUnit.SECONDS);
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertEquals("awake", by(o));
        assertTrue(ms >= 150, "moved on only after the 150 ms timeout, took " + ms);
        // it moved on because of sleepy's own 150 ms timeout: under the 5 s default sleepy's 1 s reply would have come
        List<ServiceCall> seen = new java.util.ArrayList<>();
        log.drain(seen::add);
        ServiceCall sleepy = seen.stream().filter(x -> x.service().equals("sleepy")).findFirst().orElseThrow();
        assertEquals(CallEnd.TIMEOUT, sleepy.kind(), seen.toString());
    }

    @Test
    void payloadIsMappedToTheConcreteInterfaceAndBack() throws Exception {
        stubs.set("other", 0, Behaviour.REPLY);
        PayloadMapping m = new PayloadMapping("searchFlights", "urn:b:searchFlights",
                Map.of("{urn:moses:task:flight}findFlight", "{urn:b:flight}searchFlights", "{urn:moses:task:flight}*", "{urn:b:flight}*"),
                Map.of("{urn:test:reply}answer", "{urn:moses:task:flight}findFlightResponse"));
        AdaptiveBinding b = binding(Implementation.single("other"), List.of(service("other", m)), new ServiceCallLog(64), Duration.ofSeconds(2));
        InvokeOutcome o = b.invoke(invocation()).toCompletableFuture().get(5, TimeUnit.SECONDS);
        String sent = stubs.lastRequest.get("other");
        assertTrue(sent.contains("searchFlights") && sent.contains("urn:b:flight") && !sent.contains("urn:moses:task:flight"), sent);
        Element reply = ((InvokeOutcome.InvokeReply) o).body();
        assertEquals("findFlightResponse", reply.getLocalName());
        assertEquals("urn:moses:task:flight", reply.getNamespaceURI());
    }

    @Test
    void realizedSharesFollowThePlanWithinOnePoint() {
        java.util.Random random = new java.util.Random(42);
        for (int round = 0; round < 20; round++) {
            int n = 2 + random.nextInt(4);
            double[] w = new double[n];
            double sum = 0;
            for (int i = 0; i < n; i++) sum += w[i] = random.nextDouble();
            List<Plan.Share> shares = new ArrayList<>();
            List<ConcreteService> services = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                services.add(service("s" + i));
                shares.add(new Plan.Share(Implementation.single("s" + i), w[i] / sum));
            }
            Plan p = new Plan(1, Instant.now(), Map.of(new Plan.Key("gold", TASK), shares), Map.of(), 0, "t", 0, List.of(), "t");
            AdaptiveBinding b = new AdaptiveBinding(services, p, client, new ServiceCallLog(2), Duration.ofSeconds(1), Map.of());
            int[] count = new int[n];
            for (int k = 0; k < 10_000; k++) count[Integer.parseInt(b.pick("gold", TASK).members().get(0).substring(1))]++;
            for (int i = 0; i < n; i++)
                assertEquals(w[i] / sum, count[i] / 10_000.0, 0.01, "share of s" + i + " in round " + round);
        }
    }

    @Test
    void aNewPlanReplacesTheOldOneAtOnce() throws Exception {
        stubs.set("a", 0, Behaviour.REPLY);
        stubs.set("b", 0, Behaviour.REPLY);
        List<ConcreteService> services = List.of(service("a"), service("b"));
        AdaptiveBinding binding = binding(Implementation.single("a"), services, new ServiceCallLog(64), Duration.ofSeconds(2));
        assertEquals("a", by(binding.invoke(invocation()).toCompletableFuture().get(5, TimeUnit.SECONDS)));
        binding.update(plan(Implementation.single("b")), services);
        assertEquals("b", by(binding.invoke(invocation()).toCompletableFuture().get(5, TimeUnit.SECONDS)));
    }

    @Test
    void concurrencyPerServiceIsBoundedAndAnAlternateMovesOn() throws Exception {
        stubs.set("busy", 400, Behaviour.REPLY);
        stubs.set("spare", 0, Behaviour.REPLY);
        AdaptiveBinding b = new AdaptiveBinding(List.of(service("busy"), service("spare")),
                plan(new Implementation(Implementation.Pattern.ALTERNATE, List.of("busy", "spare"))), client,
                new ServiceCallLog(64), Duration.ofSeconds(5), Map.of(), 2);
        List<java.util.concurrent.CompletableFuture<InvokeOutcome>> calls = new ArrayList<>();
        for (int i = 0; i < 3; i++) calls.add(b.invoke(invocation()).toCompletableFuture());
        List<String> answered = new ArrayList<>();
        for (var c : calls) answered.add(by(c.get(5, TimeUnit.SECONDS)));
        java.util.Collections.sort(answered);
        assertEquals(List.of("busy", "busy", "spare"), answered, "the third call found busy full and went to spare");
    }

    @Test
    void aCallIsStampedOnTheBindingsClockTheOneTheQosMonitorReads() throws Exception {
        stubs.set("clocked", 0, Behaviour.REPLY);
        java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong(42_000_000_000L);
        ServiceCallLog log = new ServiceCallLog(64);
        List<ConcreteService> services = List.of(service("clocked"));
        AdaptiveBinding b = new AdaptiveBinding(services, plan(Implementation.single("clocked")), client, log, Duration.ofSeconds(2),
                Map.of(), AdaptiveBinding.Options.defaults().withClock(clock::get));
        assertEquals("clocked", by(b.invoke(invocation()).toCompletableFuture().get(5, TimeUnit.SECONDS)));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        List<ServiceCall> seen = new ArrayList<>();
        while (seen.isEmpty() && System.nanoTime() < deadline) log.drain(seen::add);
        assertEquals(1, seen.size(), seen.toString());
        assertEquals(42_000_000_000L, seen.get(0).atNanos(), "the end of the call, on the binding's clock");
        assertEquals(0, seen.get(0).nanos(), "its latency, on the same clock (which did not move)");
    }
}
