package io.moses.adaptation;

import static io.moses.adaptation.AdaptiveBindingTest.TASK;
import static io.moses.adaptation.AdaptiveBindingTest.client;
import static io.moses.adaptation.AdaptiveBindingTest.invocation;
import static io.moses.adaptation.AdaptiveBindingTest.service;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.adaptation.TestServices.Behaviour;
import io.moses.model.ConcreteService;
import io.moses.model.Implementation;
import io.moses.model.Plan;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A stateful task is bound once per conversation (docs/model.md, "Stateful partners"): the first
 * call's provider is the plan's pick, and a call bound to a provider goes to it alone, failing or
 * ejected, never to another. Real HTTP stubs, calls counted at the stubs.
 */
@Tag("e2e")
class StatefulBindingTest {
    @BeforeAll
    static void start() throws Exception {
        AdaptiveBindingTest.start();
    }

    @AfterAll
    static void stop() {
        AdaptiveBindingTest.stop();
    }

    static Plan halfEach(String a, String b) {
        return new Plan(1, Instant.now(), Map.of(new Plan.Key("gold", TASK), List.of(new Plan.Share(Implementation.single(a), 0.5),
                new Plan.Share(Implementation.single(b), 0.5))), Map.of(), 0, "test", 0, List.of(), "test");
    }

    static AdaptiveBinding stateful(Plan plan, List<ConcreteService> services, AdaptiveBinding.Options options) {
        AdaptiveBinding b = new AdaptiveBinding(services, plan, client, new ServiceCallLog(256), Duration.ofSeconds(5), Map.of(), options);
        // idempotent too: what would otherwise retry, resend and explore elsewhere
        b.update(plan, services, new TaskTraits(Set.of(TASK), Set.of(TASK), java.util.Map.of()));
        return b;
    }

    static InvokeOutcome call(AdaptiveBinding b, URI provider) throws Exception {
        return b.invoke(invocation().withProvider(provider)).toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    @Test
    void theFirstCallsProviderIsThePlansPickAndLaterCallsGoToItAlone() throws Exception {
        AdaptiveBindingTest.stubs.set("room-a", 0, Behaviour.REPLY);
        AdaptiveBindingTest.stubs.set("room-b", 0, Behaviour.REPLY);
        List<ConcreteService> services = List.of(service("room-a"), service("room-b"));
        AdaptiveBinding b = stateful(halfEach("room-a", "room-b"), services,
                AdaptiveBinding.Options.defaults().withExplorePeriod(Duration.ofMillis(1)));
        assertTrue(b.stateful(TASK));
        Map<URI, Integer> picked = new HashMap<>();
        for (int i = 0; i < 100; i++) picked.merge(b.provider(invocation()), 1, Integer::sum);
        assertEquals(Map.of(services.get(0).endpoint(), 50, services.get(1).endpoint(), 50), picked, "the plan's fractions");
        int before = AdaptiveBindingTest.stubs.calls("room-b");
        for (int i = 0; i < 20; i++) assertEquals("room-a", call(b, services.get(0).endpoint()).answeredBy());
        assertEquals(before, AdaptiveBindingTest.stubs.calls("room-b"), "no exploration of another provider");
    }

    @Test
    void aFailingOrEjectedProviderKeepsItsConversationAndTheFailureGoesToTheProcess() throws Exception {
        AdaptiveBindingTest.stubs.set("down-a", 0, Behaviour.REFUSE); // never processed: an unpinned call would be retried elsewhere
        AdaptiveBindingTest.stubs.set("up-b", 0, Behaviour.REPLY);
        List<ConcreteService> services = List.of(service("down-a"), service("up-b"));
        AdaptiveBinding b = stateful(halfEach("down-a", "up-b"), services, AdaptiveBinding.Options.defaults().withEjectAfter(1));
        URI a = services.get(0).endpoint();
        assertInstanceOf(InvokeOutcome.InvokeFailure.class, call(b, a));
        assertTrue(b.ejected().contains("down-a"), "ejected after its failure: " + b.ejected());
        int calls = AdaptiveBindingTest.stubs.calls("down-a");
        assertInstanceOf(InvokeOutcome.InvokeFailure.class, call(b, a), "ejected, yet its conversation's calls still go to it");
        assertEquals(calls + 1, AdaptiveBindingTest.stubs.calls("down-a"));
        assertEquals(0, AdaptiveBindingTest.stubs.calls("up-b"), "never moved to the other provider");
        assertEquals(0, b.retries());
        // a new conversation's first call avoids the ejected provider
        assertEquals(services.get(1).endpoint(), b.provider(invocation()));
    }

    @Test
    void aProviderWithoutTheTasksServiceFailsTheCallAndATaskThatIsNotStatefulIsNotBound() throws Exception {
        AdaptiveBindingTest.stubs.set("only-a", 0, Behaviour.REPLY);
        List<ConcreteService> services = List.of(service("only-a"));
        AdaptiveBinding b = stateful(halfEach("only-a", "only-a"), services, AdaptiveBinding.Options.defaults());
        InvokeOutcome out = call(b, URI.create("http://127.0.0.1:9/gone"));
        assertTrue(assertInstanceOf(InvokeOutcome.InvokeFailure.class, out).reason().contains("has no concrete service for it"), out.toString());
        AdaptiveBinding plain = new AdaptiveBinding(services, halfEach("only-a", "only-a"), client, new ServiceCallLog(16), Duration.ofSeconds(5), Map.of());
        assertFalse(plain.stateful(TASK));
        assertNull(((InvokeHandler) invocation -> null).provider(invocation()), "a handler that knows no stateful task chooses none");
    }
}
