package io.moses.loadtest.bench;

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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;

/**
 * A provider that hangs, with the stall watch and without it (docs/model.md, "Reaction between
 * plans": stalled providers), in one run: the trip planner on its seed (monitors and optimizer
 * on), stubs lognormal, open-loop load (a fixed rate, users do not wait for each other) spread
 * over the seed's users. For payment (not
 * idempotent) and weather (idempotent), each variant on a fresh broker: a healthy phase (its p99
 * is the yardstick), then the provider of the task that took most of its calls accepts calls and
 * answers none for the hang phase; the requests that failed or took over 3 s, p50, p99 and p99
 * over the healthy p99, and the calls the hung provider received, counted at the stub. The
 * variants run one after the other on the same stubs, in the order on, off, off, on, so a machine
 * that slows down weighs on both alike. Started by loadtest/bench-hang.sh.
 */
public final class HangBenchmark {
    static final String HEALTHY = "{\"latencyMs\":10,\"distribution\":\"lognormal\",\"sigma\":1}";
    static final String HUNG = "{\"latencyMs\":3600000,\"distribution\":\"fixed\"}";
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    static final List<String> TASKS = List.of("flight", "hotel", "weather", "car", "attraction", "payment");

    /** One variant's hang of one task. */
    record Outcome(String task, String variant, String hung, int requests, int failed, int slow, double p50, double p99,
                   double healthyP99, long hungCalls) {}

    private HangBenchmark() {}

    public static void main(String[] args) throws Exception {
        int warmup = 20, healthy = 15, hang = 30;
        double rate = 40;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--healthy" -> healthy = Integer.parseInt(args[++i]);
                case "--hang" -> hang = Integer.parseInt(args[++i]);
                case "--rate" -> rate = Double.parseDouble(args[++i]);
                default -> {
                    System.err.println("usage: bench-hang.sh [--warmup 20] [--healthy 15] [--hang 30] [--rate 40]");
                    System.exit(2);
                }
            }
        }
        if (warmup < 5 || warmup > 300 || healthy < 5 || healthy > 300 || hang < 5 || hang > 300 || !(rate >= 1 && rate <= 500)) {
            System.err.println("bench-hang.sh: --warmup, --healthy and --hang 5..300 s, --rate 1..500 requests/s");
            System.exit(2);
        }
        Path home = Path.of(System.getProperty("moses.home", "."));
        Path tmp = Files.createTempDirectory("moses-bench-hang");
        System.out.printf("bench-hang: trip planner seed, open-loop load at %.0f requests/s over the seed's users, stubs lognormal 10 ms sigma 1;"
                + " per task and variant a fresh broker, %d s warm-up, %d s healthy, %d s hang; %s; logs in %s%n", rate, warmup, healthy, hang,
                machine(), tmp);
        List<Outcome> outcomes = new ArrayList<>();
        try (Child stubs = new Child("stubs", System.getProperty("java.class.path"), "io.moses.loadtest.stubs.StubServer",
                List.of("--port", "0"), tmp.resolve("stubs.log"))) {
            int stubPort = Integer.parseInt(stubs.await(Pattern.compile("stubs listening on http://[^:]+:(\\d+)"), 60));
            int run = 0;
            for (String task : List.of("payment", "weather"))
                for (String variant : run++ % 2 == 0 ? List.of("on", "off") : List.of("off", "on"))
                    outcomes.add(variant(home, tmp, stubPort, task, variant, rate, warmup, healthy, hang));
        }
        report(outcomes, hang);
    }

    static Outcome variant(Path home, Path tmp, int stubPort, String task, String variant, double rate, int warmup, int healthy, int hang)
            throws Exception {
        for (String t : TASKS)
            for (String p : List.of("-a", "-b")) AdaptationBenchmark.stub(stubPort, t + p, HEALTHY);
        String name = task + "-" + variant;
        List<String> brokerArgs = List.of("--port", "0", "--work", tmp.resolve("work-" + name).toString(), "--db", "mem:bench-" + name,
                "--deploy", home.resolve("bpel-processes/trip-planner").toString(),
                "--seed", home.resolve("bpel-processes/trip-planner/seed.yaml").toString(),
                "--set", "STUBS=http://127.0.0.1:" + stubPort);
        try (Child broker = new Child("broker-" + name, List.of(), Map.of("MOSES_STALL_WATCH", variant),
                System.getProperty("moses.broker.classpath"), "io.moses.core.Main", brokerArgs, tmp.resolve("broker-" + name + ".log"))) {
            String base = "http://127.0.0.1:" + broker.await(Pattern.compile("broker listening on http://[^:]+:(\\d+)"), 180);
            ConcurrentLinkedQueue<AdaptationBenchmark.Done> done = new ConcurrentLinkedQueue<>();
            AtomicBoolean running = new AtomicBoolean(true);
            Thread sender = new Thread(() -> openLoop(base, rate, done, running), "sender");
            sender.setDaemon(true);
            sender.start();
            try {
                Thread.sleep(warmup * 1000L);
                long a0 = HedgeBenchmark.requests(stubPort, task + "-a"), b0 = HedgeBenchmark.requests(stubPort, task + "-b");
                long healthyFrom = System.nanoTime();
                Thread.sleep(healthy * 1000L);
                long healthyTo = System.nanoTime();
                long a = HedgeBenchmark.requests(stubPort, task + "-a") - a0, b = HedgeBenchmark.requests(stubPort, task + "-b") - b0;
                String hung = a >= b ? task + "-a" : task + "-b";
                long hungBefore = HedgeBenchmark.requests(stubPort, hung);
                System.out.printf("%s, stall watch %s: %s took %d of the %d calls of %s in the healthy %d s; it hangs now%n",
                        task, variant, hung, Math.max(a, b), a + b, task, healthy);
                AdaptationBenchmark.stub(stubPort, hung, HUNG);
                long hangFrom = System.nanoTime();
                Thread.sleep(hang * 1000L);
                long hangTo = System.nanoTime();
                long hungCalls = HedgeBenchmark.requests(stubPort, hung) - hungBefore;
                running.set(false);
                sender.join(120_000); // every request sent has ended (its own timeout at most)
                AdaptationBenchmark.stub(stubPort, hung, HEALTHY);
                List<Double> healthySeconds = new ArrayList<>();
                List<Double> hangSeconds = new ArrayList<>();
                int requests = 0, failed = 0, slow = 0;
                for (AdaptationBenchmark.Done d : done) {
                    if (d.startNanos() >= healthyFrom && d.startNanos() < healthyTo && d.ok()) healthySeconds.add(d.seconds());
                    // the hang's requests: those in flight when it began, and those sent during it
                    if (d.endNanos() < hangFrom || d.startNanos() >= hangTo) continue;
                    requests++;
                    if (!d.ok()) failed++;
                    else if (d.seconds() > 3) slow++;
                    if (d.ok()) hangSeconds.add(d.seconds());
                }
                double[] h = sorted(healthySeconds), s = sorted(hangSeconds);
                Outcome o = new Outcome(task, variant, hung, requests, failed, slow, HedgeBenchmark.quantile(s, 0.5),
                        HedgeBenchmark.quantile(s, 0.99), HedgeBenchmark.quantile(h, 0.99), hungCalls);
                System.out.printf("%s, stall watch %s: %d requests in the hang, %d failed, %d over 3 s, p99 %.0f ms (healthy %.0f ms), %d calls to %s%n",
                        task, variant, o.requests(), failed, slow, 1000 * o.p99(), 1000 * o.healthyP99(), hungCalls, hung);
                return o;
            } finally {
                running.set(false);
            }
        }
    }

    /**
     * Open-loop load: requests at a fixed rate, spread over the seed's users, each sent whether the
     * earlier ones have ended or not (users do not wait for each other); returns when every
     * request sent has ended.
     */
    static void openLoop(String base, double rate, ConcurrentLinkedQueue<AdaptationBenchmark.Done> done, AtomicBoolean running) {
        List<CompletableFuture<?>> pending = new ArrayList<>();
        long t0 = System.nanoTime();
        for (long i = 0; running.get(); i++) {
            long due = t0 + Math.round(i * 1e9 / rate);
            long wait = due - System.nanoTime();
            if (wait > 0) java.util.concurrent.locks.LockSupport.parkNanos(wait);
            String[] user = Demo.USERS[(int) (i % Demo.USERS.length)];
            String auth = "Basic " + Base64.getEncoder().encodeToString((user[0] + ":" + user[1]).getBytes(StandardCharsets.UTF_8));
            long start = System.nanoTime();
            pending.add(HTTP.sendAsync(HttpRequest.newBuilder(URI.create(base + "/services/TripPlannerService"))
                            .timeout(Duration.ofSeconds(60)).header("Content-Type", "text/xml; charset=utf-8")
                            .header("SOAPAction", "\"urn:moses:trip-planner/planTrip\"").header("Authorization", auth)
                            .POST(HttpRequest.BodyPublishers.ofString(Demo.request((int) i, user[0]))).build(), HttpResponse.BodyHandlers.ofString())
                    .whenComplete((r, e) -> done.add(new AdaptationBenchmark.Done(start, System.nanoTime(), user[2],
                            e == null && r.statusCode() == 200 && !r.body().contains("Fault>")))));
            if (pending.size() > 1024) pending.removeIf(CompletableFuture::isDone);
        }
        for (CompletableFuture<?> f : pending) f.handle((r, e) -> null).join();
    }

    /** The machine, for the record: its processor, cores and load average now. */
    static String machine() {
        String model = "unknown processor";
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo")))
                if (line.startsWith("model name")) {
                    model = line.substring(line.indexOf(':') + 1).strip();
                    break;
                }
            String load = Files.readString(Path.of("/proc/loadavg")).split(" ", 4)[0];
            return model + ", " + Runtime.getRuntime().availableProcessors() + " cores, load average " + load;
        } catch (java.io.IOException e) {
            return model + ", " + Runtime.getRuntime().availableProcessors() + " cores";
        }
    }

    static double[] sorted(List<Double> v) {
        return v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    }

    static void report(List<Outcome> outcomes, int hang) {
        System.out.println();
        System.out.printf("A provider hangs (accepts calls, answers none) for %d s; the requests in flight when it began and those sent during it%n", hang);
        System.out.printf("  %-8s %-11s %-11s %8s %7s %9s %10s %9s %9s %12s %12s%n", "task", "stall watch", "hung", "requests", "failed",
                "over 3 s", "bad share", "p50 [ms]", "p99 [ms]", "p99/healthy", "calls to it");
        Map<String, Outcome> byKey = new LinkedHashMap<>();
        for (Outcome o : outcomes) {
            byKey.put(o.task() + "/" + o.variant(), o);
            System.out.printf("  %-8s %-11s %-11s %8d %7d %9d %9.2f%% %9.0f %9.0f %11.2fx %12d%n", o.task(), o.variant(), o.hung(), o.requests(),
                    o.failed(), o.slow(), 100.0 * (o.failed() + o.slow()) / Math.max(1, o.requests()), 1000 * o.p50(), 1000 * o.p99(),
                    o.p99() / o.healthyP99(), o.hungCalls());
        }
        for (String task : List.of("payment", "weather")) {
            Outcome on = byKey.get(task + "/on"), off = byKey.get(task + "/off");
            if (on == null || off == null) continue;
            System.out.printf("  %s: failed or over 3 s, on/off: %d/%d; calls to the hung provider, on/off: %d/%d%n", task,
                    on.failed() + on.slow(), off.failed() + off.slow(), on.hungCalls(), off.hungCalls());
        }
    }
}
