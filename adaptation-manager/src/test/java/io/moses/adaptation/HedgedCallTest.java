package io.moses.adaptation;

import static io.moses.adaptation.AdaptiveBindingTest.TASK;
import static io.moses.adaptation.AdaptiveBindingTest.by;
import static io.moses.adaptation.AdaptiveBindingTest.invocation;
import static io.moses.adaptation.AdaptiveBindingTest.plan;
import static io.moses.adaptation.AdaptiveBindingTest.service;
import static io.moses.adaptation.IdempotentTasksTest.binding;
import static io.moses.adaptation.IdempotentTasksTest.call;
import static io.moses.adaptation.IdempotentTasksTest.noEjection;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.adaptation.TestServices.Behaviour;
import io.moses.model.ConcreteService;
import io.moses.model.Implementation;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * hedge(a,b;d) on the request path (docs/model.md, "Hedged requests"): b is called only when a has
 * not answered after d or has failed; the first reply wins. Real HTTP stubs, calls counted at the stubs.
 */
@Tag("e2e")
class HedgedCallTest {
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

    @Test
    void theSecondMemberIsCalledOnlyWhenTheFirstHasNotAnsweredAfterTheDelay() throws Exception {
        stubs().set("quickA", 0, Behaviour.REPLY);
        stubs().set("hungA", 0, Behaviour.HANG);
        stubs().set("spareB", 0, Behaviour.REPLY);
        List<ConcreteService> services = List.of(service("quickA"), service("hungA"), service("spareB"));
        Map<String, Duration> timeouts = Map.of("hungA", Duration.ofSeconds(30));
        AdaptiveBinding quick = binding(plan(Implementation.hedged("quickA", "spareB", 0.3)), services, Set.of(TASK), timeouts, noEjection());
        for (int i = 0; i < 10; i++) assertEquals("quickA", by(call(quick)));
        // a hedge whose first member hangs: its b is sent by the timer after d. Each earlier
        // hedge's timer was cancelled when its first member answered (and, had it fired, would
        // have found its invoke answered): so the count below is the hung hedge's call alone.
        AdaptiveBinding hung = binding(plan(Implementation.hedged("hungA", "spareB", 0.3)), services, Set.of(TASK), timeouts, noEjection());
        assertEquals("spareB", by(call(hung)), "the second member answers for a first that hangs");
        assertEquals(10, stubs().calls("quickA"));
        assertEquals(1, stubs().calls("hungA"));
        assertEquals(1, stubs().calls("spareB"), "no quick first call sent a second one");
        for (int i = 0; i < 5; i++) assertEquals("spareB", by(call(hung)));
        assertEquals(6, stubs().calls("spareB"));
    }

    @Test
    void aFirstMemberThatHangsTimesOutBehindTheHedgeAndIsEjected() throws Exception {
        // the hedge does not cancel a when b answers: a's call runs to its timeout, a failure of a
        stubs().set("stuckA", 0, Behaviour.HANG);
        stubs().set("backupB", 0, Behaviour.REPLY);
        List<ConcreteService> services = List.of(service("stuckA"), service("backupB"));
        AdaptiveBinding b = binding(plan(Implementation.hedged("stuckA", "backupB", 0.05)), services, Set.of(TASK),
                Map.of("stuckA", Duration.ofMillis(300)), AdaptiveBinding.Options.defaults().withExplorePeriod(Duration.ZERO));
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        int invokes = 0;
        while (!b.ejected().contains("stuckA") && System.nanoTime() < deadline) {
            assertEquals("backupB", by(call(b)), "the hedge answers while stuckA hangs");
            invokes++;
        }
        assertEquals(Set.of("stuckA"), b.ejected(), "three timeouts in a row eject it, as they would a single (" + invokes + " invokes)");
        // each invoke takes at least d, so the three 300 ms timeouts come within about ten invokes;
        // had the hedge cancelled stuckA's calls, none would time out (one run took 385 invokes,
        // until its hung exchanges filled the client's connection pool)
        assertTrue(invokes <= 100, invokes + " invokes before the ejection");
        assertEquals("backupB", by(call(b)));
    }

    @Test
    void aFirstMemberThatFailsBeforeTheDelaySendsTheSecondAtOnceAndBothFailingFailsTheInvoke() throws Exception {
        stubs().set("faultyA", 0, Behaviour.DROP);
        stubs().set("goodB", 0, Behaviour.REPLY);
        stubs().set("faultyB", 0, Behaviour.DROP);
        List<ConcreteService> services = List.of(service("faultyA"), service("goodB"), service("faultyB"));
        // d = 60 s: an answer within the test means b was sent at a's failure, not after d
        AdaptiveBinding b = binding(plan(Implementation.hedged("faultyA", "goodB", 60)), services, Set.of(TASK), Map.of(), noEjection());
        assertEquals("goodB", by(call(b)));
        assertEquals(0, b.retries(), "the hedge sent b itself, not the retry of a dropped call");
        // no third service of the task to send it once more to
        AdaptiveBinding both = binding(plan(Implementation.hedged("faultyA", "faultyB", 60)), List.of(service("faultyA"), service("faultyB")),
                Set.of(TASK), Map.of(), noEjection());
        InvokeOutcome.InvokeFailure f = assertInstanceOf(InvokeOutcome.InvokeFailure.class, call(both));
        assertEquals(List.of("faultyA", "faultyB"), f.tried(), f.toString());
        assertEquals(0, both.retries());
        assertEquals(2, stubs().calls("faultyA"));
        assertEquals(1, stubs().calls("goodB"));
        assertEquals(1, stubs().calls("faultyB"));
    }
}
