package io.moses.loadtest.driver;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Open-loop SOAP load: request i leaves at {@code start + i / rate}, whatever became of the
 * requests before it, so an overloaded server meets the rate it was offered (a closed loop, like
 * wrk's, slows down with the server and never overloads it). Users take the requests in turn;
 * each user belongs to a class, and the report is per class: offered, served (200, no fault),
 * refused (503), other answers, failed (no answer), and the mean, p50 and p99 response time of
 * the served ones, timed from the request's scheduled departure (a late send counts against
 * the server, not hidden).
 *
 * <p>The driver's own health is reported apart: how late it sent (a busy machine can delay the
 * sender), requests it did not send because too many were outstanding, and requests with no
 * outcome when it stopped. Those are the tool's errors, not the server's.
 */
public final class OpenLoopDriver {
    static final String USAGE = """
            usage: OpenLoopDriver --url U --body FILE --rate R --seconds T --user NAME:PASSWORD=CLASS... [--action A]
                                  [--timeout S] [--max-outstanding N] [--progress S]
            Open-loop SOAP load: R requests per second for T seconds, users in turn ({user} in the body is the user's name).
            Prints one CLASS line per class and one DRIVER line (the tool's own errors). Exit 0, or 2 for bad arguments.""";

    private record User(UserCredentials credentials, String serviceClass) {}

    /** One class's outcomes; guarded by itself (replies arrive on the client's threads). */
    private static final class Tally {
        long offered, served, refused, other, failed;
        long[] latencies = new long[1024];
        int samples;
        String example;

        synchronized void served(long nanos) {
            served++;
            if (samples == latencies.length) latencies = Arrays.copyOf(latencies, samples * 2);
            latencies[samples++] = nanos;
        }

        synchronized void notServed(int status, String why) {
            if (status == 503) refused++;
            else if (status > 0) other++;
            else failed++;
            if (status != 503 && example == null) example = why;
        }

        synchronized String line(String name) {
            long[] l = Arrays.copyOf(latencies, samples);
            Arrays.sort(l);
            double mean = l.length == 0 ? 0 : Arrays.stream(l).average().orElse(0) / 1e6;
            return String.format("CLASS %s offered=%d served=%d refused=%d other=%d failed=%d mean_ms=%.1f p50_ms=%.1f p99_ms=%.1f%s",
                    name, offered, served, refused, other, failed, mean, pct(l, 0.50), pct(l, 0.99), example == null ? "" : " example=\"" + example + "\"");
        }

        private static double pct(long[] sorted, double p) {
            if (sorted.length == 0) return 0;
            return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)] / 1e6;
        }
    }

    public static void main(String[] args) throws Exception {
        try {
            System.exit(run(args, System.out, System.err));
        } catch (IllegalArgumentException e) {
            System.err.println("OpenLoopDriver: " + e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
        }
    }

    static int run(String[] args, PrintStream out, PrintStream progress) throws IOException, InterruptedException {
        String url = null, action = "", body = null;
        double rate = 0, seconds = 0, timeout = 30, progressEvery = 5;
        int maxOutstanding = 4000;
        List<User> users = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String opt = args[i];
            if (i + 1 >= args.length) throw new IllegalArgumentException(opt + " needs a value");
            String v = args[++i];
            switch (opt) {
                case "--url" -> url = v;
                case "--action" -> action = v;
                case "--body" -> body = Files.readString(Path.of(v));
                case "--rate" -> rate = positive(opt, v);
                case "--seconds" -> seconds = positive(opt, v);
                case "--timeout" -> timeout = positive(opt, v);
                case "--progress" -> progressEvery = positive(opt, v);
                case "--max-outstanding" -> maxOutstanding = (int) positive(opt, v);
                case "--user" -> {
                    int eq = v.lastIndexOf('=');
                    if (eq <= 0 || eq == v.length() - 1) throw new IllegalArgumentException("--user takes NAME:PASSWORD=CLASS, got '" + v.replaceAll(":.*", ":***") + "'");
                    users.add(new User(UserCredentials.parse(v.substring(0, eq)), v.substring(eq + 1)));
                }
                default -> throw new IllegalArgumentException("unknown option '" + opt + "'");
            }
        }
        if (url == null || body == null || rate == 0 || seconds == 0 || users.isEmpty())
            throw new IllegalArgumentException("--url, --body, --rate, --seconds and at least one --user are required");
        URI target = URI.create(url);
        if (!"127.0.0.1".equals(target.getHost())) throw new IllegalArgumentException("--url: load goes to 127.0.0.1 only, got " + target.getHost());

        Map<String, Tally> classes = new LinkedHashMap<>();
        for (User u : users) classes.computeIfAbsent(u.serviceClass(), c -> new Tally());
        List<HttpRequest> requests = new ArrayList<>();
        Duration perRequest = Duration.ofMillis((long) (timeout * 1000));
        for (User u : users)
            requests.add(HttpRequest.newBuilder(target).timeout(perRequest).header("Content-Type", "text/xml; charset=utf-8")
                    .header("SOAPAction", "\"" + action + "\"").header("Authorization", u.credentials().authorizationHeader())
                    .POST(HttpRequest.BodyPublishers.ofString(body.replace("{user}", u.credentials().user()))).build());

        ExecutorService pool = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "open-loop-client");
            t.setDaemon(true);
            return t;
        });
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).executor(pool).build();
        long total = Math.round(rate * seconds);
        double interval = 1e9 / rate;
        AtomicInteger outstanding = new AtomicInteger();
        long late = 0, maxLag = 0, notSent = 0;
        long start = System.nanoTime(), nextProgress = start + (long) (progressEvery * 1e9);
        for (long i = 0; i < total; i++) {
            long due = start + (long) (i * interval);
            for (long wait; (wait = due - System.nanoTime()) > 0; ) LockSupport.parkNanos(wait);
            long now = System.nanoTime();
            long lag = now - due;
            maxLag = Math.max(maxLag, lag);
            if (lag > 50_000_000L) late++;
            int u = (int) (i % users.size());
            Tally tally = classes.get(users.get(u).serviceClass());
            synchronized (tally) {
                tally.offered++;
            }
            if (outstanding.get() >= maxOutstanding) {
                notSent++; // the driver's limit, not the server's answer: reported on the DRIVER line only
                continue;
            }
            outstanding.incrementAndGet();
            http.sendAsync(requests.get(u), HttpResponse.BodyHandlers.ofString()).whenComplete((res, err) -> {
                long took = System.nanoTime() - due;
                if (err != null) tally.notServed(0, String.valueOf(err.getMessage() == null ? err.getClass().getSimpleName() : err.getMessage()));
                else {
                    Replies.RequestError f = Replies.classify(res.statusCode(), res.body());
                    if (f == null) tally.served(took);
                    else tally.notServed(res.statusCode(), res.statusCode() + " " + f.message());
                }
                outstanding.decrementAndGet();
            });
            if (now >= nextProgress) {
                progress.printf("open-loop: %.0f s of %.0f, sent %d of %d, outstanding %d, late sends %d%n", (now - start) / 1e9, seconds, i + 1, total,
                        outstanding.get(), late);
                nextProgress += (long) (progressEvery * 1e9);
            }
        }
        // the outcomes still to come, for at most one request timeout and a margin
        long deadline = System.nanoTime() + perRequest.toNanos() + 5_000_000_000L;
        while (outstanding.get() > 0 && System.nanoTime() < deadline) Thread.sleep(20);
        int unfinished = outstanding.get();
        for (Map.Entry<String, Tally> e : classes.entrySet()) out.println(e.getValue().line(e.getKey()));
        out.printf("DRIVER rate=%.1f seconds=%.0f offered=%d late_sends=%d max_lag_ms=%.1f not_sent=%d unfinished=%d errors=%d%n", rate, seconds,
                total, late, maxLag / 1e6, notSent, unfinished, notSent + unfinished);
        pool.shutdownNow();
        pool.awaitTermination(5, TimeUnit.SECONDS);
        return 0;
    }

    private static double positive(String opt, String v) {
        double d;
        try {
            d = Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(opt + " must be a number > 0, got '" + v + "'");
        }
        if (!(d > 0) || Double.isInfinite(d)) throw new IllegalArgumentException(opt + " must be a number > 0, got '" + v + "'");
        return d;
    }
}
