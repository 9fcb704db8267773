package io.moses.core.loop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.adaptation.CallEnd;
import io.moses.adaptation.ServiceCall;
import io.moses.model.ConcreteService;
import io.moses.model.Implementation;
import io.moses.model.Plan;
import io.moses.model.ProviderSla;
import io.moses.model.TaskRef;
import io.moses.monitor.QosMonitor;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The rules on concrete services, each at its threshold and just past it, on an injected clock:
 * nothing here waits for time to pass.
 */
class ServiceQosRulesTest {
    static final TaskRef TASK = TaskRef.of("Trip", "flight", "findFlight");
    /** Drifts of 50 % in response time and 25 % in availability, held 2 s; a monitor period of 1 s; 20 samples. */
    static final Adaptation SETTINGS = new Adaptation(true, true, true, true, "auto", 1000, 1000, 2000, 0.5, 0.25, 0.25, 20, 10_000, false);
    static final long PERIOD = Duration.ofMillis(1000).toNanos();

    /** The broker's monotonic clock, moved only by the test. */
    final AtomicLong now = new AtomicLong(Duration.ofSeconds(100).toNanos());
    final QosMonitor qos = new QosMonitor(500, 5_000, SETTINGS.minSamples(), now::get);
    final ServiceEstimates estimates = new ServiceEstimates(SETTINGS.minSamples());
    final ServiceQosRules rules = new ServiceQosRules(SETTINGS, qos, estimates, now::get);

    /** A service promising 0.5 s: a threshold exact in binary (0.25 s). */
    static ConcreteService service(String name, double availability) {
        return new ConcreteService(name, TASK, URI.create("http://127.0.0.1:1/" + name), new ProviderSla(0.5, availability, 1, 100), null);
    }

    /** "a" promises 0.99 (its replies never drift from it); "b" 0.5, a threshold of 0.125. */
    static final Map<String, ConcreteService> SERVICES = Map.of("a", service("a", 0.99), "b", service("b", 0.5));

    void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }

    void replies(String service, int n, long nanos) {
        for (int i = 0; i < n; i++) qos.record(new ServiceCall(service, TASK, "gold", nanos, CallEnd.REPLY, true, now.get()));
    }

    /** One monitor period in which "a" answered {@link ServiceQosRules#LATEST_SAMPLES} calls in {@code nanos} each; the rules' reasons. */
    List<String> period(long nanos) {
        replies("a", ServiceQosRules.LATEST_SAMPLES, nanos);
        return rules.check(qos.snapshot(), qos.latest(Map.of(), SETTINGS.monitorMillis()), SERVICES);
    }

    static QosMonitor.ServiceStats stats(String service, int ok, int failed) {
        return stats(service, ok, failed, Double.NaN);
    }

    static QosMonitor.ServiceStats stats(String service, int ok, int failed, double r) {
        return new QosMonitor.ServiceStats(service, ok, failed, 0, r, ok / (double) (ok + failed), Double.NaN,
                Double.NaN, Double.NaN, Double.NaN, new double[0]);
    }

    @Test
    void aResponseTimeAtTheThresholdNeverTriggers() {
        rules.assume(Map.of(), SERVICES.values()); // the promise, 0.5 s: the threshold is 0.75 s
        for (int i = 0; i < 6; i++) {
            assertEquals(List.of(), period(750_000_000L), "0.75 s is not more than 50 % above 0.5 s");
            advance(Duration.ofSeconds(1));
        }
    }

    @Test
    void aResponseTimeJustPastTheThresholdTriggersOnceItHasLastedTheHold() {
        rules.assume(Map.of(), SERVICES.values());
        // the period's mean is dated from the period's start: at the first check it has lasted 1 s of the 2 s hold
        assertEquals(List.of(), period(750_000_001L));
        advance(Duration.ofMillis(999));
        assertEquals(List.of(), period(750_000_001L), "1.999 s of the hold");
        advance(Duration.ofMillis(1));
        List<String> why = period(750_000_001L);
        assertEquals(1, why.size(), why.toString());
        assertEquals("concrete service a: response time 0.750 s, plan assumed 0.500 s", why.get(0));
        advance(Duration.ofSeconds(1));
        assertEquals(List.of(), period(750_000_001L), "once per episode, until a new plan");
    }

    @Test
    void aLargeSlowdownActsWithinOneMonitorPeriodAndForgetsTheOutcomesFromBeforeIt() {
        rules.assume(Map.of(), SERVICES.values());
        advance(Duration.ofSeconds(10));
        replies("a", 30, 500_000_000L); // the old behaviour, long before the period
        advance(Duration.ofSeconds(3));
        assertNull(estimates.responseTime("a", stats("a", 5, 0, 5.0)), "fewer than the minimum samples keep the promise");
        // 10 times the promise: the hold shrinks to 2 s * 0.25 / 4.5, less than the period the mean covers
        List<String> why = period(5_000_000_000L);
        assertEquals(1, why.size(), why.toString());
        assertTrue(why.get(0).startsWith("concrete service a: response time 5.000 s"), why.get(0));
        QosMonitor.ServiceStats left = qos.snapshot().get("a");
        assertEquals(ServiceQosRules.LATEST_SAMPLES, left.successes(), "only what it did since the change is kept");
        assertEquals(5.0, left.responseTime(), 1e-9);
        assertEquals(5.0, estimates.responseTime("a", left), 1e-9, "a changed service's few samples stand for it");
    }

    @Test
    void aNewPlanMakesTheObservedValuesTheBaseline() {
        replies("a", SETTINGS.minSamples(), 2_000_000_000L); // enough samples: the estimate replaces the promise
        rules.assume(qos.snapshot(), SERVICES.values());
        advance(Duration.ofSeconds(10));
        assertEquals(List.of(), period(3_000_000_000L), "3 s is within 50 % of the 2 s the plan assumed");
        advance(Duration.ofSeconds(10));
        assertEquals(List.of(), period(3_000_000_001L), "3 s plus a nanosecond is past it: its hold starts");
        advance(Duration.ofSeconds(1));
        assertEquals(1, period(3_000_000_001L).size(), "and ends");
    }

    @Test
    void aFastServiceIsJudgedAsIfItTookTheFloorSoMillisecondsOfNoiseNeverTrigger() {
        replies("a", SETTINGS.minSamples(), 2_000_000L); // a provider answering in 2 ms
        rules.assume(qos.snapshot(), SERVICES.values());
        advance(Duration.ofSeconds(10));
        // 50 % of the 10 ms floor: anything within 5 ms of the 2 ms assumed is noise, however long it lasts
        for (int i = 0; i < 6; i++) {
            assertEquals(List.of(), period(i % 2 == 0 ? 6_900_000L : 1_000_000L), "6.9 ms and 1 ms against 2 ms assumed");
            advance(Duration.ofSeconds(1));
        }
        advance(Duration.ofSeconds(1)); // a second without calls: the next period's mean is its own
        // 12.5 ms: 10.5 ms over, 2.1 times the 5 ms allowed; the hold shrinks below the period the mean covers
        List<String> why = period(12_500_000L);
        assertEquals(1, why.size(), why.toString());
        assertTrue(why.get(0).startsWith("concrete service a: response time 0.013 s, plan assumed 0.002 s"), why.get(0));
        // a call in flight is slow from 7 ms on, not from 3 ms
        assertArrayEquals(new double[] {0.0071}, rules.slowInFlight(Map.of("a", new double[] {0.004, 0.0069, 0.0071})).get("a"));
    }

    @Test
    void anAvailabilityAtTheThresholdNeverTriggersAndJustPastItTriggersAfterItsProportionalHold() {
        rules.assume(Map.of(), SERVICES.values()); // promised 0.5: the threshold is 0.125 below
        // the Beta posterior with a prior of 30 calls at 0.5: (15 + 3) / (30 + 3 + 15) = 0.375, exactly the threshold
        for (int i = 0; i < 5; i++) {
            assertEquals(List.of(), rules.check(Map.of("b", stats("b", 3, 15)), Map.of(), SERVICES));
            advance(Duration.ofSeconds(1));
        }
        // one failure more: 18 / 49, past the threshold; the hold shrinks in proportion
        double drift = 0.5 - 18 / 49.0;
        long hold = (long) (Duration.ofMillis(SETTINGS.holdMillis()).toNanos() * (0.125 / drift));
        Map<String, QosMonitor.ServiceStats> past = Map.of("b", stats("b", 3, 16));
        assertEquals(List.of(), rules.check(past, Map.of(), SERVICES));
        now.addAndGet(hold - 1);
        assertEquals(List.of(), rules.check(past, Map.of(), SERVICES), "a nanosecond short of the hold");
        now.addAndGet(1);
        assertEquals(List.of("concrete service b: availability 0.3673, plan assumed 0.5000"), rules.check(past, Map.of(), SERVICES));
    }

    @Test
    void aDriftThatEndsBeforeItsHoldDoesNotTrigger() {
        rules.assume(Map.of(), SERVICES.values());
        Map<String, QosMonitor.ServiceStats> low = Map.of("b", stats("b", 3, 16));
        assertEquals(List.of(), rules.check(low, Map.of(), SERVICES));
        advance(Duration.ofSeconds(1));
        assertEquals(List.of(), rules.check(Map.of("b", stats("b", 3, 15)), Map.of(), SERVICES), "back within the threshold");
        advance(Duration.ofSeconds(1));
        assertEquals(List.of(), rules.check(low, Map.of(), SERVICES), "a new episode starts its hold again");
    }

    static Plan planUsing(String service) {
        return new Plan(1, Instant.parse("2026-01-01T00:00:00Z"),
                Map.of(new Plan.Key("gold", TASK), List.of(new Plan.Share(Implementation.single(service), 1.0))),
                Map.of(), 0, "test", 0, List.of(), "test");
    }

    @Test
    void anExploredServiceTriggersFromItsThirdRecentReplyOnceItsDriftHasLastedItsHold() {
        rules.assume(Map.of(), SERVICES.values());
        Plan plan = planUsing("a"); // "b" is called only by exploration
        replies("b", 1, 500_000_000L); // as promised, long ago
        advance(Duration.ofSeconds(10));
        replies("b", ServiceQosRules.EXPLORED_SAMPLES - 1, 2_000_000_000L);
        replies("a", 10, 2_000_000_000L); // the plan's own service is the other rule's business
        assertEquals(List.of(), rules.checkExplored(plan), "two explorations do not say the service changed");
        advance(Duration.ofSeconds(1));
        assertEquals(List.of(), rules.checkExplored(plan), "nor do they later");
        replies("b", 1, 2_000_000_000L);
        assertEquals(List.of(), rules.checkExplored(plan), "the third starts the episode");
        // 2 s against 0.5 s: the hold shrinks to 2 s * 0.25 / 1.5
        long hold = Duration.ofSeconds(2).toNanos() / 6;
        now.addAndGet(hold - 1);
        assertEquals(List.of(), rules.checkExplored(plan));
        assertEquals(ServiceQosRules.EXPLORED_SAMPLES + 1, qos.snapshot().get("b").successes(),
                "until it triggers, the window keeps the old outcome (fewer than the minimum samples)");
        now.addAndGet(1);
        assertEquals(List.of("concrete service b (explored): response time 2.000 s, plan assumed 0.500 s"), rules.checkExplored(plan));
        // its outcome older than the window's age is gone, and its few recent samples stand for it
        QosMonitor.ServiceStats left = qos.snapshot().get("b");
        assertEquals(ServiceQosRules.EXPLORED_SAMPLES, left.successes(), "the outcome of 10 s ago is forgotten");
        assertEquals(2.0, estimates.responseTime("b", left), 1e-9);
    }

    @Test
    void anExploredServiceAtTheThresholdDoesNotTrigger() {
        rules.assume(Map.of(), SERVICES.values());
        replies("b", ServiceQosRules.EXPLORED_SAMPLES, 750_000_000L);
        for (int i = 0; i < 4; i++) {
            assertEquals(List.of(), rules.checkExplored(planUsing("a")));
            advance(Duration.ofSeconds(1));
        }
        assertEquals(List.of(), rules.checkExplored(null), "no plan: nothing is explored");
    }

    @Test
    void callsInFlightCountAsSlowJustPastTheDriftThreshold() {
        rules.assume(Map.of(), SERVICES.values()); // 0.5 s assumed: slow from 0.75 s on
        Map<String, double[]> slow = rules.slowInFlight(Map.of("a", new double[] {0.1, 0.75, 0.7500001, 3}, "unknown", new double[] {9}));
        assertEquals(List.of("a"), List.copyOf(slow.keySet()), "a service without a baseline is not judged");
        assertArrayEquals(new double[] {0.7500001, 3}, slow.get("a"));
    }
}
