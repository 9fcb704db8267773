package io.moses.adaptation;

import static io.moses.adaptation.AdaptiveBindingTest.TASK;
import static io.moses.adaptation.AdaptiveBindingTest.binding;
import static io.moses.adaptation.AdaptiveBindingTest.invocation;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.adaptation.TestServices.Behaviour;
import io.moses.model.Implementation;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What the binding tells an invocation's trace: its choice, and each call with why it was sent and how it ended. */
class InvokeTraceTest {
    static TestServices stubs;

    @BeforeAll
    static void start() throws Exception {
        stubs = new TestServices();
    }

    @AfterAll
    static void stop() {
        stubs.close();
    }

    static io.moses.model.ConcreteService service(String name) {
        return new io.moses.model.ConcreteService(name, TASK, stubs.uri(name), new io.moses.model.ProviderSla(0.05, 0.99, 1, 1000), null);
    }

    record Ended(CallEnd end, boolean discarded) {}

    static final class Recorded implements InvokeTrace.Call {
        final String provider, traceparent;
        final InvokeTrace.Why why;
        final boolean hedge;
        final CompletableFuture<Ended> ended = new CompletableFuture<>();

        Recorded(String provider, InvokeTrace.Why why, boolean hedge, String traceparent) {
            this.provider = provider;
            this.why = why;
            this.hedge = hedge;
            this.traceparent = traceparent;
        }

        @Override
        public Map<String, String> headers() {
            return Map.of("traceparent", traceparent);
        }

        @Override
        public void ended(CallEnd end, boolean discarded) {
            assertTrue(ended.complete(new Ended(end, discarded)), provider + " ended once");
        }

        Ended awaited() throws Exception {
            return ended.get(5, TimeUnit.SECONDS);
        }
    }

    static final class Recorder implements InvokeTrace {
        final List<String> bound = new CopyOnWriteArrayList<>();
        final List<Recorded> calls = new CopyOnWriteArrayList<>();
        final AtomicInteger n = new AtomicInteger();

        @Override
        public void bound(Implementation implementation, Long planVersion) {
            bound.add(implementation + " of plan " + planVersion);
        }

        @Override
        public Call call(String provider, URI endpoint, InvokeTrace.Why why, boolean hedge) {
            Recorded c = new Recorded(provider, why, hedge,
                    String.format("00-%032x-%016x-01", 1, n.incrementAndGet()));
            calls.add(c);
            return c;
        }

        Recorded call(String provider) {
            return calls.stream().filter(c -> c.provider.equals(provider)).findFirst().orElseThrow();
        }
    }

    static InvokeOutcome invoke(AdaptiveBinding b, Recorder trace) throws Exception {
        return b.invoke(invocation().withTrace(trace)).toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    @Test
    void aOneOutOfNLoserIsDiscardedAndEveryCallCarriesItsOwnHeaders() throws Exception {
        stubs.set("t-slow", 150, Behaviour.REPLY);
        stubs.set("t-fast", 0, Behaviour.REPLY);
        Implementation par = new Implementation(Implementation.Pattern.PARALLEL, List.of("t-slow", "t-fast"));
        AdaptiveBinding b = binding(par, List.of(service("t-slow"), service("t-fast")), new ServiceCallLog(64), Duration.ofSeconds(2));
        Recorder trace = new Recorder();
        assertEquals("t-fast", invoke(b, trace).answeredBy());
        assertEquals(List.of(par + " of plan 1"), trace.bound);
        assertEquals(2, trace.calls.size());
        assertEquals(new Ended(CallEnd.REPLY, false), trace.call("t-fast").awaited());
        assertEquals(new Ended(CallEnd.REPLY, true), trace.call("t-slow").awaited(), "the loser's late reply is discarded");
        for (Recorded c : trace.calls) {
            assertEquals(InvokeTrace.Why.PLAN, c.why);
            assertFalse(c.hedge);
            assertEquals(c.traceparent, stubs.lastTraceparent.get(c.provider), c.provider + " got its call's header");
        }
    }

    @Test
    void aHedgesSecondCallIsSaidToBeOne() throws Exception {
        stubs.set("h-first", 300, Behaviour.REPLY);
        stubs.set("h-second", 0, Behaviour.REPLY);
        Implementation hedge = Implementation.hedged("h-first", "h-second", 0.05);
        AdaptiveBinding b = binding(hedge, List.of(service("h-first"), service("h-second")), new ServiceCallLog(64), Duration.ofSeconds(2));
        Recorder trace = new Recorder();
        assertEquals("h-second", invoke(b, trace).answeredBy());
        assertFalse(trace.call("h-first").hedge);
        assertTrue(trace.call("h-second").hedge);
        assertEquals(new Ended(CallEnd.REPLY, false), trace.call("h-second").awaited());
        assertEquals(new Ended(CallEnd.REPLY, true), trace.call("h-first").awaited(), "the slow first call's reply is discarded");
    }

    @Test
    void aCallSentAgainToAnotherProviderIsARetry() throws Exception {
        stubs.set("r-down", 0, Behaviour.UNAVAILABLE); // 503 without a fault: never processed
        stubs.set("r-up", 0, Behaviour.REPLY);
        AdaptiveBinding b = binding(Implementation.single("r-down"), List.of(service("r-down"), service("r-up")),
                new ServiceCallLog(64), Duration.ofSeconds(2));
        Recorder trace = new Recorder();
        assertEquals("r-up", invoke(b, trace).answeredBy());
        assertEquals(InvokeTrace.Why.PLAN, trace.call("r-down").why);
        assertEquals(InvokeTrace.Why.RETRY, trace.call("r-up").why);
        assertEquals(CallEnd.UNAVAILABLE, trace.call("r-down").awaited().end());
        assertFalse(trace.call("r-down").awaited().discarded(), "a failure is no discarded reply");
        assertEquals(new Ended(CallEnd.REPLY, false), trace.call("r-up").awaited());
    }

    @Test
    void anInvocationIsUntracedUnlessGivenATrace() throws Exception {
        assertEquals(InvokeTrace.NONE, invocation().trace());
        assertEquals(InvokeTrace.NONE, invocation().withProvider(URI.create("http://x/")).trace());
    }
}
