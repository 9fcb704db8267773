package io.moses.loadtest.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.loadtest.demo.Child;
import io.moses.loadtest.demo.Degrade;
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
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;

/**
 * How the broker keeps every class's SLA through a provider outage and a slowdown. The trip
 * planner under a steady closed-loop load (one client per seed user, so every class is measured),
 * every stub at a fixed 10 ms, monitor and probe period 1 s. Per trial:
 * <ul>
 *   <li>outage: the hotel service the plan relies on most goes down for 5 s: composite
 *       requests failed per class from the moment it went down, time until the plan in force no
 *       longer uses it, then (up again) time until the plan uses it again;
 *   <li>slowdown: the flight service the plan relies on most goes 10 -> 300 ms: time to a plan
 *       made because of it, and per class the time until the mean response time (250 ms
 *       buckets of request starts) is back within R_max and within 1.25 x its mean before.
 * </ul>
 * Medians over trials. Started by loadtest/bench-adaptation.sh.
 */
public final class AdaptationBenchmark {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** One finished composite request. */
    record Done(long startNanos, long endNanos, String serviceClass, boolean ok) {
        double seconds() {
            return (endNanos - startNanos) / 1e9;
        }
    }

    private AdaptationBenchmark() {}

    public static void main(String[] args) throws Exception {
        int trials = 3;
        int period = 1000;
        boolean singles = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--trials" -> trials = Integer.parseInt(args[++i]);
                case "--period" -> period = Integer.parseInt(args[++i]);
                case "--singles" -> singles = true;
                default -> {
                    System.err.println("usage: bench-adaptation.sh [--trials N] [--period MS] [--singles]");
                    System.exit(2);
                }
            }
        }
        Path home = Path.of(System.getProperty("moses.home", "."));
        Path tmp = Files.createTempDirectory("moses-bench-adaptation");
        System.out.printf("bench: %d trials, monitor and probe period %d ms (hold: the broker's default)%s; logs in %s%n", trials, period,
                singles ? ", plan of single services and optimizer off: only the request path reacts" : "", tmp);
        try (Child stubs = new Child("stubs", System.getProperty("java.class.path"), "io.moses.loadtest.stubs.StubServer",
                List.of("--port", "0"), tmp.resolve("stubs.log"))) {
            int stubPort = Integer.parseInt(stubs.await(Pattern.compile("stubs listening on http://[^:]+:(\\d+)"), 60));
            for (String t : List.of("flight", "hotel", "weather", "car", "attraction", "payment"))
                for (String p : List.of("-a", "-b")) stub(stubPort, t + p, "{\"latencyMs\":10,\"distribution\":\"fixed\"}");
            List<String> brokerArgs = new ArrayList<>(List.of("--port", "0", "--work", tmp.resolve("work").toString(), "--db", "mem:bench",
                    "--deploy", home.resolve("bpel-processes/trip-planner").toString(),
                    "--seed", home.resolve(singles ? "loadtest/bench/trip-planner-single-services.yaml" : "bpel-processes/trip-planner/seed.yaml").toString(),
                    "--set", "STUBS=http://127.0.0.1:" + stubPort, "--monitor-period", "" + period,
                    "--probe-period", "" + period));
            if (singles) brokerArgs.addAll(List.of("--optimizer", "off"));
            try (Child broker = new Child("broker", System.getProperty("moses.broker.classpath"), "io.moses.core.Main",
                    brokerArgs, tmp.resolve("broker.log"))) {
                String base = "http://127.0.0.1:" + broker.await(Pattern.compile("broker listening on http://[^:]+:(\\d+)"), 120);
                Map<String, Double> rMax = new LinkedHashMap<>();
                for (JsonNode k : JSON.readTree(get(base + "/admin/classes"))) rMax.put(k.path("name").asText(), k.path("maxResponseTime").asDouble());
                ConcurrentLinkedQueue<Done> done = new ConcurrentLinkedQueue<>();
                AtomicBoolean running = new AtomicBoolean(true);
                List<Thread> clients = new ArrayList<>();
                for (String[] u : Demo.USERS) {
                    Thread t = new Thread(() -> load(base, u, done, running), "client-" + u[0]);
                    t.setDaemon(true);
                    t.start();
                    clients.add(t);
                }
                try {
                    Thread.sleep(10_000); // warm-up: the first plans settle on the stubs' real QoS
                    Map<String, List<Double>> failedPct = new TreeMap<>();
                    List<Double> outOfPlan = new ArrayList<>(), backInPlan = new ArrayList<>(), slowPlan = new ArrayList<>();
                    Map<String, List<Double>> withinRmax = new TreeMap<>(), withinBefore = new TreeMap<>();
                    for (int trial = 1; trial <= trials; trial++) {
                        // outage
                        String victim = Degrade.firstUsed(JSON.readTree(get(base + "/admin/plan")), "hotel.findHotel");
                        long t0 = System.nanoTime();
                        stub(stubPort, victim, "{\"up\":false}");
                        // without the optimizer the plan never changes: time until the binding stops selecting it
                        double out = singles ? waitMs(t0, 5_000, () -> outOfSelection(base, victim))
                                : waitMs(t0, 15_000, () -> !Degrade.uses(JSON.readTree(get(base + "/admin/plan")), victim));
                        Thread.sleep(Math.max(0, 5000 - (System.nanoTime() - t0) / 1_000_000));
                        long t1 = System.nanoTime();
                        StringBuilder line = new StringBuilder();
                        for (String k : rMax.keySet()) {
                            long n = 0, f = 0;
                            for (Done d : done) if (d.serviceClass().equals(k) && d.endNanos() >= t0 && d.endNanos() <= t1) {
                                n++;
                                if (!d.ok()) f++;
                            }
                            double pct = n == 0 ? Double.NaN : 100.0 * f / n;
                            failedPct.computeIfAbsent(k, x -> new ArrayList<>()).add(pct);
                            line.append(String.format("  %s %d/%d failed (%.2f %%)", k, f, n, pct));
                        }
                        stub(stubPort, victim, "{\"up\":true}");
                        long t2 = System.nanoTime();
                        double back = singles ? waitMs(t2, 30_000, () -> !outOfSelection(base, victim))
                                : waitMs(t2, 30_000, () -> Degrade.uses(JSON.readTree(get(base + "/admin/plan")), victim));
                        outOfPlan.add(out);
                        backInPlan.add(back);
                        String where = singles ? "selection" : "the plan";
                        System.out.printf("trial %d  outage of %-8s out of %s after %5.0f ms;%s; back in %s %5.0f ms after it recovered%n",
                                trial, victim, where, out, line, where, back);
                        Thread.sleep(3000);
                        if (singles) continue; // a slowdown needs the optimizer

                        // slowdown
                        JsonNode plan = JSON.readTree(get(base + "/admin/plan"));
                        String slowed = Degrade.firstUsed(plan, "flight.findFlight");
                        long before = plan.path("version").asLong();
                        Map<String, Double> meanBefore = new LinkedHashMap<>();
                        long now = System.nanoTime();
                        for (String k : rMax.keySet()) meanBefore.put(k, mean(done, k, now - 5_000_000_000L, now));
                        long s0 = System.nanoTime();
                        stub(stubPort, slowed, "{\"latencyMs\":300,\"distribution\":\"fixed\"}");
                        double planned = waitMs(s0, 15_000, () -> {
                            JsonNode p = JSON.readTree(get(base + "/admin/plan"));
                            return p.path("version").asLong() > before && p.path("reason").asText().contains(slowed);
                        });
                        Thread.sleep(8000);
                        StringBuilder sl = new StringBuilder();
                        for (String k : rMax.keySet()) {
                            double r1 = recovered(done, k, s0, System.nanoTime(), rMax.get(k));
                            double r2 = recovered(done, k, s0, System.nanoTime(), 1.25 * meanBefore.get(k));
                            withinRmax.computeIfAbsent(k, x -> new ArrayList<>()).add(r1);
                            withinBefore.computeIfAbsent(k, x -> new ArrayList<>()).add(r2);
                            sl.append(String.format("  %s within R_max after %.0f ms, within 1.25 x before (%.0f ms) after %.0f ms", k, r1,
                                    1250 * meanBefore.get(k), r2));
                        }
                        slowPlan.add(planned);
                        System.out.printf("trial %d  slowdown of %-8s plan because of it after %5.0f ms;%s%n", trial, slowed, planned, sl);
                        stub(stubPort, slowed, "{\"latencyMs\":10,\"distribution\":\"fixed\"}");
                        Thread.sleep(6000);
                    }
                    System.out.println();
                    System.out.printf("outage: service down -> %s: median %.0f ms (max %.0f)%n", singles ? "out of selection" : "plan without it",
                            median(outOfPlan), max(outOfPlan));
                    failedPct.forEach((k, v) -> System.out.printf("outage: class %-7s composite requests failed in the 5 s from the outage: median %.2f %% (max %.2f %%)%n",
                            k, median(v), max(v)));
                    System.out.printf("recovery: provider up -> %s: median %.0f ms (max %.0f)%n", singles ? "back in selection" : "in the plan again",
                            median(backInPlan), max(backInPlan));
                    if (!singles) System.out.printf("slowdown: 10 -> 300 ms -> plan because of it: median %.0f ms (max %.0f)%n", median(slowPlan), max(slowPlan));
                    if (!singles) withinRmax.forEach((k, v) -> System.out.printf("slowdown: class %-7s mean response time within R_max after: median %.0f ms; within 1.25 x its mean before after: median %.0f ms (max %.0f)%n",
                            k, median(v), median(withinBefore.get(k)), max(withinBefore.get(k))));
                } finally {
                    running.set(false);
                    for (Thread t : clients) t.join(15_000);
                }
            }
        }
    }

    /** Whether the broker's binding has the service ejected or the WS Monitor has it down. */
    static boolean outOfSelection(String base, String service) throws Exception {
        JsonNode a = JSON.readTree(get(base + "/health")).path("adaptation");
        return a.path("ejected").toString().contains("\"" + service + "\"") || a.path("down").toString().contains("\"" + service + "\"");
    }

    /** One client sending as one seed user until stopped; every request bounded by a 30 s timeout. */
    static void load(String base, String[] user, ConcurrentLinkedQueue<Done> done, AtomicBoolean running) {
        String auth = "Basic " + Base64.getEncoder().encodeToString((user[0] + ":" + user[1]).getBytes(StandardCharsets.UTF_8));
        int i = 0;
        while (running.get()) {
            long start = System.nanoTime();
            boolean ok;
            try {
                HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/services/TripPlannerService"))
                        .timeout(Duration.ofSeconds(30)).header("Content-Type", "text/xml; charset=utf-8")
                        .header("SOAPAction", "\"urn:moses:trip-planner/planTrip\"").header("Authorization", auth)
                        .POST(HttpRequest.BodyPublishers.ofString(Demo.request(i++, user[0]))).build(), HttpResponse.BodyHandlers.ofString());
                ok = r.statusCode() == 200 && !r.body().contains("Fault>");
            } catch (Exception e) {
                ok = false;
            }
            done.add(new Done(start, System.nanoTime(), user[2], ok));
        }
    }

    static double mean(ConcurrentLinkedQueue<Done> done, String cls, long from, long to) {
        double sum = 0;
        int n = 0;
        for (Done d : done) if (d.ok() && d.serviceClass().equals(cls) && d.startNanos() >= from && d.startNanos() < to) {
            sum += d.seconds();
            n++;
        }
        return n == 0 ? Double.NaN : sum / n;
    }

    /** Time [ms] from {@code t0} to the end of the last 250 ms bucket (of request starts) whose mean exceeded {@code limit}. */
    static double recovered(ConcurrentLinkedQueue<Done> done, String cls, long t0, long end, double limit) {
        long bucket = 250_000_000L;
        double last = 0;
        for (long b = t0; b + bucket <= end - 2_000_000_000L; b += bucket) {
            double m = mean(done, cls, b, b + bucket);
            if (!Double.isNaN(m) && m > limit) last = (b + bucket - t0) / 1e6;
        }
        return last;
    }

    interface Check {
        boolean ok() throws Exception;
    }

    static double waitMs(long start, long timeoutMs, Check c) throws Exception {
        while (!c.ok()) {
            if ((System.nanoTime() - start) / 1_000_000 > timeoutMs) return Double.NaN;
            Thread.sleep(20);
        }
        return (System.nanoTime() - start) / 1e6;
    }

    /** The broker's admin API, as the seed's operator. */
    static String get(String url) throws Exception {
        return Demo.fetch(url);
    }

    static void stub(int port, String service, String json) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/admin/services/" + service))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) throw new IllegalStateException("stub admin: " + r.body());
    }

    static double median(List<Double> v) {
        double[] a = v.stream().mapToDouble(Double::doubleValue).filter(x -> !Double.isNaN(x)).sorted().toArray();
        if (a.length == 0) return Double.NaN;
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    static double max(List<Double> v) {
        return v.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }
}
