package io.moses.loadtest.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.loadtest.demo.Child;
import io.moses.loadtest.demo.Demo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;

/**
 * Reactive against proactive SLA monitoring in one run (docs/model.md, "Forecasts"): the trip
 * planner under a steady closed-loop load, every stub with lognormal (sigma 1) latency, both
 * flight providers at the same start latency. Per variant (a fresh broker, {@code --monitors
 * qos,ws,paths} then {@code qos,ws,paths,forecast}): a warm-up, a stationary phase (the
 * false-alarm check: predictions and re-plans), then the flight provider gold's plan relies on
 * most ramps its mean latency linearly to {@code factor} times its start and holds there. Per
 * class: seconds in violation of R_max (5 s windows of request starts), requests over R_max,
 * the first violation; re-plans; the proactive run's first prediction and its lead before the
 * reactive run's first violation (when the class crosses without a prediction). Started by
 * loadtest/bench-proactive.sh.
 */
public final class ProactiveBenchmark {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final List<String> TASKS = List.of("flight", "hotel", "weather", "car", "attraction", "payment");
    static final long WINDOW_NANOS = 5_000_000_000L;

    /** One variant's figures. */
    record Outcome(String variant, String ramped, Map<String, ClassFigures> classes, long stationaryReplans, long stationaryPredictions,
                   long rampReplans, long requests, long failed) {}

    /** One class's figures in the ramp (from its start to the end of the hold). */
    record ClassFigures(int windows, int violatedWindows, long requests, long overMax, double firstViolation, double firstPrediction) {}

    private ProactiveBenchmark() {}

    public static void main(String[] args) throws Exception {
        int warmup = 30, stationary = 60, ramp = 120, hold = 20, startMs = 250, clientsPerUser = 3, period = 1000;
        double factor = 10, sigma = 1, alternativeCost = Double.NaN;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--stationary" -> stationary = Integer.parseInt(args[++i]);
                case "--ramp" -> ramp = Integer.parseInt(args[++i]);
                case "--hold" -> hold = Integer.parseInt(args[++i]);
                case "--start-ms" -> startMs = Integer.parseInt(args[++i]);
                case "--factor" -> factor = Double.parseDouble(args[++i]);
                case "--clients-per-user" -> clientsPerUser = Integer.parseInt(args[++i]);
                case "--period" -> period = Integer.parseInt(args[++i]);
                case "--alternative-cost" -> alternativeCost = Double.parseDouble(args[++i]);
                default -> {
                    System.err.println("usage: bench-proactive.sh [--warmup S] [--stationary S] [--ramp S] [--hold S] [--start-ms MS] [--factor X]"
                            + " [--clients-per-user N] [--period MS] [--alternative-cost C]");
                    System.exit(2);
                }
            }
        }
        if (warmup < 10 || stationary < 0 || ramp < 10 || hold < 0 || startMs < 1 || !(factor > 1) || clientsPerUser < 1)
            throw new IllegalArgumentException("--warmup >= 10, --stationary >= 0, --ramp >= 10, --hold >= 0, --start-ms >= 1, --factor > 1, --clients-per-user >= 1");
        Path home = Path.of(System.getProperty("moses.home", "."));
        Path tmp = Files.createTempDirectory("moses-bench-proactive");
        Path seed = home.resolve("bpel-processes/trip-planner/seed.yaml");
        if (!Double.isNaN(alternativeCost)) {
            // flight-a dearer: gold's plan keeps to flight-b (the one ramped) until its R row binds
            String text = Files.readString(seed);
            String changed = text.replaceFirst("(\\{name: flight-a, [^\\n]*?cost: )[0-9.]+", "$1" + alternativeCost);
            if (changed.equals(text)) throw new IllegalStateException("the seed's flight-a has no cost to change");
            seed = tmp.resolve("seed.yaml");
            Files.writeString(seed, changed);
        }
        System.out.printf("bench: trip planner%s, %d closed-loop clients per seed user, stubs lognormal sigma %.0f, both flight providers at %d ms;"
                        + " per variant %d s warm-up, %d s stationary, %d s ramp of gold's flight provider to %.0fx, %d s hold; monitor period %d ms; logs in %s%n",
                Double.isNaN(alternativeCost) ? "" : " (flight-a's cost " + alternativeCost + ")", clientsPerUser, sigma, startMs, warmup, stationary, ramp, factor, hold, period, tmp);
        List<Outcome> outcomes = new ArrayList<>();
        try (Child stubs = new Child("stubs", System.getProperty("java.class.path"), "io.moses.loadtest.stubs.StubServer",
                List.of("--port", "0"), tmp.resolve("stubs.log"))) {
            int stubPort = Integer.parseInt(stubs.await(Pattern.compile("stubs listening on http://[^:]+:(\\d+)"), 60));
            for (String variant : List.of("reactive", "proactive")) {
                reset(stubPort);
                for (String t : TASKS)
                    for (String p : List.of("-a", "-b")) AdaptationBenchmark.stub(stubPort, t + p, "{\"distribution\":\"lognormal\",\"sigma\":" + sigma + "}");
                for (String p : List.of("flight-a", "flight-b")) AdaptationBenchmark.stub(stubPort, p, "{\"latencyMs\":" + startMs + "}");
                outcomes.add(variant(home, seed, tmp, stubPort, variant, period, clientsPerUser, warmup, stationary, ramp, hold, startMs, factor));
            }
        }
        report(outcomes, ramp, hold);
    }

    static Outcome variant(Path home, Path seed, Path tmp, int stubPort, String variant, int period, int clientsPerUser, int warmup, int stationary,
                           int ramp, int hold, int startMs, double factor) throws Exception {
        String monitors = variant.equals("proactive") ? "qos,ws,paths,forecast" : "qos,ws,paths";
        List<String> brokerArgs = List.of("--port", "0", "--work", tmp.resolve("work-" + variant).toString(), "--db", "mem:bench-" + variant,
                "--deploy", home.resolve("bpel-processes/trip-planner").toString(),
                "--seed", seed.toString(),
                "--set", "STUBS=http://127.0.0.1:" + stubPort, "--monitor-period", "" + period, "--probe-period", "" + period,
                "--monitors", monitors);
        try (Child broker = new Child("broker-" + variant, System.getProperty("moses.broker.classpath"), "io.moses.core.Main",
                brokerArgs, tmp.resolve("broker-" + variant + ".log"))) {
            String base = "http://127.0.0.1:" + broker.await(Pattern.compile("broker listening on http://[^:]+:(\\d+)"), 120);
            Map<String, Double> rMax = new LinkedHashMap<>();
            for (JsonNode k : JSON.readTree(Demo.fetch(base + "/admin/classes"))) rMax.put(k.path("name").asText(), k.path("maxResponseTime").asDouble());
            ConcurrentLinkedQueue<AdaptationBenchmark.Done> done = new ConcurrentLinkedQueue<>();
            AtomicBoolean running = new AtomicBoolean(true);
            List<Thread> clients = new ArrayList<>();
            for (String[] u : Demo.USERS)
                for (int c = 0; c < clientsPerUser; c++) {
                    Thread t = new Thread(() -> AdaptationBenchmark.load(base, u, done, running), "client-" + u[0] + "-" + c);
                    t.setDaemon(true);
                    t.start();
                    clients.add(t);
                }
            try {
                Thread.sleep(warmup * 1000L);
                System.out.printf("%s: %s%n", variant, monitors);
                Instant stationaryAt = Instant.now();
                long solves0 = solves(base);
                Thread.sleep(stationary * 1000L);
                long solves1 = solves(base);
                long stationaryPredictions = predictions(base, stationaryAt, Instant.now()).size();
                System.out.printf("%s: stationary %d s: %d re-plans, %d predicted violations%n", variant, stationary, solves1 - solves0, stationaryPredictions);

                String ramped = mostUsed(JSON.readTree(Demo.fetch(base + "/admin/plan")), "gold", "flight.findFlight");
                Instant rampAt = Instant.now();
                long r0 = System.nanoTime();
                System.out.printf("%s: %s ramps %d -> %.0f ms over %d s%n", variant, ramped, startMs, factor * startMs, ramp);
                for (int s = 1; s <= ramp; s++) {
                    long due = r0 + s * 1_000_000_000L;
                    Thread.sleep(Math.max(0, (due - System.nanoTime()) / 1_000_000));
                    AdaptationBenchmark.stub(stubPort, ramped, String.format(java.util.Locale.ROOT, "{\"latencyMs\":%.1f}", startMs * (1 + (factor - 1) * s / (double) ramp)));
                }
                Thread.sleep(hold * 1000L);
                long r1 = System.nanoTime();
                long solves2 = solves(base);
                List<JsonNode> predicted = predictions(base, rampAt, Instant.now());
                Map<String, ClassFigures> figures = new LinkedHashMap<>();
                long requests = 0, failed = 0;
                for (AdaptationBenchmark.Done d : done)
                    if (d.startNanos() >= r0 && d.startNanos() < r1) {
                        requests++;
                        if (!d.ok()) failed++;
                    }
                for (var k : rMax.entrySet()) {
                    double firstPrediction = Double.NaN;
                    for (JsonNode e : predicted)
                        if (e.path("class").asText().equals(k.getKey())) {
                            double at = (Instant.parse(e.path("at").asText()).toEpochMilli() - rampAt.toEpochMilli()) / 1000.0;
                            if (Double.isNaN(firstPrediction) || at < firstPrediction) firstPrediction = at;
                        }
                    figures.put(k.getKey(), figures(done, k.getKey(), k.getValue(), r0, r1, firstPrediction));
                }
                System.out.printf("%s: ramp and hold: %d re-plans; %s%n", variant, solves2 - solves1, figures);
                return new Outcome(variant, ramped, figures, solves1 - solves0, stationaryPredictions, solves2 - solves1, requests, failed);
            } finally {
                running.set(false);
                for (Thread t : clients) t.join(35_000);
            }
        }
    }

    /** A class's figures over [from, to): 5 s windows of request starts whose mean response time of its successful requests is over R_max. */
    static ClassFigures figures(ConcurrentLinkedQueue<AdaptationBenchmark.Done> done, String cls, double rMax, long from, long to, double firstPrediction) {
        int windows = 0, violated = 0;
        double first = Double.NaN;
        for (long w = from; w + WINDOW_NANOS <= to; w += WINDOW_NANOS) {
            double m = AdaptationBenchmark.mean(done, cls, w, w + WINDOW_NANOS);
            if (Double.isNaN(m)) continue;
            windows++;
            if (m > rMax) {
                violated++;
                if (Double.isNaN(first)) first = (w - from) / 1e9;
            }
        }
        long n = 0, over = 0;
        for (AdaptationBenchmark.Done d : done)
            if (d.ok() && d.serviceClass().equals(cls) && d.startNanos() >= from && d.startNanos() < to) {
                n++;
                if (d.seconds() > rMax) over++;
            }
        return new ClassFigures(windows, violated, n, over, first, firstPrediction);
    }

    static void report(List<Outcome> outcomes, int ramp, int hold) {
        Outcome reactive = outcomes.get(0), proactive = outcomes.get(1);
        System.out.println();
        System.out.printf("ramp of %d s and %d s hold; ramped: reactive %s, proactive %s; 5 s windows of request starts%n", ramp, hold, reactive.ramped(), proactive.ramped());
        System.out.printf("  %-8s %-10s %12s %14s %16s %16s %12s%n", "class", "variant", "s violated", "over R_max", "first violation", "first predicted", "lead");
        boolean kept = true, led = true, broke = false;
        for (String k : reactive.classes().keySet()) {
            ClassFigures r = reactive.classes().get(k), p = proactive.classes().get(k);
            // when the class crosses without a prediction: the reactive run's first violation
            double lead = p.firstPrediction() >= 0 && r.firstViolation() >= 0 ? r.firstViolation() - p.firstPrediction() : Double.NaN;
            for (Outcome o : outcomes) {
                ClassFigures f = o.classes().get(k);
                System.out.printf("  %-8s %-10s %12d %8d/%-6d %15s %16s %12s%n", k, o.variant(), 5 * f.violatedWindows(), f.overMax(), f.requests(),
                        seconds(f.firstViolation()), o == reactive ? "-" : seconds(f.firstPrediction()), o == reactive ? "" : seconds(lead));
            }
            kept &= p.violatedWindows() == 0;
            if (r.violatedWindows() > 0) {
                broke = true;
                led &= lead >= 30;
            }
        }
        for (Outcome o : outcomes)
            System.out.printf("  %-10s re-plans: %d in the ramp and hold; %d requests, %d failed%n", o.variant(), o.rampReplans(), o.requests(), o.failed());
        System.out.printf("stationary noise (false alarms): reactive %d re-plans; proactive %d re-plans, %d predicted violations%n",
                reactive.stationaryReplans(), proactive.stationaryReplans(), proactive.stationaryPredictions());
        boolean quiet = proactive.stationaryPredictions() == 0;
        System.out.printf("verdict: proactive kept every class within R_max in every 5 s window: %s%n", kept ? "yes" : "NO");
        System.out.printf("verdict: every class the reactive run broke was predicted 30 s or more ahead: %s%n",
                !broke ? "none to predict (the reactive run broke no class)" : led ? "yes" : "NO");
        System.out.printf("verdict: no predicted violation on stationary noise: %s%n", quiet ? "yes" : "NO");
    }

    static String seconds(double s) {
        return Double.isNaN(s) ? "none" : String.format("%.0f s", s);
    }

    /** The gold class's member with the largest share of a task in the plan (a group counts for its first member). */
    static String mostUsed(JsonNode plan, String cls, String task) {
        String best = null;
        double most = -1;
        for (JsonNode b : plan.path("bindings"))
            if (b.path("class").asText().equals(cls) && b.path("task").asText().equals(task))
                for (JsonNode s : b.path("shares")) {
                    String impl = s.path("implementation").asText();
                    if (s.path("fraction").asDouble() > most) {
                        most = s.path("fraction").asDouble();
                        best = impl.contains("(") ? impl.substring(impl.indexOf('(') + 1, impl.indexOf(',')) : impl;
                    }
                }
        if (best == null) throw new IllegalStateException("the plan binds no service to " + task + " for " + cls);
        return best;
    }

    static void reset(int stubPort) throws Exception {
        java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:" + stubPort + "/admin/reset")).POST(java.net.http.HttpRequest.BodyPublishers.noBody()).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) throw new IllegalStateException("stub admin: " + r.body());
    }

    static long solves(String base) throws Exception {
        return JSON.readTree(Demo.fetch(base + "/health")).path("adaptation").path("solves").asLong();
    }

    /** The PREDICTED_VIOLATION events between two instants. */
    static List<JsonNode> predictions(String base, Instant from, Instant to) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e : JSON.readTree(Demo.fetch(base + "/admin/events?n=1000"))) {
            if (!e.path("kind").asText().equals("PREDICTED_VIOLATION")) continue;
            Instant at = Instant.parse(e.path("at").asText());
            if (!at.isBefore(from) && at.isBefore(to)) out.add(e);
        }
        return out;
    }
}
