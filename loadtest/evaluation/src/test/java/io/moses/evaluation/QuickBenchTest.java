package io.moses.evaluation;

import static io.moses.evaluation.ReportFiles.csv;
import static io.moses.evaluation.ReportFiles.deleteTree;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code moses bench --quick} end to end against the stub services: real brokers (static and
 * adaptive binding) as child processes, The Grinder and httperf as the load, then the report's
 * own data (closed.csv, open.csv) checked: every step present, no errors at low load, throughput
 * rising with the workers until the broker saturates; the open model sent as the seed's six users.
 * The cluster lines ({@code --replicas}) are not in the quick run (each cluster takes a minute or
 * more to start here): {@link ClusterBenchTest} runs the smallest one. About a minute and a half on a
 * 2-core machine (a third of it starting the two brokers).
 */
@Tag("e2e")
class QuickBenchTest {
    private static final List<String> TARGETS = List.of("static", "adaptive", "direct");

    @Test
    void quickBenchReportHasEveryStepAndNoLowLoadErrors() throws Exception {
        Path out = Files.createTempDirectory("moses-bench-test");
        // the quick preset's steps and rates, each 2 s instead of 4 and 3: what is checked is the
        // report's shape and its honesty, which the length of a step does not change
        Bench.Options preset = Bench.Options.quick();
        Bench.Options quick = new Bench.Options(preset.workers(), 2, preset.rates(), 2, preset.latencyMs(), preset.bindings(),
                preset.closed(), preset.open(), preset.direct(), preset.warmupSeconds(), out, preset.replicas());
        List<String> said = new ArrayList<>();
        Bench.Result result = Bench.run(quick, ReportFiles.setup(), "QuickBenchTest",
                line -> {
                    said.add(line);
                    System.out.println(line);
                });

        List<Map<String, String>> closed = csv(out.resolve("closed.csv"));
        List<Map<String, String>> open = csv(out.resolve("open.csv"));
        for (String t : TARGETS) {
            List<Map<String, String>> c = closed.stream().filter(r -> r.get("target").equals(t)).toList();
            assertEquals(Arrays.stream(quick.workers()).boxed().toList(), c.stream().map(r -> Integer.parseInt(r.get("workers"))).toList(),
                    t + ": every closed-model step, in order");
            for (Map<String, String> r : c) assertTrue(num(r, "requests") > 0, t + " ran requests at " + r.get("workers") + " workers");
            assertEquals(0, num(c.get(0), "errors"), t + ": no errors with 1 worker");
            assertEquals(0, num(c.get(1), "errors"), t + ": no errors with 2 workers");
            // No judgement of throughput here (it rose with workers only on a quiet machine, and a
            // loaded one defeated it): how the throughput and response time grow is the bench's
            // report, read by a person; this test checks that the report is whole and honest.
            assertTrue(c.stream().allMatch(r -> r.get("replicas").equals("0")), t + ": a lone broker, no cluster: " + c);
            List<Map<String, String>> o = open.stream().filter(r -> r.get("target").equals(t)).toList();
            // the open model went as all six of the seed's users (three classes), each session with
            // its own Authorization header through the user header proxy; a wrong header would be a
            // fault, counted as an error at the lowest rate below
            String sessions = Files.readString(out.resolve("raw/httperf-" + t + "/sessions.txt"));
            for (Target.User u : Bench.users())
                assertTrue(sessions.contains("?user=" + u.name() + " method=POST"), t + ": httperf sessions as " + u.name());
            assertTrue(Files.exists(out.resolve("raw/httperf-" + t + "/user-header-proxy.cfg")), t + ": through the user header proxy");
            // every rate in order; the bench stops a target after two rates in a row beyond saturation
            List<Double> expected = new ArrayList<>();
            int inARow = 0;
            for (double rate : quick.rates()) {
                if (inARow == 2 || expected.size() >= o.size()) break;
                expected.add(rate);
                inARow = o.get(expected.size() - 1).get("saturated").equals("true") ? inARow + 1 : 0;
            }
            assertTrue(inARow == 2 || expected.size() == quick.rates().length, t + ": rates missing before saturation: " + o);
            assertEquals(expected, o.stream().map(r -> num(r, "rate")).toList(), t + ": the open-model rates, in order");
            Map<String, String> lowest = o.get(0);
            assertEquals(0, num(lowest, "errors"), t + ": no errors at the lowest rate: " + lowest);
            assertTrue(num(lowest, "achieved_rps") > 0, t + ": replies at the lowest rate: " + lowest);
        }
        assertTrue(result.ok(), "the bench's own verdict:\n" + result.summary());
        String summary = Files.readString(out.resolve("summary.txt"));
        assertTrue(summary.contains("ratio adaptive/static"), summary);
        assertTrue(summary.contains("ratio static/direct-limit"), summary);
        String html = Files.readString(out.resolve("index.html"));
        assertTrue(html.contains("<script src=\"" + Report.CHART_JS + "\">") && Files.size(out.resolve(Report.CHART_JS)) > 100_000,
                "the page loads the vendored Chart.js next to it");
        for (String f : List.of("machine.txt", "versions.txt", "commands.txt"))
            assertTrue(Files.size(out.resolve(f)) > 0, f);
        assertTrue(Files.readString(out.resolve("commands.txt")).contains("httperf -v -v --hog"));
        deleteTree(out);
    }

    private static double num(Map<String, String> row, String column) {
        return Double.parseDouble(row.get(column));
    }
}
