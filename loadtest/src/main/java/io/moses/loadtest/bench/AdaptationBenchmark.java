package io.moses.loadtest.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.loadtest.demo.Child;
import io.moses.loadtest.demo.Degrade;
import io.moses.loadtest.demo.TripLoad;
import java.time.Duration;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Time from a change at a concrete service to the new plan serving requests: a service the
 * plan uses goes down (until the plan in force no longer uses it), or becomes slow (until a
 * plan made because of it is in force). A steady load runs meanwhile. Started by
 * loadtest/bench-adaptation.sh.
 */
public final class AdaptationBenchmark {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private AdaptationBenchmark() {}

    public static void main(String[] args) throws Exception {
        int trials = 5;
        int period = 1000;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--trials" -> trials = Integer.parseInt(args[++i]);
                case "--period" -> period = Integer.parseInt(args[++i]);
                default -> {
                    System.err.println("usage: bench-adaptation.sh [--trials N] [--period MS]");
                    System.exit(2);
                }
            }
        }
        Path home = Path.of(System.getProperty("moses.home", "."));
        Path tmp = Files.createTempDirectory("moses-bench-adaptation");
        System.out.printf("bench: %d trials per change, monitor and probe period %d ms, hold %d ms; logs in %s%n", trials, period, period, tmp);
        try (Child stubs = new Child("stubs", System.getProperty("java.class.path"), "io.moses.loadtest.stubs.StubServer",
                List.of("--port", "0"), tmp.resolve("stubs.log"))) {
            int stubPort = Integer.parseInt(stubs.await(Pattern.compile("stubs listening on http://[^:]+:(\\d+)"), 60));
            try (Child broker = new Child("broker", System.getProperty("moses.broker.classpath"), "io.moses.core.Main",
                    List.of("--port", "0", "--work", tmp.resolve("work").toString(), "--db", "mem:bench",
                            "--deploy", home.resolve("bpel-processes/trip-planner").toString(),
                            "--seed", home.resolve("bpel-processes/trip-planner/seed.yaml").toString(),
                            "--set", "STUBS=http://127.0.0.1:" + stubPort, "--monitor-period", "" + period,
                            "--probe-period", "" + period, "--hold", "" + period), tmp.resolve("broker.log"))) {
                String base = "http://127.0.0.1:" + broker.await(Pattern.compile("broker listening on http://[^:]+:(\\d+)"), 120);
                Thread background = new Thread(() -> {
                    try {
                        TripLoad.run(base, 4, 0, Duration.ofHours(1), null);
                    } catch (InterruptedException ignored) {
                        // stopped
                    }
                });
                background.setDaemon(true);
                background.start();
                Thread.sleep(8000); // the first plans settle on the stubs' real QoS
                List<Double> down = new ArrayList<>();
                List<Double> slow = new ArrayList<>();
                for (int t = 0; t < trials; t++) {
                    String victim = usedService(base, "hotel.findHotel");
                    long start = System.nanoTime();
                    stub(stubPort, victim, "{\"up\":false}");
                    while (planUses(base, victim)) Thread.sleep(20);
                    down.add((System.nanoTime() - start) / 1e6);
                    System.out.printf("  down  %-9s out of the plan after %6.0f ms%n", victim, down.get(down.size() - 1));
                    stub(stubPort, victim, "{\"up\":true}");
                    Thread.sleep(3L * period + 2000);

                    String slowed = usedService(base, "flight.findFlight");
                    long before = planVersion(base);
                    start = System.nanoTime();
                    stub(stubPort, slowed, "{\"latencyMs\":1000,\"distribution\":\"fixed\"}");
                    while (!(planVersion(base) > before && planReason(base).contains(slowed))) Thread.sleep(20);
                    slow.add((System.nanoTime() - start) / 1e6);
                    System.out.printf("  slow  %-9s new plan because of it after %6.0f ms%n", slowed, slow.get(slow.size() - 1));
                    stub(stubPort, slowed, "{\"latencyMs\":40,\"distribution\":\"fixed\"}");
                    Thread.sleep(3L * period + 5000);
                }
                System.out.printf("%nservice down -> plan without it: median %.0f ms, max %.0f ms%n", median(down), max(down));
                System.out.printf("service slow -> plan because of it: median %.0f ms, max %.0f ms%n", median(slow), max(slow));
            }
        }
    }

    static String usedService(String base, String task) throws Exception {
        return Degrade.firstUsed(JSON.readTree(get(base + "/admin/plan")), task);
    }

    static boolean planUses(String base, String service) throws Exception {
        return Degrade.uses(JSON.readTree(get(base + "/admin/plan")), service);
    }

    static long planVersion(String base) throws Exception {
        return JSON.readTree(get(base + "/admin/plan")).path("version").asLong();
    }

    static String planReason(String base) throws Exception {
        return JSON.readTree(get(base + "/admin/plan")).path("reason").asText();
    }

    static String get(String url) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    static void stub(int port, String service, String json) throws Exception {
        HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/admin/services/" + service))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static double median(List<Double> v) {
        double[] a = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    static double max(List<Double> v) {
        return v.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }
}
