package io.moses.evaluation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code --replicas}'s plumbing without starting a cluster: the targets and their order, the
 * replicas column, the two-replica/one-replica ratios, the low-load verdict over every line, and
 * reading cluster.sh's state for the PIDs whose CPU is counted.
 */
@Tag("e2e")
class ReplicasSummaryTest {
    private static Bench.Options options(List<Integer> replicas) {
        return new Bench.Options(new int[]{1, 2}, 4, new double[]{10, 20}, 3, 5, List.of("static", "adaptive"), true, true, true, 2,
                null, replicas);
    }

    private static ClosedStep closed(String t, int w, double rps, double cpu) {
        return new ClosedStep(t, w, 4, (long) (rps * 4), 0, rps, rps, w * 1000 / rps, w * 1000 / rps, 2 * w * 1000 / rps, cpu);
    }

    private static OpenStep open(String t, double rate, double mean, boolean saturated) {
        return new OpenStep(t, rate, rate, (long) (rate * 3), (long) (rate * 3), 0, 3, rate, mean, mean, 2 * mean, 3 * mean, 4 * mean, 5,
                false, saturated);
    }

    @Test
    void targetsOnePerBindingAndReplicaCountThenDirect() {
        assertEquals(List.of("static", "adaptive", "direct"), options(List.of()).targets());
        assertEquals(List.of("static@1", "static@2", "adaptive@1", "adaptive@2", "direct"), options(List.of(1, 2)).targets());
        assertEquals(2, Target.replicas("adaptive@2"));
        assertEquals(0, Target.replicas("adaptive"));
        assertEquals("adaptive", Target.binding("adaptive@2"));
        assertTrue(closed("static@2", 1, 10, 1).csv().startsWith("static@2,2,1,"), "the replicas column");
        assertTrue(open("direct", 10, 5, false).csv().startsWith("direct,0,10.00,"), "the replicas column");
    }

    @Test
    void ratiosTwoReplicasOverOneAndTheVerdictCoversEveryLine() {
        Bench.Options o = options(List.of(1, 2));
        List<ClosedStep> c = new ArrayList<>();
        List<OpenStep> p = new ArrayList<>();
        Map<String, double[]> rps = Map.of("static@1", new double[]{10, 16}, "static@2", new double[]{11, 20},
                "adaptive@1", new double[]{9, 15}, "adaptive@2", new double[]{9, 18}, "direct", new double[]{50, 100});
        for (String t : o.targets()) {
            c.add(closed(t, 1, rps.get(t)[0], 4));
            c.add(closed(t, 2, rps.get(t)[1], t.endsWith("@2") ? 6 : 4));
            p.add(open(t, 10, t.endsWith("@2") ? 30 : 20, false));
            p.add(open(t, 20, 40, t.endsWith("@1")));
        }
        String s = Summary.of(o, c, p, 6);
        // static: peak 20/16 = 1.25; per step 1.1 and 1.25, median 1.175; response time 1/1.1 and 0.8, median 0.85; CPU 1.0 and 1.5, median 1.25
        assertTrue(s.contains("ratio static: 2 replicas/1 replica: peak throughput 1.25, median per step: throughput 1.18, "
                + "mean response time 0.85, CPU per request 1.25"), s);
        assertTrue(s.contains("ratio adaptive: 2 replicas/1 replica: peak throughput 1.20"), s);
        assertTrue(s.contains("ratio adaptive/static with 2 replicas: peak throughput 0.90"), s);
        assertTrue(s.contains("ratio static: 2 replicas/1 replica over the rates both absorbed (median): mean response time 1.50"), s);
        assertTrue(s.contains("ratio static: 2 replicas/1 replica, highest rate absorbed: 2.00 (20.0 against 10.0 req/s)"), s);
        assertTrue(s.contains("a second replica adds no cores"), s);
        assertTrue(Summary.lowLoadClean(o, c, p));
        // a line missing (a cluster that did not start) fails the verdict
        assertFalse(Summary.lowLoadClean(o, c.stream().filter(x -> !x.target().equals("adaptive@2")).toList(), p));
    }

    @Test
    void clusterStateGivesTheReplicasHaproxyAndMariadbPids() {
        Map<String, String> state = Cluster.state("""
                REPLICAS=2
                MARIADB_PID=101
                MARIADB_PORT=33000
                DB=jdbc:mariadb://127.0.0.1:33000/moses
                STUBS_PORT=9999
                PID_r1=102
                PORT_r1=40001
                PID_r2=103
                PORT_r2=40002
                HAPROXY_PID=104
                FRONT_PORT=40003
                """);
        assertEquals(List.of(101L, 102L, 103L, 104L), Cluster.pids(state));
        // stubs given with --stubs: no STUBS_PID, and the shared stubs' CPU is not the cluster's
        assertFalse(state.containsKey("STUBS_PID"));
    }
}
