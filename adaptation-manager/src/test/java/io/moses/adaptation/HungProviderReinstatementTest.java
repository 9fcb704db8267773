package io.moses.adaptation;

import static io.moses.adaptation.AdaptiveBindingTest.TASK;
import static io.moses.adaptation.AdaptiveBindingTest.client;
import static io.moses.adaptation.AdaptiveBindingTest.invocation;
import static io.moses.adaptation.AdaptiveBindingTest.service;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.adaptation.TestServices.Behaviour;
import io.moses.model.ConcreteService;
import io.moses.model.Implementation;
import io.moses.model.Plan;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A provider that hangs on calls while its WSDL still answers (docs/model.md, "Reaction between
 * plans"): the WS Monitor's probe does not bring it back after its calls ejected it; a trial call
 * after a growing back-off does, once a call is answered. Real HTTP stubs, calls counted at the
 * stubs, the probe as the Feedback Loop runs it (a GET of {@code ?wsdl}, then {@code reinstate}).
 */
@Tag("e2e")
class HungProviderReinstatementTest {
    static final Duration HANG_TIMEOUT = IdempotentTasksTest.HANG_TIMEOUT;
    static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

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

    /** Half the calls to each of two providers of an idempotent task; eject after three failures. */
    static AdaptiveBinding binding(String first, String second) {
        List<ConcreteService> services = List.of(service(first), service(second));
        Plan p = new Plan(1, Instant.now(), Map.of(new Plan.Key("gold", TASK), List.of(
                new Plan.Share(Implementation.single(first), 0.5), new Plan.Share(Implementation.single(second), 0.5))),
                Map.of(), 0, "test", 0, List.of(), "test");
        return IdempotentTasksTest.binding(p, services, Set.of(TASK), Map.of(first, HANG_TIMEOUT),
                AdaptiveBinding.Options.defaults().withEjectAfter(3).withExplorePeriod(Duration.ZERO));
    }

    /** The Feedback Loop's probe tick: a service whose WSDL answers is reinstated. */
    static void probe(AdaptiveBinding b, String service) throws Exception {
        HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(stubs().uri(service) + "?wsdl"))
                .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.discarding());
        if (r.statusCode() == 200) b.reinstate(service, "it answered a probe");
    }

    static InvokeOutcome call(AdaptiveBinding b) throws Exception {
        return b.invoke(invocation()).toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @Test
    void aHungProviderWhoseWsdlAnswersIsNotReinstatedByTheProbeAndGetsCallsOnlyOnTheBackOffSchedule() throws Exception {
        stubs().set("hangs", 0, Behaviour.HANG);
        stubs().set("answers", 0, Behaviour.REPLY);
        AdaptiveBinding b = binding("hangs", "answers");
        List<String> ejections = new CopyOnWriteArrayList<>();
        b.onEjected((s, why) -> ejections.add(s));
        long start = System.nanoTime();
        int requests = 0;
        // bounded: at least 40 requests and 6 s, until the ejection and two failed trials
        // (3 + 2 calls), which the back-off (1 s, then 2 s) lets happen within the first 6 s
        while (requests < 40 || seconds(start) < 6 || (stubs().calls("hangs") < 5 && seconds(start) < 120)) {
            InvokeOutcome out = call(b);
            assertInstanceOf(InvokeOutcome.InvokeReply.class, out, "an idempotent task fails no request, trials included: " + out);
            probe(b, "hangs");
            requests++;
        }
        double elapsed = seconds(start);
        int calls = stubs().calls("hangs");
        assertTrue(stubs().probes("hangs") >= requests, "its WSDL answered every probe");
        assertEquals(List.of("hangs"), ejections, "ejected once, never reinstated (" + requests + " requests, " + calls + " calls to it)");
        assertEquals(Set.of("hangs"), b.ejected());
        // trial k (k = 1, 2, ...) is due no earlier than 1 + 2 + ... + 2^(k-1) = 2^k - 1 s after the ejection
        int trialsDue = (int) Math.floor(Math.log(elapsed + 1) / Math.log(2));
        assertTrue(calls >= 5, "three calls ejected it, then at least two trials: " + calls);
        assertTrue(calls <= 3 + trialsDue, calls + " calls reached the hung provider in " + requests + " requests over "
                + Math.round(elapsed) + " s: more than 3 + " + trialsDue + " trials the back-off allows");
    }

    @Test
    void aProviderThatRecoversIsReinstatedAfterItsTrialCallIsAnswered() throws Exception {
        stubs().set("recovers", 0, Behaviour.HANG);
        stubs().set("steady", 0, Behaviour.REPLY);
        AdaptiveBinding b = binding("recovers", "steady");
        List<String> reinstatements = new CopyOnWriteArrayList<>();
        b.onReinstatedByTrial((s, why) -> reinstatements.add(s + ": " + why));
        long start = System.nanoTime();
        while (!b.ejected().contains("recovers") && seconds(start) < 120) assertInstanceOf(InvokeOutcome.InvokeReply.class, call(b));
        assertEquals(Set.of("recovers"), b.ejected());

        stubs().set("recovers", 0, Behaviour.REPLY);
        probe(b, "recovers");
        assertFalse(b.reinstate("recovers", "it answered a probe"), "a probe that answers is no evidence that calls do");
        assertEquals(Set.of("recovers"), b.ejected());
        int before = stubs().calls("recovers");
        long recovered = System.nanoTime();
        while (!b.ejected().isEmpty() && seconds(recovered) < 120) {
            assertInstanceOf(InvokeOutcome.InvokeReply.class, call(b));
            probe(b, "recovers");
        }
        assertEquals(Set.of(), b.ejected(), "back after its trial call");
        assertEquals(List.of("recovers: its trial call was answered"), reinstatements);
        assertTrue(stubs().calls("recovers") > before, "a call reached it before it was reinstated");
        int atReinstatement = stubs().calls("recovers");
        for (int i = 0; i < 10; i++) assertInstanceOf(InvokeOutcome.InvokeReply.class, call(b));
        assertTrue(stubs().calls("recovers") - atReinstatement >= 4, "its share of the next ten calls: " + (stubs().calls("recovers") - atReinstatement));
    }

    @Test
    void whileTheWsMonitorFindsItDownNoTrialIsSentAndItsProbeBackUpMakesTheTrialDueAtOnce() throws Exception {
        stubs().set("stopped", 0, Behaviour.HANG);
        stubs().set("other", 0, Behaviour.REPLY);
        AdaptiveBinding b = binding("stopped", "other");
        List<String> reinstatements = new CopyOnWriteArrayList<>();
        b.onReinstatedByTrial((s, why) -> reinstatements.add(s + ": " + why));
        long start = System.nanoTime();
        while (!b.ejected().contains("stopped") && seconds(start) < 120) assertInstanceOf(InvokeOutcome.InvokeReply.class, call(b));
        // its probes time out too (a stopped process): the WS Monitor finds it down
        assertFalse(b.eject("stopped", "the WS Monitor finds it down"), "already out for its calls");
        int atEjection = stubs().calls("stopped");
        long down = System.nanoTime();
        int requests = 0;
        // well past the first back-off (1 s) and a second one (2 s)
        while (requests < 40 || seconds(down) < 4) {
            assertInstanceOf(InvokeOutcome.InvokeReply.class, call(b));
            requests++;
        }
        assertEquals(atEjection, stubs().calls("stopped"), "no trial while its probe fails (" + requests + " requests)");

        stubs().set("stopped", 0, Behaviour.REPLY);
        assertFalse(b.reinstate("stopped", "the WS Monitor finds it back up"), "the probe alone does not bring it back");
        assertInstanceOf(InvokeOutcome.InvokeReply.class, call(b));
        assertEquals(atEjection + 1, stubs().calls("stopped"), "the next request was its trial");
        assertEquals(List.of("stopped: its trial call was answered"), reinstatements);
        assertEquals(Set.of(), b.ejected());
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }
}
