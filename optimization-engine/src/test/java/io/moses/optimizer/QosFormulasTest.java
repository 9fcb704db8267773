package io.moses.optimizer;

import static io.moses.optimizer.Fixtures.service;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.model.Implementation;
import io.moses.model.Observation;
import io.moses.model.TaskRef;
import io.moses.model.Visits;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Section 2's table, the empirical E[min], and visits. */
class QosFormulasTest {
    static final TaskRef T = new TaskRef("C", "p.op");

    static Candidates.Member member(String name, double r, double a, double f, double c, double[] samples) {
        return new Candidates.Member(service(name, T, r, a, c, 100), "http://127.0.0.1:9/" + name, r, a, a, f, c, samples);
    }

    @Test
    void singleParallelAndAlternateFollowTheTable() {
        var a = member("a", 1.0, 0.9, 3.0, 2.0, null);
        var b = member("b", 0.5, 0.8, 2.0, 1.0, null);
        var single = Candidates.single(a);
        assertEquals(0.9 * 1.0 + 0.1 * 3.0, single.responseTime(), 1e-12);
        assertEquals(0.9, single.availability());
        assertEquals(Map.of("http://127.0.0.1:9/a", 1.0), single.endpointShare());

        var par = Candidates.parallel(List.of(a, b), 200);
        assertEquals(Math.min(1.2, 0.8 * 0.5 + 0.2 * 2.0), par.responseTime(), 1e-12);
        assertEquals(1 - 0.1 * 0.2, par.availability(), 1e-12);
        assertEquals(3.0, par.cost(), 1e-12);
        assertEquals(1.0, par.endpointShare().get("http://127.0.0.1:9/b"));

        var alt = Candidates.alternate(List.of(a, b));
        assertEquals(1.2 + 0.1 * (0.8 * 0.5 + 0.2 * 2.0), alt.responseTime(), 1e-12);
        assertEquals(1 - 0.1 * 0.2, alt.availability(), 1e-12);
        assertEquals(2.0 + 0.1 * 1.0, alt.cost(), 1e-12);
        assertEquals(0.1, alt.endpointShare().get("http://127.0.0.1:9/b"), 1e-12);
        assertEquals(new Implementation(Implementation.Pattern.ALTERNATE, List.of("a", "b")), alt.implementation());
    }

    @Test
    void candidateCountsFollowTheCaps() {
        List<Candidates.Member> six = new java.util.ArrayList<>();
        for (int i = 0; i < 6; i++) six.add(member("s" + i, 1, 0.9, 1, 1, null));
        // 6 singles + C(6,2) + C(6,3) parallel sets + 6*5 alternate pairs
        assertEquals(6 + 15 + 20 + 30, Candidates.implementations(six, 3, 2, 200).size());
        assertEquals(6, Candidates.implementations(six, 1, 1, 200).size());
        // 6 providers with tuples of 3 give 191 implementations (docs/model.md, "Implementations")
        assertEquals(6 + 15 + 20 + 30 + 120, Candidates.implementations(six, 3, 3, 200).size());
    }

    @Test
    void empiricalExpectedMinimumIsTheIntegralOfTheJointSurvival() {
        // two members, each 1 or 2 s with equal probability: P(min = 2) = 1/4, E[min] = 1.25
        assertEquals(1.25, EmpiricalMin.expectedMin(new double[]{1, 2}, new double[]{2, 1}), 1e-12);
        // one member: its mean
        assertEquals(2.0, EmpiricalMin.expectedMin(new double[]{1, 2, 3}), 1e-12);
        // exponential with mean 1: the min of two has mean 1/2
        Random rnd = new Random(7);
        double[] x = new double[20000], y = new double[20000];
        for (int i = 0; i < x.length; i++) {
            x[i] = -Math.log(1 - rnd.nextDouble());
            y[i] = -Math.log(1 - rnd.nextDouble());
        }
        assertEquals(0.5, EmpiricalMin.expectedMin(x, y), 0.02);
        assertThrows(IllegalArgumentException.class, () -> EmpiricalMin.expectedMin(new double[0]));
    }

    @Test
    void parallelUsesTheEmpiricalEstimateOnlyWithEnoughSamplesForEveryMember() {
        double[] many = new double[200], few = new double[199];
        for (int i = 0; i < many.length; i++) many[i] = i < 100 ? 1 : 2;
        for (int i = 0; i < few.length; i++) few[i] = i < 100 ? 1 : 2;
        var a = member("a", 1.5, 1.0, 1.5, 1, many);
        var b = member("b", 1.5, 1.0, 1.5, 1, many.clone());
        assertEquals(1.25, Candidates.parallel(List.of(a, b), 200).responseTime(), 1e-12);
        var c = member("c", 1.5, 1.0, 1.5, 1, few);
        assertEquals(1.5, Candidates.parallel(List.of(a, c), 200).responseTime(), 1e-12);
    }

    @Test
    void observationsReplaceTheAgreedValuesOnceTheyHaveEnoughSamples() {
        var in = PlanningInput.builder()
                .composite(new io.moses.model.CompositeService("C", "urn:c", List.of(T), new io.moses.model.Activity.Invoke("/1", T)))
                .service(service("s", T, 1.0, 0.99, 1, 10)).service(service("u", T, 1.0, 0.99, 1, 10))
                .observed(new Observation.ServiceQos("s", 0.4, 0.5, 1000, Instant.now()))
                .observed(new Observation.ServiceQos("u", 0.4, 0.5, 10, Instant.now()))
                .serviceClass(Fixtures.serviceClass("k", 5, 0.1, 10, 1), 1).build();
        var cands = new Candidates(in, List.of(T)).of(T);
        var s = cands.stream().filter(q -> q.implementation().equals(Implementation.single("s"))).findFirst().orElseThrow();
        var u = cands.stream().filter(q -> q.implementation().equals(Implementation.single("u"))).findFirst().orElseThrow();
        assertEquals(0.5, s.availability());
        assertEquals(0.5 * 0.4 + 0.5 * 0.4, s.responseTime(), 1e-12); // f defaults to r
        assertEquals(0.99, u.availability()); // 10 samples are not enough
        // backup load of alt(s,u) uses the lower end of s's availability: more than 1 - 0.5
        var alt = cands.stream().filter(q -> q.implementation().toString().equals("alt(s,u)")).findFirst().orElseThrow();
        assertTrue(alt.endpointShare().get("http://127.0.0.1:9/u") > 0.5);
        assertTrue(alt.endpointShare().get("http://127.0.0.1:9/u") < 0.54);
    }

    @Test
    void visitsMultiplyBranchProbabilitiesAndLoopIterations() {
        var trip = Fixtures.tripPlanner();
        var v = Visits.of(trip.root(), Visits.Profile.DEFAULT);
        assertEquals(0.5, v.get(Fixtures.CAR));
        assertEquals(1.0, v.get(Fixtures.ATTRACTION));
        assertEquals(1.0, v.get(Fixtures.FLIGHT));
        var profile = new Visits.Profile(Map.of("/seq/if", List.of(0.3, 0.7)), Map.of("/seq/forEach", 3.0));
        v = Visits.of(trip.root(), profile);
        assertEquals(0.3, v.get(Fixtures.CAR), 1e-12);
        assertEquals(3.0, v.get(Fixtures.ATTRACTION), 1e-12);
        // R: flow is the max of its branches, the if weighs its branches, the loop multiplies
        Map<TaskRef, Double> t = Map.of(Fixtures.FLIGHT, 1.0, Fixtures.HOTEL, 2.0, Fixtures.WEATHER, 0.5,
                Fixtures.CAR, 1.0, Fixtures.ATTRACTION, 0.5, Fixtures.PAYMENT, 0.25);
        assertEquals(2.0 + 0.3 * 1.0 + 3 * 0.5 + 0.25, Workflow.responseTime(trip.root(), profile, t::get), 1e-12);
    }

    @Test
    void badProfilesAndSettingsAreRefusedNamingTheField() {
        var ex = assertThrows(IllegalArgumentException.class,
                () -> new Visits.Profile(Map.of("/if", List.of(0.3, 0.3)), Map.of()));
        assertTrue(ex.getMessage().contains("/if"), ex.getMessage());
        ex = assertThrows(IllegalArgumentException.class, () -> PlanningInput.Settings.defaults().withWeights(0.5, 0.5, 0.5));
        assertTrue(ex.getMessage().contains("weights"), ex.getMessage());
        ex = assertThrows(IllegalArgumentException.class, () -> PlanningInput.Settings.defaults().withMargin(1));
        assertTrue(ex.getMessage().contains("margin"), ex.getMessage());
        ex = assertThrows(IllegalArgumentException.class, () -> PlanningInput.builder()
                .serviceClass(Fixtures.serviceClass("k", 1, 0.9, 1, 1), -1).build());
        assertTrue(ex.getMessage().contains("classLoad"), ex.getMessage());
    }
}
