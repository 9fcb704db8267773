package io.moses.loadtest.bench;

import io.moses.loadtest.demo.Child;
import io.moses.loadtest.demo.TripLoad;
import io.moses.loadtest.driver.LoadResult;
import java.time.Duration;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Trip planner throughput and latency through brokers that differ only in their binding, in
 * one run: the stub services, then one broker per binding (static: every task to a fixed
 * concrete service; adaptive: the Adaptation Manager following a plan of the same single
 * services), loaded in turns, closed loop, several rounds. Prints each run, the medians and
 * the ratios. Started by loadtest/bench-static.sh.
 */
public final class BindingBenchmark {
    private static final Pattern STUBS = Pattern.compile("stubs listening on http://[^:]+:(\\d+)");
    private static final Pattern BROKER = Pattern.compile("broker listening on http://[^:]+:(\\d+)");
    private static final String[] SERVICES = {"flight", "hotel", "weather", "car", "attraction", "payment"};

    private BindingBenchmark() {}

    public static void main(String[] args) throws Exception {
        int clients = 8;
        double seconds = 15;
        int rounds = 3;
        int latency = 5;
        List<String> bindings = List.of("static", "adaptive");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--clients" -> clients = Integer.parseInt(args[++i]);
                case "--seconds" -> seconds = Double.parseDouble(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--latency" -> latency = Integer.parseInt(args[++i]);
                case "--bindings" -> bindings = List.of(args[++i].split(","));
                default -> {
                    System.err.println("usage: bench-static.sh [--clients N] [--seconds T] [--rounds R] [--latency MS] [--bindings static,adaptive]");
                    System.exit(2);
                }
            }
        }
        Path home = Path.of(System.getProperty("moses.home", "."));
        String brokerCp = System.getProperty("moses.broker.classpath");
        Path tmp = Files.createTempDirectory("moses-bench");
        System.out.printf("bench: %d clients, %.0f s per run, %d rounds, stub latency %d ms fixed, bindings %s; logs in %s%n",
                clients, seconds, rounds, latency, bindings, tmp);
        List<Child> children = new ArrayList<>();
        try {
            Child stubs = new Child("stubs", System.getProperty("java.class.path"), "io.moses.loadtest.stubs.StubServer",
                    List.of("--port", "0"), tmp.resolve("stubs.log"));
            children.add(stubs);
            int stubPort = Integer.parseInt(stubs.await(STUBS, 60));
            for (String s : SERVICES)
                for (String v : new String[]{"-a", "-b"}) setLatency(stubPort, s + v, latency);
            Map<String, Integer> ports = new LinkedHashMap<>();
            for (String b : bindings) {
                Child broker = new Child("broker-" + b, brokerCp, "io.moses.core.Main", List.of("--port", "0",
                        "--work", tmp.resolve("work-" + b).toString(), "--db", "mem:bench-" + b, "--binding", b,
                        "--deploy", home.resolve("bpel-processes/trip-planner").toString(),
                        "--seed", home.resolve("loadtest/bench/trip-planner-single-services.yaml").toString(),
                        "--set", "STUBS=http://127.0.0.1:" + stubPort), tmp.resolve("broker-" + b + ".log"));
                children.add(broker);
                ports.put(b, Integer.parseInt(broker.await(BROKER, 120)));
            }
            Map<String, List<LoadResult>> results = new LinkedHashMap<>();
            for (String b : bindings) {
                System.out.printf("bench: warming up %s%n", b);
                TripLoad.run(base(ports.get(b)), clients, 0, Duration.ofMillis((long) (Math.min(5, seconds) * 1000)), null);
            }
            for (int r = 1; r <= rounds; r++) {
                for (String b : bindings) {
                    LoadResult res = TripLoad.run(base(ports.get(b)), clients, 0, Duration.ofMillis((long) (seconds * 1000)), null);
                    results.computeIfAbsent(b, k -> new ArrayList<>()).add(res);
                    System.out.printf("  round %d %-9s %7.1f req/s  p50 %6.1f ms  p95 %6.1f ms  p99 %6.1f ms  errors %d%n", r, b,
                            res.throughput(), res.latency().p50Ms(), res.latency().p95Ms(), res.latency().p99Ms(), res.errorCount());
                }
            }
            System.out.println();
            Map<String, double[]> medians = new LinkedHashMap<>();
            for (var e : results.entrySet()) {
                double tps = median(e.getValue().stream().mapToDouble(LoadResult::throughput).toArray());
                double p50 = median(e.getValue().stream().mapToDouble(x -> x.latency().p50Ms()).toArray());
                double p99 = median(e.getValue().stream().mapToDouble(x -> x.latency().p99Ms()).toArray());
                medians.put(e.getKey(), new double[]{tps, p50, p99});
                System.out.printf("median %-9s %7.1f req/s  p50 %6.1f ms  p99 %6.1f ms%n", e.getKey(), tps, p50, p99);
            }
            if (medians.containsKey("static") && medians.containsKey("adaptive")) {
                double[] s = medians.get("static");
                double[] a = medians.get("adaptive");
                System.out.printf("ratio adaptive/static: throughput %.3f, p50 %.3f, p99 %.3f%n", a[0] / s[0], a[1] / s[1], a[2] / s[2]);
            }
        } finally {
            for (Child c : children) c.close();
        }
    }

    private static String base(int port) {
        return "http://127.0.0.1:" + port;
    }

    private static void setLatency(int port, String service, int ms) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/admin/services/" + service))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"latencyMs\":" + ms + ",\"distribution\":\"fixed\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) throw new IllegalStateException("stub admin: " + r.body());
    }

    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length == 0 ? Double.NaN : s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
