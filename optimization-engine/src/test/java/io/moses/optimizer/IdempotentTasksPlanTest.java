package io.moses.optimizer;

import static io.moses.optimizer.Both.assertClose;
import static io.moses.optimizer.Fixtures.service;
import static io.moses.optimizer.Fixtures.serviceClass;
import static io.moses.optimizer.HandInstancesTest.T1;
import static io.moses.optimizer.HandInstancesTest.T2;
import static io.moses.optimizer.HandInstancesTest.omega;
import static io.moses.optimizer.HandInstancesTest.sequence;
import static io.moses.optimizer.HandInstancesTest.share;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.model.Implementation;
import io.moses.model.Plan;
import io.moses.model.TaskRef;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A task that is not idempotent gets no 1-out-of-n implementation (docs/model.md, "Idempotent
 * tasks"), even where it would be optimal, and the solvers and the independent checks of
 * {@link RandomInstancesTest} still agree with the plan.
 */
class IdempotentTasksPlanTest {
    static final Implementation PAR = new Implementation(Implementation.Pattern.PARALLEL, List.of("s1", "s2"));

    /** HandInstancesTest's first instance, where par(s1,s2) is the optimum for t1. */
    static PlanningInput.Builder parIsOptimal() {
        return PlanningInput.builder().composite(sequence())
                .service(service("s1", T1, 1, 0.9, 1, 1000)).service(service("s2", T1, 1, 0.9, 1, 1000))
                .service(service("s3", T2, 1, 0.99, 1, 1000))
                .serviceClass(serviceClass("gold", 4, 0.9, 10, 5), 3).serviceClass(serviceClass("silver", 5, 0.8, 10, 2), 1)
                .settings(PlanningInput.Settings.defaults().withWeights(0.5, 0.5, 0));
    }

    @Test
    void aTaskThatIsNotIdempotentGetsNoParallelSetWhereItWouldBeOptimal() {
        PlanResult idempotent = Both.plan(parIsOptimal().idempotent(T1).build());
        assertEquals(PlanResult.Status.OPTIMAL, idempotent.status(), idempotent.message());
        for (String k : List.of("gold", "silver"))
            assertEquals(List.of(new Plan.Share(PAR, 1.0)), idempotent.plan().shares(k, T1), "par is the optimum when it is allowed");

        PlanResult r = Both.plan(parIsOptimal().build());
        assertEquals(PlanResult.Status.OPTIMAL, r.status(), r.message());
        Plan p = r.plan();
        // without par: alt(s1,s2) (either order) has the same a = .99 as par and r = 1 + .1 * 1 = 1.1;
        // a single s1 or s2 gives gold A = .891 < .9 and silver less per unit of objective
        for (String k : List.of("gold", "silver")) {
            assertClose(0.0, share(p, k, T1, i -> i.pattern() == Implementation.Pattern.PARALLEL), 1e-12, "par share " + k);
            assertClose(1.0, share(p, k, T1, i -> i.pattern() == Implementation.Pattern.ALTERNATE), 1e-9, "alt share " + k);
            assertClose(2.1, p.predictions().get(k).responseTime(), 1e-9, "R " + k);
        }
        double lnA = 2 * Math.log(0.99);
        double f = omega(3, 4, 2) * (0.5 * (1 - 2.1 / 4) + 0.5 * (lnA - Math.log(0.9)) / -Math.log(0.9))
                + omega(1, 4, 2) * (0.5 * (1 - 2.1 / 5) + 0.5 * (lnA - Math.log(0.8)) / -Math.log(0.8));
        assertClose(f, p.objective(), 1e-9, "objective");
        assertTrue(p.objective() < idempotent.plan().objective(), "the constraint costs objective here");
        for (OptimizationEngine cg : Both.columnGeneration()) {
            PlanResult c = cg.plan(parIsOptimal().build());
            assertClose(f, c.plan().objective(), 1e-6, "column generation, " + c.plan().solver());
            assertClose(0.0, share(c.plan(), "gold", T1, i -> i.pattern() == Implementation.Pattern.PARALLEL), 1e-12, "par share, CG");
        }
    }

    @Test
    void onRandomInstancesOnlyIdempotentTasksGetParallelSetsAndEveryCheckStillHolds() {
        int parallelShares = 0;
        for (long seed = 1; seed <= 40; seed++) {
            PlanningInput all = RandomInstancesTest.instance(new Random(seed), seed);
            // every other task is idempotent
            Set<TaskRef> idempotent = new HashSet<>();
            List<TaskRef> tasks = all.composites().get(0).tasks();
            for (int i = 0; i < tasks.size(); i += 2) idempotent.add(tasks.get(i));
            PlanningInput in = new PlanningInput(all.composites(), all.classes(), all.classLoad(), all.services(), all.down(),
                    all.observed(), all.successSamples(), all.failureDetection(), all.profiles(), all.visits(), all.settings(), idempotent);
            PlanResult r = Both.plan(in);
            assertTrue(r.hasPlan(), "seed " + seed + ": " + r.message());
            RandomInstancesTest.check(in, r, "seed " + seed);
            for (var e : r.plan().bindings().entrySet())
                for (Plan.Share s : e.getValue()) {
                    if (s.fraction() <= 0 || s.implementation().pattern() != Implementation.Pattern.PARALLEL) continue;
                    assertTrue(idempotent.contains(e.getKey().task()), "seed " + seed + ": " + s + " for " + e.getKey());
                    parallelShares++;
                }
        }
        assertTrue(parallelShares > 0, "the instances must make par worth choosing for the idempotent tasks");
    }
}
