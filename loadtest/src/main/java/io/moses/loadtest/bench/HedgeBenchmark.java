package io.moses.loadtest.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.loadtest.demo.Child;
import io.moses.loadtest.demo.Demo;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * Single, 1-out-of-n and hedged implementations of the trip planner's weather task side by side
 * (docs/model.md, "Hedged requests"), in one run on one broker: gold binds weather to weather-a,
 * silver to par(weather-a,weather-b), bronze to hedge(weather-a,weather-b;d) with d the p95 of
 * weather-a's latency; every other task to its -a provider, every other stub at a fixed 10 ms.
 * First each pattern with a well-behaved weather-a (lognormal, mean 50 ms, sigma 0.5): the yardstick
 * the other two scenarios' p99s are divided by. Then two scenarios for weather-a: a heavy tail (lognormal, mean 50 ms, sigma 1.5; weather-b
 * lognormal, mean 30 ms, sigma 0.5) and a hang (accepts calls, answers none; the invoke timeout is
 * the broker's default 10 s). Per pattern: composite p50 and p99, failures, weather calls per
 * request at each provider and the weather cost per request (the seed's costs, 0.2 and 0.1 per
 * call), counted at the stubs. In the tail scenario the patterns take turns in rounds, so a busy
 * machine weighs on each alike; in the hang scenario each pattern meets a fresh hang for three
 * phases' time (weather-a answers again and is reinstated by its trial call before the next).
 * Started by loadtest/bench-hedge.sh.
 */
public final class HedgeBenchmark {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    static final double MEAN_A = 0.050, SIGMA_A = 1.5, COST_A = 0.2, COST_B = 0.1;
    static final String HEALTHY_A = "{\"latencyMs\":50,\"distribution\":\"lognormal\",\"sigma\":0.5}";

    /** One pattern under test: the seed user whose class binds weather to it. */
    record Arm(String name, String user, String password, String implementation) {}

    /** One pattern's requests and paid calls, summed over its phases. */
    static final class Tally {
        final List<Double> seconds = new ArrayList<>();
        int failed;
        long callsA, callsB;
    }

    private HedgeBenchmark() {}

    public static void main(String[] args) throws Exception {
        int seconds = 10, rounds = 3, clients = 4;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--clients" -> clients = Integer.parseInt(args[++i]);
                default -> {
                    System.err.println("usage: bench-hedge.sh [--seconds 10] [--rounds 3] [--clients 4]");
                    System.exit(2);
                }
            }
        }
        if (seconds < 1 || seconds > 120 || rounds < 1 || rounds > 10 || clients < 1 || clients > 32) {
            System.err.println("bench-hedge.sh: --seconds 1..120, --rounds 1..10, --clients 1..32");
            System.exit(2);
        }
        // d: the p95 of weather-a's lognormal, as the QoS Monitor's samples give it (docs/model.md, "Hedged requests")
        double mu = Math.log(MEAN_A) - SIGMA_A * SIGMA_A / 2;
        double d = Math.ceil(Math.exp(mu + 1.6448536 * SIGMA_A) * 1e4) / 1e4;
        List<Arm> patterns = List.of(new Arm("single", "alice", "alice-demo", "weather-a"),
                new Arm("par", "bob", "bob-demo", "par(weather-a,weather-b)"),
                new Arm("hedge", "carl", "carl-demo", "hedge(weather-a,weather-b;d=" + d + ")"));
        Path home = Path.of(System.getProperty("moses.home", "."));
        Path tmp = Files.createTempDirectory("moses-bench-hedge");
        String seed = Files.readString(home.resolve("loadtest/bench/trip-planner-single-services.yaml"));
        for (var p : List.of(Map.entry("gold", patterns.get(0)), Map.entry("silver", patterns.get(1)), Map.entry("bronze", patterns.get(2)))) {
            String line = "{class: " + p.getKey() + ", task: weather.getForecast, shares: [{implementation: weather-a, fraction: 1.0}]}";
            if (!seed.contains(line)) throw new IllegalStateException("the single-services seed no longer has " + line);
            seed = seed.replace(line, line.replace("weather-a,", "\"" + p.getValue().implementation() + "\","));
        }
        seed += "\ntasks:\n  - {task: weather.getForecast, idempotent: true}\n";
        Files.writeString(tmp.resolve("seed.yaml"), seed);
        System.out.printf("bench-hedge: %d clients, %d s per phase, %d rounds (tail); d = %.4f s (p95 of weather-a); logs in %s%n",
                clients, seconds, rounds, d, tmp);
        try (Child stubs = new Child("stubs", System.getProperty("java.class.path"), "io.moses.loadtest.stubs.StubServer",
                List.of("--port", "0"), tmp.resolve("stubs.log"))) {
            int stubPort = Integer.parseInt(stubs.await(Pattern.compile("stubs listening on http://[^:]+:(\\d+)"), 60));
            for (String t : List.of("flight", "hotel", "car", "attraction", "payment"))
                for (String p : List.of("-a", "-b")) AdaptationBenchmark.stub(stubPort, t + p, "{\"latencyMs\":10,\"distribution\":\"fixed\"}");
            String tail = "{\"latencyMs\":" + MEAN_A * 1000 + ",\"distribution\":\"lognormal\",\"sigma\":" + SIGMA_A + "}";
            AdaptationBenchmark.stub(stubPort, "weather-a", tail);
            AdaptationBenchmark.stub(stubPort, "weather-b", "{\"latencyMs\":30,\"distribution\":\"lognormal\",\"sigma\":0.5}");
            // the seed's plan, no monitors and no optimizer: the patterns are what is compared
            try (Child broker = new Child("broker", System.getProperty("moses.broker.classpath"), "io.moses.core.Main",
                    List.of("--port", "0", "--work", tmp.resolve("work").toString(), "--db", "mem:bench",
                            "--deploy", home.resolve("bpel-processes/trip-planner").toString(), "--seed", tmp.resolve("seed.yaml").toString(),
                            "--set", "STUBS=http://127.0.0.1:" + stubPort, "--monitors", "none", "--optimizer", "off"),
                    tmp.resolve("broker.log"))) {
                String base = "http://127.0.0.1:" + broker.await(Pattern.compile("broker listening on http://[^:]+:(\\d+)"), 180);
                for (Arm p : patterns) phase(base, stubPort, p, clients, 3, null); // warm-up
                // the yardstick for the hang: each pattern with a well-behaved weather-a
                AdaptationBenchmark.stub(stubPort, "weather-a", HEALTHY_A);
                Map<String, Tally> healthy = new LinkedHashMap<>();
                for (int r = 0; r < rounds; r++)
                    for (Arm p : patterns) phase(base, stubPort, p, clients, seconds, healthy.computeIfAbsent(p.name(), k -> new Tally()));
                report("healthy: weather-a lognormal mean 50 ms sigma 0.5", healthy, null);
                AdaptationBenchmark.stub(stubPort, "weather-a", tail);
                Map<String, Tally> tailed = new LinkedHashMap<>();
                for (int r = 0; r < rounds; r++)
                    for (Arm p : patterns) phase(base, stubPort, p, clients, seconds, tailed.computeIfAbsent(p.name(), k -> new Tally()));
                report("tail: weather-a lognormal mean 50 ms sigma 1.5", tailed, healthy);

                // each pattern meets a fresh hang: weather-a back and reinstated before the next
                Map<String, Tally> hung = new LinkedHashMap<>();
                for (Arm p : patterns) {
                    AdaptationBenchmark.stub(stubPort, "weather-a", "{\"latencyMs\":3600000,\"distribution\":\"fixed\"}");
                    phase(base, stubPort, p, clients, 3 * seconds, hung.computeIfAbsent(p.name(), k -> new Tally()));
                    AdaptationBenchmark.stub(stubPort, "weather-a", tail);
                    reinstated(base, patterns.get(0));
                }
                report("hang: weather-a accepts calls and answers none (from the start of each pattern's " + 3 * seconds + " s)", hung, healthy);
            }
        }
    }

    /** Closed-loop load as one user for a while; then waits for every request to end and reads the stubs' counters. */
    static void phase(String base, int stubPort, Arm p, int clients, int seconds, Tally into) throws Exception {
        long a0 = requests(stubPort, "weather-a"), b0 = requests(stubPort, "weather-b");
        ConcurrentLinkedQueue<Double> ok = new ConcurrentLinkedQueue<>();
        AtomicInteger failed = new AtomicInteger();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        String auth = "Basic " + Base64.getEncoder().encodeToString((p.user() + ":" + p.password()).getBytes(StandardCharsets.UTF_8));
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            int client = c;
            Thread t = new Thread(() -> {
                for (int i = client; System.nanoTime() < end; i += clients) {
                    long start = System.nanoTime();
                    try {
                        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/services/TripPlannerService"))
                                .timeout(Duration.ofSeconds(60)).header("Content-Type", "text/xml; charset=utf-8")
                                .header("SOAPAction", "\"urn:moses:trip-planner/planTrip\"").header("Authorization", auth)
                                .POST(HttpRequest.BodyPublishers.ofString(Demo.request(i, p.user()))).build(), HttpResponse.BodyHandlers.ofString());
                        if (r.statusCode() == 200 && !r.body().contains("Fault>")) ok.add((System.nanoTime() - start) / 1e9);
                        else failed.incrementAndGet();
                    } catch (Exception e) {
                        failed.incrementAndGet();
                    }
                }
            }, "bench-" + p.name() + "-" + c);
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) t.join();
        if (into == null) return;
        into.seconds.addAll(ok);
        into.failed += failed.get();
        into.callsA += requests(stubPort, "weather-a") - a0;
        into.callsB += requests(stubPort, "weather-b") - b0;
    }

    /** Trips as the single pattern's user until weather-a is no longer ejected (its trial call answered); at most 120 s. */
    static void reinstated(String base, Arm single) throws Exception {
        long end = System.nanoTime() + 120_000_000_000L;
        String auth = "Basic " + Base64.getEncoder().encodeToString((single.user() + ":" + single.password()).getBytes(StandardCharsets.UTF_8));
        for (int i = 0; System.nanoTime() < end; i++) {
            String ejected = JSON.readTree(AdaptationBenchmark.get(base + "/health")).path("adaptation").path("ejected").toString();
            if (!ejected.contains("\"weather-a\"")) return;
            HTTP.send(HttpRequest.newBuilder(URI.create(base + "/services/TripPlannerService")).timeout(Duration.ofSeconds(60))
                    .header("Content-Type", "text/xml; charset=utf-8").header("SOAPAction", "\"urn:moses:trip-planner/planTrip\"")
                    .header("Authorization", auth).POST(HttpRequest.BodyPublishers.ofString(Demo.request(i, single.user()))).build(),
                    HttpResponse.BodyHandlers.discarding());
            Thread.sleep(200);
        }
        throw new IllegalStateException("weather-a not reinstated within 120 s");
    }

    /** One line per pattern; with a baseline, its p99 as a multiple of the same pattern's p99 there (within 3x). */
    static void report(String scenario, Map<String, Tally> tallies, Map<String, Tally> baseline) {
        System.out.println();
        System.out.println(scenario);
        System.out.printf("  %-7s %8s %7s %9s %9s %11s %11s %13s%s%n", "pattern", "requests", "failed", "p50 [ms]", "p99 [ms]",
                "a calls/req", "b calls/req", "weather cost/req", baseline == null ? "" : "  p99/healthy p99");
        tallies.forEach((name, t) -> {
            int n = t.seconds.size() + t.failed;
            double p99 = p99(t);
            String vs = baseline == null || !baseline.containsKey(name) ? "" : String.format("  %15.2fx", p99 / p99(baseline.get(name)));
            System.out.printf("  %-7s %8d %7d %9.1f %9.1f %11.3f %11.3f %13.4f%s%n", name, n, t.failed,
                    1000 * quantile(sorted(t), 0.5), 1000 * p99, (double) t.callsA / n, (double) t.callsB / n,
                    (COST_A * t.callsA + COST_B * t.callsB) / n, vs);
        });
    }

    static double[] sorted(Tally t) {
        return t.seconds.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    }

    static double p99(Tally t) {
        return quantile(sorted(t), 0.99);
    }

    /** Nearest rank. */
    static double quantile(double[] sorted, double q) {
        if (sorted.length == 0) return Double.NaN;
        return sorted[Math.max(0, (int) Math.ceil(q * sorted.length) - 1)];
    }

    static long requests(int stubPort, String service) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + stubPort + "/admin/services/" + service)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) throw new IllegalStateException("stub admin: " + r.body());
        return JSON.readTree(r.body()).path("requests").asLong();
    }
}
