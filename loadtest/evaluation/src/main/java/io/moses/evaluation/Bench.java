package io.moses.evaluation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.loadtest.demo.Child;
import io.moses.loadtest.demo.Demo;
import io.moses.loadtest.demo.TripLoad;
import io.moses.loadtest.driver.LoadResult;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * {@code moses bench}: the MOSES paper's evaluation on this broker. Starts the stub services and
 * one broker per binding (static, adaptive; the same seed, a plan of single services) as child
 * processes, then for each binding and for one stub called directly (the direct-call limit) runs
 * the closed model (The Grinder, workers ramped in steps) and the open model (httperf, constant
 * rates up to past saturation), and writes a report under loadtest/reports/&lt;time&gt;/.
 * Exits 0 when every step ran and nothing failed at low load (the first two closed steps and the
 * lowest rate), 1 otherwise, 2 for bad arguments.
 */
public final class Bench {
    private static final Pattern STUBS = Pattern.compile("stubs listening on http://[^:]+:(\\d+)");
    private static final Pattern BROKER = Pattern.compile("broker listening on http://[^:]+:(\\d+)");
    private static final String[] TASKS = {"flight", "hotel", "weather", "car", "attraction", "payment"};
    static final String TRIP_ACTION = "urn:moses:trip-planner/planTrip";

    /** What to run; {@link #quick()} and {@link #full()} are the two documented presets. */
    public record Options(int[] workers, double stepSeconds, double[] rates, double rateSeconds, int latencyMs,
                          List<String> bindings, boolean closed, boolean open, boolean direct, double warmupSeconds, Path out,
                          List<Integer> replicas) {
        public static Options quick() {
            return new Options(new int[]{1, 2, 4, 8}, 4, new double[]{10, 20, 40, 80}, 3, 5, List.of("static", "adaptive"),
                    true, true, true, 2, null, List.of());
        }

        public static Options full() {
            return new Options(new int[]{1, 2, 4, 8, 16, 32}, 20, new double[]{5, 10, 20, 30, 40, 60, 80, 120, 160}, 20, 5,
                    List.of("static", "adaptive"), true, true, true, 20, null, List.of());
        }

        Options with(Path o) {
            return new Options(workers, stepSeconds, rates, rateSeconds, latencyMs, bindings, closed, open, direct, warmupSeconds, o, replicas);
        }

        /**
         * The lines of the report, in the order they run: one per binding (a lone broker), or with
         * {@code replicas} one per binding and replica count (binding@N: N replicas behind
         * HAProxy); then the direct-call limit.
         */
        List<String> targets() {
            List<String> t = new ArrayList<>();
            for (String b : bindings)
                if (replicas.isEmpty()) t.add(b);
                else for (int n : replicas) t.add(b + "@" + n);
            if (direct) t.add("direct");
            return t;
        }
    }

    /** Where the child processes' classes are, and the project's root. */
    public record Setup(Path home, String brokerClasspath, String stubsClasspath, String grinderClasspath) {}

    /** The outcome: the steps, the report directory, and whether the low-load steps were clean. */
    public record Result(List<ClosedStep> closed, List<OpenStep> open, Path report, boolean ok, String summary) {}

    private Bench() {}

    public static void main(String[] args) throws Exception {
        Options o = Options.full();
        for (String a : args) if (a.equals("--quick")) o = Options.quick();
        int[] workers = o.workers();
        double step = o.stepSeconds(), rateSeconds = o.rateSeconds(), warmup = o.warmupSeconds();
        double[] rates = o.rates();
        int latency = o.latencyMs();
        List<String> bindings = o.bindings();
        boolean closed = o.closed(), open = o.open(), direct = o.direct();
        Path out = null;
        List<Integer> replicas = o.replicas();
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--quick" -> { }
                    case "--workers" -> workers = Arrays.stream(value(args, ++i).split(",")).mapToInt(Integer::parseInt).toArray();
                    case "--step-seconds" -> step = Double.parseDouble(value(args, ++i));
                    case "--rates" -> rates = Arrays.stream(value(args, ++i).split(",")).mapToDouble(Double::parseDouble).toArray();
                    case "--rate-seconds" -> rateSeconds = Double.parseDouble(value(args, ++i));
                    case "--latency" -> latency = Integer.parseInt(value(args, ++i));
                    case "--bindings" -> bindings = List.of(value(args, ++i).split(","));
                    case "--models" -> {
                        List<String> m = List.of(value(args, ++i).split(","));
                        closed = m.contains("closed");
                        open = m.contains("open");
                    }
                    case "--no-direct" -> direct = false;
                    case "--warmup" -> warmup = Double.parseDouble(value(args, ++i));
                    case "--replicas" -> replicas = Arrays.stream(value(args, ++i).split(",")).map(Integer::parseInt).toList();
                    case "--out" -> out = Path.of(value(args, ++i));
                    case "-h", "--help" -> usage(null);
                    default -> usage("unknown option " + args[i]);
                }
            }
        } catch (NumberFormatException e) {
            usage("not a number: " + e.getMessage());
        }
        if (workers.length == 0 || Arrays.stream(workers).anyMatch(w -> w <= 0) || Arrays.stream(rates).anyMatch(r -> r <= 0)
                || step < 2 || rateSeconds < 1 || latency < 0)
            usage("workers and rates must be positive, --step-seconds at least 2, --rate-seconds at least 1");
        for (String b : bindings) if (!b.equals("static") && !b.equals("adaptive")) usage("--bindings are static and/or adaptive, got '" + b + "'");
        if (replicas.stream().anyMatch(n -> n < 1 || n > 8)) usage("--replicas are counts from 1 to 8, e.g. 1,2");
        Path home = Path.of(System.getProperty("moses.home", ".")).toAbsolutePath().normalize();
        String brokerCp = System.getProperty("moses.broker.classpath");
        String grinderCp = System.getProperty("moses.grinder.classpath");
        if (brokerCp == null || (closed && grinderCp == null)) usage("run through ./moses bench (class paths missing)");
        Options opts = new Options(workers, step, rates, rateSeconds, latency, bindings, closed, open, direct, warmup, out, replicas);
        Result r = run(opts, new Setup(home, brokerCp, System.getProperty("java.class.path"), grinderCp),
                System.getProperty("moses.command", "moses bench " + String.join(" ", args)), Bench::say);
        System.exit(r.ok() ? 0 : 1);
    }

    public static Result run(Options o, Setup setup, String commandLine, Consumer<String> out) throws Exception {
        long began = System.nanoTime();
        // progress lines carry the seconds since the start: where a slow run spends its time
        Consumer<String> say = line -> out.accept(String.format("%4d s  %s", (System.nanoTime() - began) / 1_000_000_000L, line));
        if (o.open() && !onPath("httperf"))
            throw new IllegalStateException("httperf is not installed (Debian package httperf; .ci/run installs it)");
        String stamp = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path report = o.out() != null ? o.out() : setup.home().resolve("loadtest/reports").resolve(stamp);
        Path raw = report.resolve("raw");
        Files.createDirectories(raw);
        String loadStart = loadAverage();
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        StringBuilder commands = new StringBuilder("# " + commandLine + "\n");
        Consumer<String> command = c -> commands.append(c).append('\n');
        say.accept("bench: report and logs in " + report);
        say.accept(String.format("bench: closed model %s workers x %.0f s, open model %s req/s x %.0f s, stub latency %d ms fixed, bindings %s%s",
                Arrays.toString(o.workers()), o.stepSeconds(), Arrays.toString(o.rates()), o.rateSeconds(), o.latencyMs(), o.bindings(),
                o.direct() ? " + direct-call limit" : ""));
        List<Child> children = new ArrayList<>();
        List<ClosedStep> closed = new ArrayList<>();
        List<OpenStep> open = new ArrayList<>();
        double[] invokes = {Double.NaN};
        String failure = null;
        try {
            List<String> stubArgs = List.of("--port", "0");
            command.accept(java + " -cp $LOADTEST_CLASSPATH io.moses.loadtest.stubs.StubServer " + String.join(" ", stubArgs));
            Child stubs = new Child("stubs", setup.stubsClasspath(), "io.moses.loadtest.stubs.StubServer", stubArgs, raw.resolve("stubs.log"));
            children.add(stubs);
            int stubPort = Integer.parseInt(stubs.await(STUBS, 60));
            for (String t : TASKS)
                for (String v : new String[]{"-a", "-b"}) {
                    String body = "{\"latencyMs\":" + o.latencyMs() + ",\"distribution\":\"fixed\"}";
                    stubAdmin(stubPort, "PUT", t + v, body);
                    command.accept("curl -X PUT -H 'Content-Type: application/json' -d '" + body + "' http://127.0.0.1:" + stubPort + "/admin/services/" + t + v);
                }
            List<Target.User> users = users();
            List<String> tripBodies = new ArrayList<>();
            for (int i = 0; i < 180; i++) tripBodies.add(Demo.request(i, "@USER@")); // 180: every combination of Demo.request's cycles
            Path seed = setup.home().resolve("loadtest/bench/trip-planner-single-services.yaml");
            GrinderClosedModel grinder = new GrinderClosedModel(setup.grinderClasspath(), java);
            HttperfOpenModel httperf = new HttperfOpenModel();
            // one target's closed model, then (with measureOpen) its open model
            Measure measure = (t, measureOpen) -> {
                try (CpuSampler cpu = new CpuSampler(t.pids(), 250)) {
                    if (o.closed()) {
                        long before = stubRequests(stubPort);
                        List<ClosedStep> steps = grinder.run(t, o.workers(), o.stepSeconds(), raw.resolve("grinder-" + t.name()), cpu, command, say);
                        closed.addAll(steps);
                        long composite = dataLogLines(raw.resolve("grinder-" + t.name()));
                        if (t.scale() == 1 && Double.isNaN(invokes[0]) && composite > 0)
                            invokes[0] = (stubRequests(stubPort) - before) / (double) composite;
                        steps.forEach(x -> say.accept(closedLine(x)));
                    }
                    if (measureOpen && o.open())
                        open.addAll(httperf.run(t, o.rates(), o.rateSeconds(), raw.resolve("httperf-" + t.name()), cpu, command, say));
                }
            };
            List<Target> targets = new ArrayList<>();
            if (o.replicas().isEmpty()) {
                // lone brokers, all started at once (their start-up overlaps), measured one after the other
                Map<String, Child> brokers = new LinkedHashMap<>();
                for (String b : o.bindings()) {
                    List<String> args = List.of("--port", "0", "--work", raw.resolve("work-" + b).toString(), "--db", "mem:bench-" + b,
                            "--binding", b, "--deploy", setup.home().resolve("bpel-processes/trip-planner").toString(),
                            "--seed", seed.toString(), "--set", "STUBS=http://127.0.0.1:" + stubPort);
                    command.accept(java + " -cp $BROKER_CLASSPATH io.moses.core.Main " + String.join(" ", args));
                    Child broker = new Child("broker-" + b, setup.brokerClasspath(), "io.moses.core.Main", args, raw.resolve("broker-" + b + ".log"));
                    children.add(broker);
                    brokers.put(b, broker);
                }
                for (var e : brokers.entrySet()) {
                    int port = Integer.parseInt(e.getValue().await(BROKER, 180));
                    String base = "http://127.0.0.1:" + port;
                    say.accept("bench: broker with " + e.getKey() + " binding on port " + port + "; warming up " + (int) o.warmupSeconds() + " s");
                    warmUp(base, o, e.getKey(), raw.resolve("broker-" + e.getKey() + ".log"), e.getValue().tail(15));
                    targets.add(new Target(e.getKey(), base + "/services/TripPlannerService", TRIP_ACTION, tripBodies, users,
                            List.of(e.getValue().pid()), 1));
                }
                if (o.closed()) say.accept("bench: closed model (The Grinder 3.11)");
                for (Target t : targets) measure.run(t, false);
            } else {
                // one cluster at a time (MariaDB, HAProxy, N replicas): two would share the cores
                say.accept("bench: clusters of " + o.replicas() + " replicas behind HAProxy over MariaDB, one at a time; both models per cluster");
                for (String b : o.bindings())
                    for (int n : o.replicas()) {
                        String name = b + "@" + n;
                        Path dir = raw.resolve("cluster-" + b + "-" + n);
                        say.accept("bench: starting " + name + ": MariaDB, " + n + " replica(s) with " + b + " binding, HAProxy (cluster/cluster.sh up)");
                        try (Cluster c = Cluster.up(setup.home(), dir, b, n, "http://127.0.0.1:" + stubPort, seed, setup.brokerClasspath(), command)) {
                            say.accept("bench: " + name + " at " + c.url() + " (CPU counted: replicas, HAProxy, MariaDB, PIDs " + c.pids()
                                    + "); warming up " + (int) o.warmupSeconds() + " s");
                            warmUp(c.url(), o, name, c.logs(), "");
                            Target t = new Target(name, c.url() + "/services/TripPlannerService", TRIP_ACTION, tripBodies, users, c.pids(), 1);
                            targets.add(t);
                            measure.run(t, true);
                            if (Double.isNaN(invokes[0])) invokes[0] = measureInvokes(List.of(t), stubPort);
                        }
                        say.accept("bench: " + name + " stopped (cluster/cluster.sh down)");
                    }
            }
            if (Double.isNaN(invokes[0])) invokes[0] = measureInvokes(targets, stubPort);
            Target direct = null;
            if (o.direct()) {
                say.accept(String.format("bench: direct-call limit: flight-a called directly, throughput divided by %.2f stub calls per composite request (measured)", invokes[0]));
                List<String> directBodies = List.of("<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body>"
                        + "<t:findFlightRequest xmlns:t=\"urn:moses:task:flight\"><t:customer>@USER@</t:customer><t:destination>Rome</t:destination>"
                        + "</t:findFlightRequest></soap:Body></soap:Envelope>");
                direct = new Target("direct", "http://127.0.0.1:" + stubPort + "/stubs/flight-a", "urn:moses:task:flight/findFlight",
                        directBodies, users, List.of(stubs.pid()), invokes[0]);
                measure.run(direct, !o.replicas().isEmpty());
            }
            if (o.open() && o.replicas().isEmpty()) {
                say.accept("bench: open model (httperf 0.9, as the seed's " + users.size() + " users)");
                if (direct != null) targets.add(direct);
                for (Target t : targets)
                    try (CpuSampler cpu = new CpuSampler(t.pids(), 250)) {
                        open.addAll(httperf.run(t, o.rates(), o.rateSeconds(), raw.resolve("httperf-" + t.name()), cpu, command, say));
                    }
            }
        } catch (Exception e) {
            // keep what was measured: the report is written either way
            failure = e.getClass().getSimpleName() + ": " + e.getMessage();
            say.accept("bench: FAILED: " + failure);
        } finally {
            for (int i = children.size() - 1; i >= 0; i--) children.get(i).close();
        }
        String summary = Summary.of(o, closed, open, invokes[0]);
        boolean ok = failure == null && Summary.lowLoadClean(o, closed, open);
        if (failure != null) summary += "\nthe run stopped early: " + failure + "\n";
        summary += ok ? "\nverdict: OK: every step ran; no errors at low load\n"
                : "\nverdict: FAILED: errors at low load or missing steps (see above and raw/)\n";
        out.accept("");
        out.accept(summary.stripTrailing());
        String machine = machine(loadStart);
        Report.write(report, closed, open, summary, machine, versions(setup), commands.toString(),
                "MOSES evaluation " + stamp);
        out.accept("bench: report " + report.resolve("index.html"));
        return new Result(closed, open, report, ok, summary);
    }

    /** One target's measurement; with {@code open} also its open model. */
    @FunctionalInterface
    private interface Measure {
        void run(Target t, boolean open) throws Exception;
    }

    private static void warmUp(String base, Options o, String name, Path log, String tail) throws Exception {
        LoadResult w = TripLoad.run(base, 4, 0, Duration.ofMillis((long) (o.warmupSeconds() * 1000)), null);
        if (w.errorCount() > 0 || w.requests() == 0)
            throw new IllegalStateException("the " + name + " broker failed " + w.errorCount() + " of " + w.requests()
                    + " warm-up requests; its log: " + log + (tail.isEmpty() ? "" : "\n" + tail));
    }

    private static String closedLine(ClosedStep s) {
        return String.format("  closed %-8s %3d workers: %7.1f composite req/s, mean %6.1f ms, p95 %6.1f ms, errors %d, CPU %.2f ms/req",
                s.target(), s.workers(), s.composite(), s.meanMs(), s.p95Ms(), s.errors(), s.cpuMsPerRequest());
    }

    static List<Target.User> users() {
        List<Target.User> users = new ArrayList<>();
        for (String[] u : Demo.USERS)
            users.add(new Target.User(u[0], "Basic " + Base64.getEncoder().encodeToString((u[0] + ":" + u[1]).getBytes(StandardCharsets.UTF_8))));
        return users;
    }

    /** Without a closed-model run: stub calls over a short closed-loop run through the first broker. */
    private static double measureInvokes(List<Target> targets, int stubPort) throws Exception {
        if (targets.isEmpty()) return 1;
        long before = stubRequests(stubPort);
        String base = targets.get(0).url().replace("/services/TripPlannerService", "");
        LoadResult r = TripLoad.run(base, 2, 180, null, null);
        return (stubRequests(stubPort) - before) / (double) Math.max(1, r.requests());
    }

    private static long dataLogLines(Path grinderDir) throws IOException {
        Path data = grinderDir.resolve("logs/vm-0-data.log");
        if (!Files.exists(data)) return 0;
        try (var lines = Files.lines(data)) {
            return lines.filter(l -> !l.isBlank() && !l.startsWith("Thread")).count();
        }
    }

    private static long stubRequests(int port) throws Exception {
        JsonNode services = new ObjectMapper().readTree(stubAdmin(port, "GET", "", null));
        long sum = 0;
        for (JsonNode s : services) sum += s.path("requests").asLong();
        return sum;
    }

    private static String stubAdmin(int port, String method, String service, String json) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/admin/services" + (service.isEmpty() ? "" : "/" + service)))
                .timeout(Duration.ofSeconds(10));
        b = json == null ? b.GET() : b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json));
        HttpResponse<String> r = HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) throw new IllegalStateException("stub admin " + method + " " + service + ": " + r.statusCode() + " " + r.body());
        return r.body();
    }

    private static boolean onPath(String program) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":"))
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, program))) return true;
        return false;
    }

    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static String machine(String loadStart) {
        StringBuilder m = new StringBuilder();
        m.append("date (UTC):   ").append(ZonedDateTime.now(ZoneOffset.UTC)).append('\n');
        m.append("host:         ").append(run("hostname")).append('\n');
        m.append("os:           ").append(System.getProperty("os.name")).append(' ').append(System.getProperty("os.version"))
                .append(' ').append(System.getProperty("os.arch")).append('\n');
        String cpu = "unknown";
        try {
            cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse("unknown");
        } catch (IOException ignored) {
            // reported as unknown
        }
        m.append("cpu:          ").append(cpu).append(", ").append(Runtime.getRuntime().availableProcessors()).append(" cores\n");
        try {
            Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("MemTotal"))
                    .findFirst().ifPresent(l -> m.append("memory:       ").append(l.substring(9).trim()).append('\n'));
        } catch (IOException ignored) {
            // left out
        }
        m.append("load average: ").append(loadStart).append(" (start), ").append(loadAverage()).append(" (end)\n");
        m.append("note:         the load generators, the stubs and the brokers share these cores, and so does\n")
                .append("              anything else running on the machine (see the load average): compare the\n")
                .append("              lines of one run (ratios), not absolute numbers across runs or machines\n");
        return m.toString();
    }

    private static String versions(Setup s) {
        StringBuilder v = new StringBuilder();
        v.append("java:       ").append(System.getProperty("java.vm.name")).append(' ').append(Runtime.version()).append(" (")
                .append(System.getProperty("java.vendor")).append(")\n");
        v.append("grinder:    The Grinder 3.11, ").append(jarNames(s.grinderClasspath(), "grinder-core", "jython-standalone")).append('\n');
        String h = run("httperf", "--version");
        v.append("httperf:    ").append(h.lines().filter(l -> l.startsWith("httperf: httperf-")).map(l -> l.substring(9))
                .findFirst().orElse("not found")).append('\n');
        v.append("chart:      Chart.js 4.6.1 (vendored, MIT)\n");
        String rev = run("git", "-C", s.home().toString(), "rev-parse", "--short", "HEAD");
        String dirty = run("git", "-C", s.home().toString(), "status", "--porcelain", "--untracked-files=no");
        v.append("broker:     git ").append(rev.isBlank() ? "unknown" : rev.trim()).append(dirty.isBlank() ? "" : " (with uncommitted changes)").append('\n');
        return v.toString();
    }

    private static String jarNames(String classpath, String... names) {
        if (classpath == null) return "";
        return Arrays.stream(classpath.split(":")).map(p -> Path.of(p).getFileName().toString())
                .filter(f -> Arrays.stream(names).anyMatch(f::startsWith)).collect(Collectors.joining(", "));
    }

    private static String run(String... cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(10, TimeUnit.SECONDS);
            return out.trim();
        } catch (IOException | InterruptedException e) {
            return "";
        }
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) usage(args[i - 1] + " needs a value");
        return args[i];
    }

    private static void usage(String problem) {
        if (problem != null) System.err.println("moses bench: " + problem);
        System.err.println("""
                usage: moses bench [--quick] [--workers 1,2,4,8] [--step-seconds S] [--rates 10,20,40] [--rate-seconds S]
                                   [--latency MS] [--bindings static,adaptive] [--models closed,open] [--no-direct]
                                   [--warmup S] [--replicas 1,2] [--out DIR]
                  --quick  workers 1,2,4,8 x 4 s, rates 10,20,40,80 x 3 s (under 2 minutes of load, plus starting the brokers)
                  default  workers 1,2,4,8,16,32 x 20 s, rates 5,10,20,30,40,60,80,120,160 x 20 s (about 20 minutes)
                  --replicas 1,2  instead of lone brokers: per binding, 1 then 2 replicas behind HAProxy over a
                                  throwaway MariaDB (cluster/cluster.sh up/down), one cluster at a time""");
        System.exit(problem == null ? 0 : 2);
    }

    static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    static String f(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }
}
