package io.moses.loadtest.demo;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * A closed-loop workload: N clients, each sending one request and waiting for its reply
 * before the next, until a total count is reached. Clients take the given users in turn.
 */
public final class Workload {
    private final URI target;
    private final String soapAction;
    private final String[][] users;
    private final int clients;

    /**
     * @param perUser per user name: latencies [ms] of its requests and how many failed
     */
    public record Result(int requests, int errors, double seconds, double[] latenciesMs, Map<String, Integer> errorKinds,
                         Map<String, UserStats> perUser) {
        public double throughput() {
            return requests / seconds;
        }

        public double percentile(double q) {
            if (latenciesMs.length == 0) return Double.NaN;
            int i = (int) Math.ceil(q * latenciesMs.length) - 1;
            return latenciesMs[Math.max(0, Math.min(latenciesMs.length - 1, i))];
        }

        public String report() {
            StringBuilder s = new StringBuilder();
            s.append(String.format("requests %d, errors %d, %.1f s, throughput %.1f req/s%n", requests, errors, seconds, throughput()));
            s.append(String.format("latency ms: p50 %.1f  p95 %.1f  p99 %.1f  max %.1f",
                    percentile(0.50), percentile(0.95), percentile(0.99), percentile(1.0)));
            errorKinds.forEach((k, n) -> s.append(String.format("%n  error x%d: %s", n, k)));
            return s.toString();
        }
    }

    /** What one user's requests saw. */
    public record UserStats(double[] latenciesMs, int errors) {}

    public Workload(URI target, String soapAction, String[][] users, int clients) {
        this.target = target;
        this.soapAction = soapAction;
        this.users = users;
        this.clients = clients;
    }

    public Result run(int total, BiFunction<Integer, String, String> body, Consumer<String> progress) throws InterruptedException {
        return run(total, Double.POSITIVE_INFINITY, body, progress);
    }

    /** Runs until {@code total} requests were sent or {@code maxSeconds} passed, whichever first. */
    public Result run(int total, double maxSeconds, BiFunction<Integer, String, String> body, Consumer<String> progress)
            throws InterruptedException {
        long stopAt = Double.isInfinite(maxSeconds) ? Long.MAX_VALUE : System.nanoTime() + (long) (maxSeconds * 1e9);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
        AtomicInteger next = new AtomicInteger();
        AtomicInteger errors = new AtomicInteger();
        AtomicLong done = new AtomicLong();
        Map<String, Integer> kinds = new ConcurrentHashMap<>();
        double[][] lat = new double[clients][];
        int[] clientErrors = new int[clients];
        List<Thread> threads = new ArrayList<>();
        long start = System.nanoTime();
        for (int c = 0; c < clients; c++) {
            int client = c;
            String[] user = users[c % users.length];
            String auth = "Basic " + Base64.getEncoder().encodeToString((user[0] + ":" + user[1]).getBytes(StandardCharsets.UTF_8));
            Thread t = new Thread(() -> {
                double[] mine = new double[Math.min(total, 1 << 22)];
                int n = 0;
                for (int i; System.nanoTime() < stopAt && (i = next.getAndIncrement()) < total; ) {
                    long t0 = System.nanoTime();
                    String error;
                    try {
                        HttpResponse<String> r = http.send(HttpRequest.newBuilder(target).timeout(Duration.ofSeconds(30))
                                .header("Content-Type", "text/xml; charset=utf-8").header("SOAPAction", "\"" + soapAction + "\"")
                                .header("Authorization", auth).POST(HttpRequest.BodyPublishers.ofString(body.apply(i, user[0]))).build(),
                                HttpResponse.BodyHandlers.ofString());
                        error = r.statusCode() == 200 ? null : "HTTP " + r.statusCode() + " " + faultString(r.body());
                    } catch (Exception e) {
                        error = e.getClass().getSimpleName() + ": " + e.getMessage();
                    }
                    mine[n++] = (System.nanoTime() - t0) / 1e6;
                    done.incrementAndGet();
                    if (error != null) {
                        clientErrors[client]++;
                        errors.incrementAndGet();
                        kinds.merge(error, 1, Integer::sum);
                    }
                }
                lat[client] = Arrays.copyOf(mine, n);
            }, "client-" + c);
            threads.add(t);
            t.start();
        }
        long lastReport = System.nanoTime();
        while (threads.stream().anyMatch(Thread::isAlive)) {
            Thread.sleep(100);
            if (System.nanoTime() - lastReport > 2_000_000_000L) {
                lastReport = System.nanoTime();
                double s = (lastReport - start) / 1e9;
                progress.accept(String.format("[%5.1fs] %d/%d requests, %.0f req/s, %d errors", s, done.get(), total, done.get() / s, errors.get()));
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        double[] all = Arrays.stream(lat).filter(a -> a != null).flatMapToDouble(Arrays::stream).sorted().toArray();
        Map<String, UserStats> perUser = new TreeMap<>();
        for (int c = 0; c < clients; c++) {
            String name = users[c % users.length][0];
            UserStats prev = perUser.get(name);
            double[] mine = lat[c] == null ? new double[0] : lat[c];
            perUser.put(name, prev == null ? new UserStats(mine, clientErrors[c])
                    : new UserStats(java.util.stream.DoubleStream.concat(Arrays.stream(prev.latenciesMs()), Arrays.stream(mine)).toArray(),
                    prev.errors() + clientErrors[c]));
        }
        return new Result((int) done.get(), errors.get(), seconds, all, new TreeMap<>(kinds), perUser);
    }

    private static String faultString(String body) {
        int a = body.indexOf("<faultstring>");
        int b = body.indexOf("</faultstring>");
        return a >= 0 && b > a ? body.substring(a + 13, b) : body.length() > 120 ? body.substring(0, 120) : body;
    }
}
