package io.moses.evaluation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code loadtest/bench-shed.sh} (overload shed by class) end to end with tiny settings
 * and this build's class path instead of a {@code moses build}: stubs, a broker shedding by class
 * and one in arrival order, a capacity run, then an open loop at twice it against each. Checks the
 * report's shape against itself: a row per variant and class whose outcomes add up to what was
 * offered, a verdict that follows from its own mean and R_max, the driver's 503s matching the
 * broker's own count of its refusals, the ratio lines, no error of the driver itself, and every
 * process it started stopped. How well shedding works is a figure for
 * the benchmark journal (docs/benchmarks/), not for a test.
 */
@Tag("e2e")
class BenchShedScriptTest {
    private static final String NUM = "([0-9]+(?:\\.[0-9]+)?)";
    /** variant class offered served refused other failed mean p99 R_max verdict */
    private static final Pattern ROW = Pattern.compile("^(class|equal)\\s+(gold|bronze)\\s+([0-9]+)\\s+([0-9]+)\\s+([0-9]+)\\s+([0-9]+)\\s+([0-9]+)\\s+"
            + NUM + "\\s+" + NUM + "\\s+([0-9]+)\\s+(yes|NO)\\s*$", Pattern.MULTILINE);
    private static final Pattern DRIVER = Pattern.compile("(class|equal): DRIVER rate=" + NUM + " seconds=[0-9]+ offered=([0-9]+) .* errors=([0-9]+)");
    private static final Pattern BROKER = Pattern.compile("(class|equal): BROKER shed total=([0-9]+)");
    private static final Pattern CAPACITY = Pattern.compile("capacity \\(closed loop, .*\\): " + NUM + " req/s");
    private static final Pattern PIDS = Pattern.compile("bench-shed: PIDs: class ([0-9]+), equal ([0-9]+), stubs ([0-9]+)");

    @Test
    void aShortRunReportsEachVariantAndClassConsistentlyWithNoDriverErrorsThenStopsEverything() throws Exception {
        if (!onPath("wrk")) {
            if ("true".equalsIgnoreCase(System.getenv("CI"))) throw new IllegalStateException("needs wrk");
            Assumptions.abort("needs wrk");
        }
        Path home = Path.of(System.getProperty("user.dir")).resolve("../..").toAbsolutePath().normalize();
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        ProcessBuilder pb = new ProcessBuilder("bash", home.resolve("loadtest/bench-shed.sh").toString(), "--seconds", "4", "--capacity-seconds", "3",
                "--warmup", "3", "--max-in-flight", "4", "--max-queued", "4", "--no-build").redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.put("MOSES_BROKER_CP", classpath);
        env.put("MOSES_STUBS_CP", classpath);
        env.put("JAVA_HOME", System.getProperty("java.home"));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        // the script bounds its own waits (ports, wrk, the driver); this only bounds a hang
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException("bench-shed.sh did not finish:\n" + out);
        }
        System.out.println(out);
        assertEquals(0, p.exitValue(), out);

        Matcher pids = PIDS.matcher(out);
        assertTrue(pids.find(), out);
        for (int i = 1; i <= 3; i++) {
            long pid = Long.parseLong(pids.group(i));
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "process " + pid + " stopped:\n" + out);
        }

        Matcher capacity = CAPACITY.matcher(out);
        assertTrue(capacity.find(), out);
        double rate = 2 * Double.parseDouble(capacity.group(1));
        List<MatchResult> drivers = DRIVER.matcher(out).results().toList();
        assertEquals(List.of("class", "equal"), drivers.stream().map(m -> m.group(1)).toList(), out);
        for (MatchResult d : drivers) {
            assertEquals(rate, Double.parseDouble(d.group(2)), 0.11, "offered twice the capacity:\n" + out);
            assertEquals("0", d.group(4), "the driver's own errors:\n" + out);
        }

        List<MatchResult> rows = ROW.matcher(out).results().toList();
        assertEquals(List.of("class gold", "class bronze", "equal gold", "equal bronze"), rows.stream().map(m -> m.group(1) + " " + m.group(2)).toList(), out);
        for (MatchResult r : rows) {
            long offered = Long.parseLong(r.group(3)), served = Long.parseLong(r.group(4)), refused = Long.parseLong(r.group(5)),
                    other = Long.parseLong(r.group(6)), failed = Long.parseLong(r.group(7));
            long sent = Long.parseLong(drivers.get(r.group(1).equals("class") ? 0 : 1).group(3));
            // users in turn: gold, bronze, gold, bronze
            assertEquals(r.group(2).equals("gold") ? (sent + 1) / 2 : sent / 2, offered, "half the requests to each class:\n" + out);
            assertEquals(offered, served + refused + other + failed, "every request has one outcome:\n" + out);
            double mean = Double.parseDouble(r.group(8)), p99 = Double.parseDouble(r.group(9));
            long rmax = Long.parseLong(r.group(10));
            assertEquals(r.group(2).equals("gold") ? 1500 : 6000, rmax, "R_max from the seed:\n" + out);
            assertEquals(served > 0, mean > 0 && p99 > 0, "times of served requests only:\n" + out);
            assertEquals(served > 0 && mean < rmax ? "yes" : "NO", r.group(11), "the verdict follows from the row:\n" + out);
        }
        // every 503 the driver counted is one the broker counted in moses_admission_shed_total
        List<MatchResult> broker = BROKER.matcher(out).results().toList();
        assertEquals(List.of("class", "equal"), broker.stream().map(m -> m.group(1)).toList(), out);
        for (MatchResult b : broker) {
            long refused = rows.stream().filter(r -> r.group(1).equals(b.group(1))).mapToLong(r -> Long.parseLong(r.group(5))).sum();
            assertEquals(refused, Long.parseLong(b.group(2)), "the broker's refusals of " + b.group(1) + ":\n" + out);
        }
        for (String c : List.of("gold", "bronze"))
            assertTrue(Pattern.compile("^" + c + ": refused [0-9.]+% \\(class\\) vs [0-9.]+% \\(equal\\); class/equal: served ", Pattern.MULTILINE).matcher(out).find(),
                    "the ratio line of " + c + ":\n" + out);
        assertTrue(out.contains("bench-shed: driver (tool) errors: 0;"), out);
    }

    private static boolean onPath(String tool) throws IOException {
        for (String d : (System.getenv("PATH") + ":/usr/sbin:/usr/local/sbin").split(":"))
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, tool))) return true;
        return false;
    }
}
