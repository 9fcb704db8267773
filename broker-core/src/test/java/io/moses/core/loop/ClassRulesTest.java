package io.moses.core.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.moses.model.ServiceClass;
import io.moses.model.TaskRef;
import io.moses.monitor.ClassMonitor;
import io.moses.monitor.PathAnalyzer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The rules on service classes, each at its threshold and just past it, on an injected clock. */
class ClassRulesTest {
    static final TaskRef CAR = TaskRef.of("Trip", "car", "rentCar");
    /** Visits drift of 25 %, held 2 s; 20 requests before a class counts. */
    static final Adaptation SETTINGS = ServiceQosRulesTest.SETTINGS;
    static final ServiceClass GOLD = new ServiceClass("gold", 1.5, 0.99, 12, 15);

    final AtomicLong now = new AtomicLong(Duration.ofSeconds(100).toNanos());
    final ClassRules rules = new ClassRules(SETTINGS, now::get);

    void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }

    static Map<String, PathAnalyzer.ClassVisits> visits(double car, int requests) {
        return Map.of("gold", new PathAnalyzer.ClassVisits(Map.of(CAR, car), requests));
    }

    static Map<String, ClassMonitor.ClassStats> observed(int requests, double r, double a) {
        return Map.of("gold", new ClassMonitor.ClassStats("gold", requests, r, a));
    }

    @Test
    void visitsAtTheThresholdNeverTriggerAndJustPastItTriggerOnceAfterTheHold() {
        rules.assume(visits(1.0, 50)); // one car rental per request: the threshold is 0.25
        for (int i = 0; i < 4; i++) {
            assertEquals(List.of(), rules.checkVisits(visits(0.75, SETTINGS.minSamples())), "0.25 fewer is not more than 25 %");
            advance(Duration.ofSeconds(1));
        }
        Map<String, PathAnalyzer.ClassVisits> fewer = visits(0.5, SETTINGS.minSamples());
        assertEquals(List.of(), rules.checkVisits(fewer));
        now.addAndGet(Duration.ofMillis(SETTINGS.holdMillis()).toNanos() - 1);
        assertEquals(List.of(), rules.checkVisits(fewer), "a nanosecond short of the hold");
        advance(Duration.ofNanos(1));
        assertEquals(List.of("visits of gold Trip/car.rentCar: 0.50 per request, plan assumed 1.00"), rules.checkVisits(fewer));
        advance(Duration.ofSeconds(5));
        assertEquals(List.of(), rules.checkVisits(fewer), "once per episode");
        rules.assume(fewer); // the new plan assumed it
        assertEquals(List.of(), rules.checkVisits(visits(0.5, 100)));
    }

    @Test
    void visitsOfAClassCountFromTheMinimumRequests() {
        rules.assume(visits(1.0, 50));
        Map<String, PathAnalyzer.ClassVisits> tooFew = visits(0.0, SETTINGS.minSamples() - 1);
        assertEquals(List.of(), rules.checkVisits(tooFew));
        advance(Duration.ofSeconds(10));
        assertEquals(List.of(), rules.checkVisits(tooFew), "19 requests do not stand for the class");
        Map<String, PathAnalyzer.ClassVisits> enough = visits(0.0, SETTINGS.minSamples());
        assertEquals(List.of(), rules.checkVisits(enough));
        advance(Duration.ofMillis(SETTINGS.holdMillis()));
        assertEquals(1, rules.checkVisits(enough).size());
    }

    @Test
    void aClassAtItsSlaBoundsDoesNotBreakItAndJustPastThemBreaksItOnceTheBreakHasLastedTheHold() {
        List<ServiceClass> classes = List.of(GOLD);
        for (int i = 0; i < 4; i++) {
            assertEquals(List.of(), rules.checkSlas(classes, observed(SETTINGS.minSamples(), 1.5, 0.99)), "R = R_max and A = A_min keep the SLA");
            advance(Duration.ofSeconds(1));
        }
        var slow = observed(SETTINGS.minSamples(), 1.5000001, 0.99);
        assertEquals(List.of(), rules.checkSlas(classes, slow));
        now.addAndGet(Duration.ofMillis(SETTINGS.holdMillis()).toNanos() - 1);
        assertEquals(List.of(), rules.checkSlas(classes, slow), "a nanosecond short of the hold");
        advance(Duration.ofNanos(1));
        assertEquals(List.of(new ClassRules.SlaBreak("gold", "observed R 1.500 s (max 1.500), A 0.9900 (min 0.9900)")),
                rules.checkSlas(classes, slow));
        advance(Duration.ofSeconds(5));
        assertEquals(List.of(), rules.checkSlas(classes, slow), "once per episode");
    }

    @Test
    void anAvailabilityJustBelowTheMinimumBreaksTheSlaAndABreakThatEndsStartsItsHoldAgain() {
        List<ServiceClass> classes = List.of(GOLD);
        var unavailable = observed(SETTINGS.minSamples(), 0.1, 0.9899);
        assertEquals(List.of(), rules.checkSlas(classes, unavailable));
        advance(Duration.ofSeconds(1));
        assertEquals(List.of(), rules.checkSlas(classes, observed(SETTINGS.minSamples(), 0.1, 1.0)), "kept again");
        advance(Duration.ofSeconds(1));
        assertEquals(List.of(), rules.checkSlas(classes, unavailable), "a new episode: 2 s since the first, none of its own");
        advance(Duration.ofMillis(SETTINGS.holdMillis()));
        assertEquals(1, rules.checkSlas(classes, unavailable).size());
    }

    @Test
    void aClassWithFewerThanTheMinimumRequestsIsNotJudged() {
        List<ServiceClass> classes = List.of(GOLD);
        var broken = observed(SETTINGS.minSamples() - 1, 10, 0.5);
        assertEquals(List.of(), rules.checkSlas(classes, broken));
        advance(Duration.ofSeconds(10));
        assertEquals(List.of(), rules.checkSlas(classes, broken));
        assertEquals(List.of(), rules.checkSlas(classes, Map.of()), "nor a class without requests");
    }
}
