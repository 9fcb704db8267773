package io.moses.adaptation;

import static io.moses.adaptation.AdaptiveBindingTest.TASK;
import static io.moses.adaptation.AdaptiveBindingTest.by;
import static io.moses.adaptation.AdaptiveBindingTest.plan;
import static io.moses.adaptation.AdaptiveBindingTest.service;
import static io.moses.adaptation.IdempotentTasksTest.binding;
import static io.moses.adaptation.IdempotentTasksTest.call;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
 * A 1-out-of-n loser on the wire runs to its own reply or timeout (docs/model.md, "Implementations"):
 * a member that hangs times out behind the winner and is ejected. When losers were cancelled at the
 * winner's reply, a hung member's calls read as cancelled, never as failures: it stayed in the plan
 * and was paid on every request.
 */
@Tag("e2e")
class ParallelLoserTest {
    @BeforeAll
    static void start() throws Exception {
        AdaptiveBindingTest.start();
    }

    @AfterAll
    static void stop() {
        AdaptiveBindingTest.stop();
    }

    @Test
    void aMemberThatHangsTimesOutBehindTheWinnerAndIsEjected() throws Exception {
        TestServices stubs = AdaptiveBindingTest.stubs;
        stubs.set("hangingP", 0, Behaviour.HANG);
        stubs.set("answeringP", 0, Behaviour.REPLY);
        List<ConcreteService> services = List.of(service("hangingP"), service("answeringP"));
        AdaptiveBinding b = binding(plan(new Implementation(Implementation.Pattern.PARALLEL, List.of("hangingP", "answeringP"))),
                services, Set.of(TASK), Map.of("hangingP", Duration.ofMillis(300)),
                AdaptiveBinding.Options.defaults().withExplorePeriod(Duration.ZERO));
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        int invokes = 0;
        while (!b.ejected().contains("hangingP") && System.nanoTime() < deadline) {
            assertEquals("answeringP", by(call(b)), "the other member answers while hangingP hangs");
            invokes++;
            Thread.sleep(20); // the invokes' pace: each leaves a hung call behind, the scenario itself
        }
        assertEquals(Set.of("hangingP"), b.ejected(), "three timeouts in a row eject it (" + invokes + " invokes)");
        // each invoke leaves one hung call that times out 300 ms later: the third comes within a
        // few dozen invokes; cancelled losers never time out (no ejection within the 60 s)
        assertTrue(invokes <= 100, invokes + " invokes before the ejection");
    }
}
