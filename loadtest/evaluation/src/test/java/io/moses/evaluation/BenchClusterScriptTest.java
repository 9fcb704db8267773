package io.moses.evaluation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code loadtest/bench-cluster.sh} (the scale-out cost) end to end with tiny
 * settings and this build's class path instead of a {@code moses build}: a cluster of two
 * replicas behind HAProxy, one round of one replica (r2 in maintenance) and two, then the
 * script's report checked against itself: the requests each replica answered, CPU per request,
 * the ratio two/one and its verdict, the idle CPU and the explanation lines, and every process
 * it started stopped. The figures themselves belong to the benchmark journal (docs/benchmarks/), not to a test.
 */
@Tag("e2e")
class BenchClusterScriptTest {
    private static final String NUM = "([0-9]+(?:\\.[0-9]+)?)";
    /** A round's row: round conf req/s p50 p99 errors r1%/r2% broker r1 r2 haproxy stubs mariadb wrk machine. */
    private static final Pattern ROW = Pattern.compile("^1\\s+(one|two)\\s+" + NUM + "\\s+" + NUM + "\\s+" + NUM + "\\s+([0-9]+)\\s+([0-9]+)/([0-9]+)\\s+"
            + NUM + "\\s+" + NUM + "\\s+" + NUM + "\\s+" + NUM + "\\s+" + NUM + "\\s+" + NUM + "\\s+" + NUM + "\\s+" + NUM + "\\s*$",
            Pattern.MULTILINE);
    /** A configuration's medians: conf req/s p50 p99 errors broker r1 r2 haproxy stubs mariadb wrk machine jit+gc. */
    private static final Pattern MEDIAN = Pattern.compile("^(one|two)\\s+" + NUM + "\\s+" + NUM + "\\s+" + NUM + "\\s+([0-9]+)\\s+" + NUM
            + "(?:\\s+" + NUM + "){8}\\s*$", Pattern.MULTILINE);
    private static final Pattern VERDICT = Pattern.compile(
            "scale-out cost: broker CPU per request, two replicas / one replica: " + NUM + "x \\(goal <= 1\\.1x\\): (met|NOT MET) \\(per round: " + NUM + "\\)");
    private static final Pattern PIDS = Pattern.compile("bench: PIDs: r1 ([0-9]+), r2 ([0-9]+), haproxy ([0-9]+), stubs ([0-9]+), mariadb ([0-9]+)");

    @TempDir Path dir;

    @Test
    void oneRoundOfOneAndTwoReplicasReportsCpuPerRequestTheRatioAndItsVerdictThenStopsEverything() throws Exception {
        for (String tool : List.of("wrk", "haproxy", "mariadbd"))
            if (!onPath(tool)) {
                if ("true".equalsIgnoreCase(System.getenv("CI"))) throw new IllegalStateException("needs " + tool);
                Assumptions.abort("needs " + tool);
            }
        Path home = Path.of(System.getProperty("user.dir")).resolve("../..").toAbsolutePath().normalize();
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        ProcessBuilder pb = new ProcessBuilder("bash", home.resolve("loadtest/bench-cluster.sh").toString(), "--rounds", "1", "--seconds", "5",
                "--clients", "2", "--warmup", "5", "--idle", "2", "--no-build").redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.put("MOSES_CLUSTER_DIR", dir.resolve("cluster").toString());
        env.put("MOSES_BROKER_CP", classpath);
        env.put("MOSES_STUBS_CP", classpath);
        env.put("JAVA_HOME", System.getProperty("java.home"));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        // the script bounds its own waits (cluster start, HAProxy's state, wrk); this only bounds a hang
        if (!p.waitFor(15, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException("bench-cluster.sh did not finish:\n" + out);
        }
        System.out.println(out);
        assertEquals(0, p.exitValue(), out);

        // every process the bench started is stopped, whatever the figures
        Matcher pids = PIDS.matcher(out);
        assertTrue(pids.find(), out);
        for (int i = 1; i <= 5; i++) {
            long pid = Long.parseLong(pids.group(i));
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "process " + pid + " stopped:\n" + out);
        }

        // one row per configuration; r2 in maintenance answers nothing, in the rotation it answers some
        List<MatchResult> rows = ROW.matcher(out).results().toList();
        assertEquals(List.of("one", "two"), rows.stream().map(m -> m.group(1)).toList(), out);
        MatchResult one = rows.get(0), two = rows.get(1);
        assertEquals("100/0", one.group(6) + "/" + one.group(7), "one replica: r2 (in maintenance) answered nothing:\n" + out);
        assertTrue(Integer.parseInt(two.group(6)) > 0 && Integer.parseInt(two.group(7)) > 0, "two replicas: both answered:\n" + out);
        for (MatchResult m : rows) {
            assertTrue(Double.parseDouble(m.group(2)) > 0, "requests completed:\n" + out);
            assertTrue(Double.parseDouble(m.group(8)) > 0, "broker CPU per request:\n" + out);
        }
        // the broker's figure is r1 alone with one replica, r1 + r2 with two
        assertEquals(Double.parseDouble(one.group(9)), Double.parseDouble(one.group(8)), 0.011, out);
        assertEquals(Double.parseDouble(two.group(9)) + Double.parseDouble(two.group(10)), Double.parseDouble(two.group(8)), 0.021, out);

        // the medians (one round: the row itself), the ratio of their broker figures and a verdict that follows from it
        List<MatchResult> medians = MEDIAN.matcher(out).results().toList();
        assertEquals(List.of("one", "two"), medians.stream().map(m -> m.group(1)).toList(), out);
        double[] broker = medians.stream().mapToDouble(m -> Double.parseDouble(m.group(6))).toArray();
        assertEquals(Double.parseDouble(one.group(8)), broker[0], 1e-9, out);
        assertEquals(Double.parseDouble(two.group(8)), broker[1], 1e-9, out);
        Matcher verdict = VERDICT.matcher(out);
        assertTrue(verdict.find(), out);
        double ratio = Double.parseDouble(verdict.group(1));
        assertEquals(broker[1] / broker[0], ratio, 0.006, out);
        assertEquals(ratio <= 1.1 ? "met" : "NOT MET", verdict.group(2), out);
        assertEquals(ratio, Double.parseDouble(verdict.group(3)), 0.006, "one round: its ratio is the ratio:\n" + out);

        for (String line : List.of("bench: idle CPU, ms per s: r1 ", "HAProxy: ", "why: the replicas' idle CPU", "why, per replica: CPU per request it answered",
                "why, by thread"))
            assertTrue(out.contains(line), "'" + line + "' in:\n" + out);
        assertTrue(Arrays.stream(out.split("\n")).anyMatch(l -> l.matches("  \\S+\\s+[0-9.]+\\s+[0-9.]+\\s+[-+][0-9.]+")), "a thread row:\n" + out);
        assertFalse(Files.exists(dir.resolve("cluster/state")), "cluster.sh's state removed");
    }

    private static boolean onPath(String tool) throws IOException {
        for (String d : (System.getenv("PATH") + ":/usr/sbin:/usr/local/sbin").split(":"))
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, tool))) return true;
        return false;
    }
}
