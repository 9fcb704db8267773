package io.moses.core.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.mdal.Credentials;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.Mdal;
import io.moses.mdal.PasswordHasher;
import io.moses.model.Activity;
import io.moses.model.CompositeService;
import io.moses.model.ConcreteService;
import io.moses.model.Observation;
import io.moses.model.ProviderSla;
import io.moses.model.ServiceClass;
import io.moses.model.TaskRef;
import io.moses.model.User;
import io.moses.monitor.PathAnalyzer;
import io.moses.monitor.QosMonitor;
import io.moses.optimizer.PlanningInput;
import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the optimizer plans with, from an in-memory knowledge base and the monitors' figures as given. */
class PlanningInputsTest {
    static final TaskRef FLIGHT = TaskRef.of("Trip", "flight", "findFlight");
    static final TaskRef HOTEL = TaskRef.of("Trip", "hotel", "bookHotel");
    static final TaskRef CAR = TaskRef.of("Trip", "car", "rentCar");
    static final TaskRef OTHER = TaskRef.of("Other", "x", "y");
    static final Adaptation SETTINGS = ServiceQosRulesTest.SETTINGS;
    static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    static final String HASH = PasswordHasher.hash("x".toCharArray(), 1_000);

    /** One knowledge base for the class (opening one migrates its schema): no test changes it. */
    static KnowledgeBase kb;
    final ServiceEstimates estimates = new ServiceEstimates(SETTINGS.minSamples());
    final AtomicReference<List<CompositeService>> deployed = new AtomicReference<>();
    PlanningInputs inputs;

    static ConcreteService service(String name, TaskRef task) {
        return new ConcreteService(name, task, URI.create("http://127.0.0.1:1/" + name), new ProviderSla(0.5, 0.5, 1, 100), null);
    }

    static CompositeService composite(String name, TaskRef... tasks) {
        return new CompositeService(name, null, List.of(tasks), new Activity.Invoke("/i", tasks[0]));
    }

    @BeforeAll
    static void knowledgeBase() {
        kb = Mdal.open("mem:inputs" + UUID.randomUUID().toString().replace("-", ""), Credentials.NONE);
        kb.putServiceClass(new ServiceClass("gold", 1.5, 0.99, 12, 15));
        kb.putServiceClass(new ServiceClass("bronze", 6, 0.9, 5, 4));
        kb.addUser(new User("alice", "gold", 2, HASH));
        kb.addUser(new User("anna", "gold", 1.5, HASH));
        kb.putCompositeService(composite("Trip", FLIGHT, HOTEL, CAR));
        kb.putCompositeService(composite("Other", OTHER));
        for (String f : List.of("flight-a", "flight-b")) kb.putConcreteService(service(f, FLIGHT));
        kb.putConcreteService(service("hotel-a", HOTEL));
        kb.putConcreteService(service("car-a", CAR));
        kb.putConcreteService(service("car-b", CAR));
        kb.putConcreteService(service("other-a", OTHER));
    }

    @BeforeEach
    void newInputs() {
        deployed.set(List.of(kb.compositeService("Trip").orElseThrow()));
        inputs = new PlanningInputs(kb, SETTINGS, estimates, Clock.fixed(NOW, ZoneOffset.UTC), () -> List.copyOf(deployed.get()));
    }

    @AfterAll
    static void close() {
        kb.close();
    }

    PlanningInput input(Map<String, QosMonitor.ServiceStats> stats) {
        return inputs.input(stats, Map.of(), Set.of(), Set.of(), Set.of());
    }

    static QosMonitor.ServiceStats stats(String service, int ok, int failed, int censored, double r, double failureTime) {
        return new QosMonitor.ServiceStats(service, ok, failed, censored, r, ok + failed == 0 ? Double.NaN : ok / (double) (ok + failed),
                failureTime, r, r, r, new double[ok]);
    }

    @Test
    void eachClassCarriesItsUsersRatesAndOnlyTheDeployedCompositesArePlanned() {
        PlanningInput in = input(Map.of());
        assertEquals(3.5, in.load("gold"), 1e-12);
        assertEquals(0, in.load("bronze"), "a class without users carries no load");
        assertEquals(List.of("Trip"), in.composites().stream().map(CompositeService::name).toList());
        assertEquals(Set.of("Other"), inputs.notDeployed());
        deployed.set(List.of(kb.compositeService("Trip").orElseThrow(), kb.compositeService("Other").orElseThrow()));
        assertEquals(2, input(Map.of()).composites().size());
        assertEquals(Set.of(), inputs.notDeployed());
        PlanningInputs everywhere = new PlanningInputs(kb, SETTINGS, estimates, Clock.systemUTC(), null);
        assertEquals(2, everywhere.input(Map.of(), Map.of(), Set.of(), Set.of(), Set.of()).composites().size(),
                "no list of deployed composites: every composite is planned");
    }

    @Test
    void anEjectedServiceIsPlannedDownUnlessItsTaskWouldHaveNoneLeft() {
        PlanningInput in = inputs.input(Map.of(), Map.of(), Set.of("car-b"), Set.of("other-a"),
                Set.of("flight-a", "hotel-a", "car-a"));
        assertTrue(in.down().contains("flight-a"), "flight-b is left for the flights");
        assertFalse(in.down().contains("hotel-a"), "the only hotel stays a candidate: " + in.down());
        assertFalse(in.down().contains("car-a"), "the other car is down: " + in.down());
        assertTrue(in.down().containsAll(Set.of("car-b", "other-a")), "down and held out are down whatever: " + in.down());
        assertEquals(Set.of("flight-a", "car-b", "other-a"), in.down());
    }

    double failureDetection(Map<String, QosMonitor.ServiceStats> stats) {
        return input(stats).failureDetection().get("hotel-a");
    }

    @Test
    void theFailureDetectionTimeIsTheTimeoutUntilFailuresAreSeenAndKeptAfterwardsUntilForgotten() {
        assertEquals(10.0, failureDetection(Map.of()), "the invoke timeout before any failure");
        assertEquals(0.25, failureDetection(Map.of("hotel-a", stats("hotel-a", 10, 2, 0, 0.1, 0.25))));
        assertEquals(0.25, failureDetection(Map.of("hotel-a", stats("hotel-a", 10, 0, 0, 0.1, Double.NaN))),
                "a window without failures keeps the last measured");
        inputs.forget("hotel-a");
        assertEquals(10.0, failureDetection(Map.of()), "forgotten when the service is back up");
    }

    @Test
    void theObservedResponseTimeReplacesThePromiseFromTheMinimumSamplesCensoredIncluded() {
        int min = SETTINGS.minSamples();
        Observation.ServiceQos few = input(Map.of("hotel-a", stats("hotel-a", min - 2, 0, 1, 2.0, Double.NaN))).observed().get("hotel-a");
        assertEquals(0.5, few.responseTime(), "one sample short: the promise");
        assertEquals(min - 1, few.samples());
        assertEquals(NOW, few.at(), "stamped on the broker's wall clock");
        Observation.ServiceQos enough = input(Map.of("hotel-a", stats("hotel-a", min - 1, 0, 1, 2.0, Double.NaN))).observed().get("hotel-a");
        assertEquals(2.0, enough.responseTime());
        estimates.changed("car-a", 0);
        assertEquals(2.0, input(Map.of("car-a", stats("car-a", 1, 0, 0, 2.0, Double.NaN))).observed().get("car-a").responseTime(),
                "a service whose response time drifted: what it does since, however few");
    }

    @Test
    void theObservedAvailabilityIsTheBetaPosteriorOnThePromise() {
        Observation.ServiceQos q = input(Map.of("hotel-a", stats("hotel-a", 3, 15, 0, 0.5, 0.1))).observed().get("hotel-a");
        assertEquals(0.375, q.availability(), 1e-12, "(0.5 * 30 + 3) / (30 + 3 + 15)");
        Observation.ServiceQos censoredOnly = input(Map.of("car-a", stats("car-a", 0, 0, 2, 0.7, Double.NaN))).observed().get("car-a");
        assertEquals(0.5, censoredOnly.availability(), "no replies nor failures: the promise");
        assertFalse(input(Map.of("car-b", stats("car-b", 0, 0, 0, Double.NaN, Double.NaN))).observed().containsKey("car-b"),
                "nothing observed: nothing replaces the promise");
    }

    @Test
    void aClassesVisitsArePlannedFromTheMinimumRequests() {
        int min = SETTINGS.minSamples();
        PlanningInput few = inputs.input(Map.of(), Map.of("gold", new PathAnalyzer.ClassVisits(Map.of(CAR, 0.5), min - 1)),
                Set.of(), Set.of(), Set.of());
        assertFalse(few.visits().containsKey("gold"));
        PlanningInput enough = inputs.input(Map.of(), Map.of("gold", new PathAnalyzer.ClassVisits(Map.of(CAR, 0.5), min)),
                Set.of(), Set.of(), Set.of());
        assertEquals(Map.of(CAR, 0.5), enough.visits().get("gold"));
    }
}
