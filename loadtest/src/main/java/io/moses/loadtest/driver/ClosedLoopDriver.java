package io.moses.loadtest.driver;

import java.io.PrintStream;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closed-model load (as The Grinder): N clients, each on its own platform thread, each sending a
 * SOAP request and waiting for the reply before sending the next; so the offered load adapts to
 * the server's speed and throughput = N / (response time + think time 0).
 *
 * <p>In-process: {@link #run(LoadSpec)}. Command line: see {@link #main(String[])}.
 */
public final class ClosedLoopDriver {
    private static final Logger log = LoggerFactory.getLogger(ClosedLoopDriver.class);

    /** How clients share HTTP connections; measured on a local echo server, see {@link #run(LoadSpec)}. */
    enum Transport { SHARED_CLIENT, CLIENT_PER_THREAD }

    private ClosedLoopDriver() {}

    /**
     * Runs the load and returns what it measured. Blocks until the bounds are reached and every
     * request in flight has its reply or timed out. Progress callbacks run on the calling thread.
     * One HttpClient shared by all clients (HTTP/1.1, keep-alive: one pooled connection per busy
     * client): on a local Jetty echo server (2 CPUs) it was as fast as one client per thread with 1
     * client and 5-10% faster with 8 and 64 (7400 against 6900 req/s), with one selector thread
     * instead of N.
     *
     * @throws InterruptedException  if the calling thread is interrupted; the clients are stopped first
     * @throws IllegalStateException if a client failed in an unexpected way (e.g. the body source threw)
     */
    public static LoadResult run(LoadSpec spec) throws InterruptedException {
        return run(spec, Transport.SHARED_CLIENT);
    }

    static LoadResult run(LoadSpec spec, Transport transport) throws InterruptedException {
        Client.Run run = new Client.Run(spec);
        HttpClient shared = transport == Transport.SHARED_CLIENT ? newHttpClient(spec) : null;
        List<Client> clients = new ArrayList<>(spec.clients());
        List<Thread> threads = new ArrayList<>(spec.clients());
        CountDownLatch finished = new CountDownLatch(spec.clients());
        for (int i = 0; i < spec.clients(); i++) {
            UserCredentials c = spec.credentials().isEmpty() ? null : spec.credentials().get(i % spec.credentials().size());
            Client client = new Client(run, shared != null ? shared : newHttpClient(spec), c);
            clients.add(client);
            Thread t = new Thread(() -> {
                try {
                    client.run();
                } finally {
                    finished.countDown();
                }
            }, "load-client-" + i);
            t.setDaemon(true); // a stuck request must not keep a CLI or a test JVM alive
            threads.add(t);
        }
        log.debug("load run: {} clients, {} -> {}", spec.clients(), spec.soapAction(), spec.target());
        long runStart = System.nanoTime();
        threads.forEach(Thread::start);
        try {
            long interval = spec.progressInterval().toNanos();
            while (!finished.await(interval, TimeUnit.NANOSECONDS)) {
                if (spec.progress() != null) report(spec, run, runStart);
            }
        } catch (InterruptedException e) {
            run.stop = true;
            threads.forEach(Thread::interrupt);
            for (Thread t : threads) t.join(1000);
            throw e;
        }
        for (Thread t : threads) t.join(); // for the memory effects: results are read below
        for (int i = 0; i < clients.size(); i++) {
            Throwable failure = clients.get(i).failure;
            if (failure != null) throw new IllegalStateException("load client " + i + " failed: " + failure, failure);
        }
        LoadResult result = merge(spec, run, clients);
        log.debug("load run done: {} requests, {} errors, {} req/s", result.requests(), result.errorCount(), result.throughput());
        return result;
    }

    private static HttpClient newHttpClient(LoadSpec spec) {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(spec.requestTimeout())
                .followRedirects(HttpClient.Redirect.NEVER).build();
    }

    private static void report(LoadSpec spec, Client.Run run, long runStart) {
        long now = System.nanoTime();
        long measureStart = run.measureStart.get();
        Progress p = measureStart == Long.MIN_VALUE
                ? new Progress((now - runStart) / 1e9, run.warmupDone.sum(), run.warmupErrors.sum(), true, run.warmup)
                : new Progress((now - measureStart) / 1e9, run.measuredDone.sum(), run.measuredErrors.sum(), false, run.warmup);
        try {
            spec.progress().accept(p);
        } catch (RuntimeException e) {
            log.warn("progress callback failed, run goes on: {}", e.toString());
        }
    }

    private static LoadResult merge(LoadSpec spec, Client.Run run, List<Client> clients) {
        long requests = 0, successes = 0, lastEnd = Long.MIN_VALUE;
        int samples = 0;
        Map<ErrorKind, Long> errorCounts = new EnumMap<>(ErrorKind.class);
        Map<ErrorKind, Set<String>> examples = new EnumMap<>(ErrorKind.class);
        Map<String, Long> tally = new HashMap<>();
        Map<String, List<Client>> byUser = new LinkedHashMap<>();
        for (Client c : clients) {
            requests += c.requests;
            successes += c.successes;
            samples += c.samples;
            lastEnd = Math.max(lastEnd, c.lastEnd);
            c.errorCounts.forEach((k, n) -> errorCounts.merge(k, n, Long::sum));
            c.errorExamples.forEach((k, ex) -> {
                Set<String> all = examples.computeIfAbsent(k, x -> new LinkedHashSet<>());
                for (String e : ex) if (all.size() < LoadResult.ErrorStats.MAX_EXAMPLES) all.add(e);
            });
            c.tally.forEach((k, n) -> tally.merge(k, n, Long::sum));
            if (c.credentials != null) byUser.computeIfAbsent(c.credentials.user(), u -> new ArrayList<>()).add(c);
        }
        Map<ErrorKind, LoadResult.ErrorStats> errors = new EnumMap<>(ErrorKind.class);
        errorCounts.forEach((k, n) -> errors.put(k, new LoadResult.ErrorStats(n, List.copyOf(examples.get(k)))));
        Map<String, LoadResult.UserStats> perUser = new TreeMap<>();
        byUser.forEach((user, cs) -> {
            long r = 0, s = 0;
            for (Client c : cs) {
                r += c.requests;
                s += c.successes;
            }
            perUser.put(user, new LoadResult.UserStats(r, r - s, LoadResult.Latency.of(sortedLatencies(cs))));
        });
        long measureStart = run.measureStart.get();
        double elapsed = requests == 0 || measureStart == Long.MIN_VALUE ? 0 : (lastEnd - measureStart) / 1e9;
        return new LoadResult(requests, successes, errors, run.warmupDone.sum(), spec.clients(), elapsed,
                elapsed > 0 ? requests / elapsed : 0, LoadResult.Latency.of(sortedLatencies(clients)), tally, perUser);
    }

    private static long[] sortedLatencies(List<Client> clients) {
        int n = 0;
        for (Client c : clients) n += c.samples;
        long[] all = new long[n];
        int at = 0;
        for (Client c : clients) {
            System.arraycopy(c.latencies, 0, all, at, c.samples);
            at += c.samples;
        }
        Arrays.sort(all);
        return all;
    }

    /**
     * {@code --url U --action A (--body FILE | --bodies DIR) --clients N --requests M --seconds T
     * --warmup W --user u:p ... --tally REGEX --timeout S --progress S --json}. Prints the report
     * (or one JSON line) on stdout, progress on stderr. Exit code 0 without errors, 1 with any
     * error, 2 for bad arguments.
     */
    public static void main(String[] args) {
        System.exit(cli(args, System.out, System.err));
    }

    static int cli(String[] args, PrintStream out, PrintStream err) {
        Cli cli;
        LoadSpec spec;
        try {
            cli = Cli.parse(args);
            if (cli.help) {
                out.println(Cli.USAGE);
                return 0;
            }
            spec = cli.spec(err);
        } catch (IllegalArgumentException e) {
            err.println("error: " + e.getMessage());
            err.println("usage: " + Cli.USAGE_LINE + "   (--help for details)");
            return 2;
        }
        LoadResult result;
        try {
            result = run(spec);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("error: interrupted");
            return 1;
        }
        out.println(cli.json ? result.toJson() : result.report());
        return result.errorCount() == 0 ? 0 : 1;
    }

    /** Seconds from the command line as a Duration (fractions allowed). */
    static Duration seconds(double s) {
        return Duration.ofNanos(Math.round(s * 1e9));
    }
}
