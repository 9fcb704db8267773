package io.moses.evaluation;

import static io.moses.evaluation.ReportFiles.csv;
import static io.moses.evaluation.ReportFiles.deleteTree;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code moses bench --replicas} end to end, as small as it gets: one cluster (a throwaway
 * MariaDB, one replica with the static binding, HAProxy; cluster/cluster.sh up with the bench's
 * seed and stubs), two closed-model steps and one rate, then the report's data for the line
 * static@1 and the cluster gone (every process it started stopped, its data directory removed).
 * About two minutes on a busy 2-core machine, most of it starting MariaDB and the replica. The
 * full comparison (1 and 2 replicas, both bindings) is a benchmark run by hand (docs/benchmarks/2026-11-23-cluster.md).
 */
@Tag("e2e")
class ClusterBenchTest {
    private static final Pattern PIDS = Pattern.compile("PIDs \\[([0-9, ]+)]");

    @Test
    void oneReplicaBehindHaproxyMeasuredThenStoppedByPid() throws Exception {
        Path out = Files.createTempDirectory("moses-bench-cluster-test");
        Bench.Options o = new Bench.Options(new int[]{1, 2}, 3, new double[]{10}, 2, 5, List.of("static"), true, true, false, 2, out,
                List.of(1));
        List<String> said = new ArrayList<>();
        Bench.Result result = Bench.run(o, ReportFiles.setup(), "ClusterBenchTest",
                line -> {
                    said.add(line);
                    System.out.println(line);
                });

        List<Map<String, String>> closed = csv(out.resolve("closed.csv"));
        assertEquals(List.of("static@1", "static@1"), closed.stream().map(r -> r.get("target")).toList(), "one line, both steps: " + closed);
        assertEquals(List.of(1, 2), closed.stream().map(r -> Integer.parseInt(r.get("workers"))).toList());
        for (Map<String, String> r : closed) {
            assertEquals("1", r.get("replicas"));
            assertTrue(Double.parseDouble(r.get("requests")) > 0, "requests through HAProxy: " + r);
            assertEquals("0", r.get("errors"), "no errors at low load: " + r);
            assertFalse(r.get("cpu_ms_per_request").isEmpty(), "CPU of the replica, HAProxy and MariaDB sampled: " + r);
        }
        List<Map<String, String>> open = csv(out.resolve("open.csv"));
        assertEquals(1, open.size(), "one rate: " + open);
        assertEquals("static@1", open.get(0).get("target"));
        assertEquals("0", open.get(0).get("errors"), "the open model's lowest rate, as the seed's users: " + open);
        assertTrue(result.ok(), result.summary());
        assertTrue(Files.readString(out.resolve("commands.txt")).contains("cluster/cluster.sh up --replicas 1 --binding static"));

        // torn down: every PID the bench counted CPU for is gone, and the throwaway database with it
        String line = said.stream().filter(l -> l.contains("CPU counted")).findFirst().orElseThrow();
        Matcher m = PIDS.matcher(line);
        assertTrue(m.find(), line);
        List<Long> pids = Arrays.stream(m.group(1).split(", ")).map(Long::parseLong).toList();
        assertEquals(3, pids.size(), "MariaDB, one replica, HAProxy: " + line);
        for (long pid : pids) assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "process " + pid + " stopped");
        assertFalse(Files.exists(out.resolve("raw/cluster-static-1/mariadb")), "the throwaway MariaDB's data removed");
        assertFalse(Files.exists(out.resolve("raw/cluster-static-1/state")), "cluster.sh's state removed");
        deleteTree(out);
    }
}
