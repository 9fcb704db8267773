package io.moses.evaluation;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The closed model with The Grinder 3.11: one agent with one worker process of N threads (N the
 * largest step), each thread posting back to back with think time 0; threads join in steps (see
 * closed_model.py), so one Grinder run measures every worker count. The data log (one line per
 * request: start time, test time, errors) is cut into the steps by time.
 */
final class GrinderClosedModel {
    /** Left out at the start of every step: threads joining, connections opening. */
    static final long RAMP_MS = 1000;

    private final String grinderClasspath;
    private final Path java;

    GrinderClosedModel(String grinderClasspath, Path java) {
        this.grinderClasspath = grinderClasspath;
        this.java = java;
    }

    List<ClosedStep> run(Target target, int[] workers, double stepSeconds, Path dir, CpuSampler cpu, Consumer<String> commands,
                         Consumer<String> progress) throws IOException, InterruptedException {
        Files.createDirectories(dir.resolve("logs"));
        Path script = dir.resolve("closed_model.py");
        try (InputStream in = GrinderClosedModel.class.getResourceAsStream("closed_model.py")) {
            Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
        }
        Files.write(dir.resolve("bodies.txt"), target.bodies(), StandardCharsets.UTF_8);
        Files.write(dir.resolve("users.txt"), target.users().stream().map(u -> u.name() + " " + u.authorization()).toList(),
                StandardCharsets.UTF_8);
        long stepMs = Math.round(stepSeconds * 1000);
        int threads = Arrays.stream(workers).max().orElseThrow();
        String props = String.join("\n",
                "# The Grinder 3.11, written by io.moses.evaluation.GrinderClosedModel for target " + target.name(),
                "grinder.script=" + script,
                "grinder.processes=1",
                "grinder.threads=" + threads,
                "grinder.runs=0",
                // a bound on the whole run; the threads stop themselves at the end of the last step
                "grinder.duration=" + (workers.length * stepMs + 15_000),
                "grinder.useConsole=false",
                "grinder.reportToConsole.interval=60000",
                "grinder.logDirectory=" + dir.resolve("logs"),
                // the worker JVM is this Java (on Java 25 Grinder would otherwise start "java" from the PATH)
                "grinder.jvm=" + java,
                "grinder.jvm.arguments=-Xmx512m",
                "moses.url=" + target.url(),
                "moses.soapAction=" + target.soapAction(),
                "moses.steps=" + Arrays.stream(workers).mapToObj(Integer::toString).collect(Collectors.joining(",")),
                "moses.stepMillis=" + stepMs,
                "moses.bodies=" + dir.resolve("bodies.txt"),
                "moses.users=" + dir.resolve("users.txt"),
                "moses.t0file=" + dir.resolve("t0.txt"),
                "moses.timeoutMillis=10000", "");
        Path properties = dir.resolve("grinder.properties");
        Files.writeString(properties, props);
        List<String> cmd = List.of(java.toString(), "-cp", grinderClasspath, "net.grinder.Grinder", properties.toString());
        commands.accept("cd " + dir + " && " + java + " -cp $GRINDER_CLASSPATH net.grinder.Grinder " + properties
                + "   # GRINDER_CLASSPATH = loadtest/grinder/target/classes (our JVM check, quiet logback-worker.xml) + loadtest/grinder/target/classpath.txt");
        Process agent = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("agent.out").toFile()).start();
        try {
            long boundMs = workers.length * stepMs + 60_000;
            long started = System.nanoTime();
            int shown = -1;
            while (!agent.waitFor(500, TimeUnit.MILLISECONDS)) {
                if (System.nanoTime() - started > boundMs * 1_000_000) {
                    throw new IllegalStateException("Grinder did not finish within " + boundMs / 1000 + " s; its output: " + dir.resolve("agent.out"));
                }
                Long t0 = t0(dir);
                if (t0 != null) {
                    int step = (int) ((System.currentTimeMillis() - t0) / stepMs);
                    if (step >= 0 && step < workers.length && step != shown) {
                        shown = step;
                        progress.accept(String.format("  closed %-8s %3d workers (step %d of %d, %.0f s)", target.name(), workers[step],
                                step + 1, workers.length, stepSeconds));
                    }
                }
            }
        } finally {
            if (agent.isAlive()) {
                agent.destroy();
                if (!agent.waitFor(10, TimeUnit.SECONDS)) agent.destroyForcibly();
            }
        }
        Long t0 = t0(dir);
        Path data = dir.resolve("logs").resolve("vm-0-data.log");
        if (t0 == null || !Files.exists(data))
            throw new IllegalStateException("Grinder ran no test (no data log); its output: " + dir.resolve("agent.out")
                    + "\n" + tail(dir.resolve("agent.out"), 15) + "\n" + tail(dir.resolve("logs").resolve("vm-0.log"), 15));
        return steps(target, workers, t0, stepMs, Files.readAllLines(data), cpu);
    }

    /** Cuts Grinder's data log into steps: the requests that started in each step's measured window. */
    static List<ClosedStep> steps(Target target, int[] workers, long t0, long stepMs, List<String> dataLog, CpuSampler cpu) {
        List<long[]> rows = new ArrayList<>(); // start ms, test time ms, errors
        for (String line : dataLog) {
            if (line.isBlank() || line.startsWith("Thread")) continue;
            String[] f = line.split(",\\s*");
            rows.add(new long[]{Long.parseLong(f[3]), Long.parseLong(f[4]), Long.parseLong(f[5])});
        }
        List<ClosedStep> steps = new ArrayList<>();
        for (int i = 0; i < workers.length; i++) {
            long from = t0 + i * stepMs + RAMP_MS;
            long to = t0 + (i + 1) * stepMs;
            List<long[]> in = rows.stream().filter(r -> r[0] >= from && r[0] < to).toList();
            double seconds = (to - from) / 1000.0;
            long errors = in.stream().filter(r -> r[2] > 0).count();
            double[] times = in.stream().filter(r -> r[2] == 0).mapToDouble(r -> r[1]).sorted().toArray();
            double throughput = in.size() / seconds;
            double cpuMs = cpu == null ? Double.NaN : cpu.cpuMs(from, to) / Math.max(1, in.size());
            steps.add(new ClosedStep(target.name(), workers[i], seconds, in.size(), errors, throughput, throughput / target.scale(),
                    mean(times), percentile(times, 50), percentile(times, 95), cpuMs));
        }
        return steps;
    }

    private static Long t0(Path dir) {
        try {
            Path f = dir.resolve("t0.txt");
            String s = Files.exists(f) ? Files.readString(f).trim() : "";
            return s.isEmpty() ? null : Long.parseLong(s);
        } catch (IOException | NumberFormatException e) {
            return null;
        }
    }

    static double mean(double[] v) {
        return v.length == 0 ? Double.NaN : Arrays.stream(v).average().orElse(Double.NaN);
    }

    /** Nearest-rank percentile of sorted values. */
    static double percentile(double[] sorted, double p) {
        if (sorted.length == 0) return Double.NaN;
        int rank = (int) Math.ceil(p / 100 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    private static String tail(Path f, int n) {
        try {
            List<String> l = Files.readAllLines(f);
            return String.join("\n", l.subList(Math.max(0, l.size() - n), l.size()));
        } catch (IOException e) {
            return "";
        }
    }
}
