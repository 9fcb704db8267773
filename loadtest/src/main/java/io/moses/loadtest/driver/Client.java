package io.moses.loadtest.driver;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;

/**
 * One closed-loop user: send, wait for the reply, send the next. Everything it records is its
 * own (no sharing per request but the ticket counter and the progress adders); the driver reads
 * it after the thread ended.
 */
final class Client implements Runnable {
    private static final String SOAP12_NS = "http://www.w3.org/2003/05/soap-envelope";

    /** What all clients of a run share. */
    static final class Run {
        final LoadSpec spec;
        final long warmup;
        /** First ticket not to send: warm-up plus measured requests. */
        final long limit;
        final long maxDurationNanos;
        final long timeoutMs;
        final AtomicLong tickets = new AtomicLong();
        /** Set by the first client that takes a measured ticket; MIN_VALUE until then. */
        final AtomicLong measureStart = new AtomicLong(Long.MIN_VALUE);
        volatile boolean stop;
        final LongAdder warmupDone = new LongAdder(), warmupErrors = new LongAdder();
        final LongAdder measuredDone = new LongAdder(), measuredErrors = new LongAdder();

        Run(LoadSpec spec) {
            this.spec = spec;
            this.warmup = spec.warmupRequests();
            this.limit = spec.maxRequests() == 0 ? Long.MAX_VALUE : warmup + spec.maxRequests();
            this.maxDurationNanos = spec.maxDuration() == null ? Long.MAX_VALUE : spec.maxDuration().toNanos();
            this.timeoutMs = spec.requestTimeout().toMillis();
        }
    }

    private final Run run;
    private final HttpClient http;
    final UserCredentials credentials;
    private final String authorization;

    // results, read by the driver after join
    long[] latencies = new long[256];
    int samples;
    long requests;
    long successes;
    final Map<ErrorKind, Long> errorCounts = new EnumMap<>(ErrorKind.class);
    final Map<ErrorKind, Set<String>> errorExamples = new EnumMap<>(ErrorKind.class);
    final Map<String, Long> tally = new HashMap<>();
    long lastEnd = Long.MIN_VALUE;
    Throwable failure;

    Client(Run run, HttpClient http, UserCredentials credentials) {
        this.run = run;
        this.http = http;
        this.credentials = credentials;
        this.authorization = credentials == null ? null : credentials.authorizationHeader();
    }

    @Override
    public void run() {
        try {
            loop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the driver is stopping the run
        } catch (Throwable t) {
            failure = t; // e.g. the body source threw: the driver reports it
            run.stop = true;
        }
    }

    private void loop() throws InterruptedException {
        LoadSpec spec = run.spec;
        String user = credentials == null ? null : credentials.user();
        while (!run.stop) {
            long ticket = run.tickets.getAndIncrement();
            if (ticket >= run.limit) break;
            boolean warm = ticket < run.warmup;
            if (!warm) {
                long now = System.nanoTime();
                run.measureStart.compareAndSet(Long.MIN_VALUE, now);
                if (now - run.measureStart.get() >= run.maxDurationNanos) {
                    run.stop = true;
                    break;
                }
            }
            HttpRequest request = request(spec, spec.bodies().body(ticket, user));
            long t0 = System.nanoTime();
            Replies.RequestError failure;
            String body = null;
            try {
                HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
                body = response.body();
                failure = Replies.classify(response.statusCode(), body);
            } catch (IOException e) {
                failure = Replies.classify(e, run.timeoutMs);
            }
            long t1 = System.nanoTime();
            if (warm) {
                run.warmupDone.increment();
                if (failure != null) run.warmupErrors.increment();
                continue;
            }
            requests++;
            lastEnd = t1;
            if (failure == null) {
                successes++;
                if (samples == latencies.length) latencies = Arrays.copyOf(latencies, samples * 2);
                latencies[samples++] = t1 - t0;
                if (spec.tally() != null && body != null) {
                    Matcher m = spec.tally().matcher(body);
                    while (m.find()) {
                        if (m.group(1) != null) tally.merge(m.group(1), 1L, Long::sum);
                    }
                }
            } else {
                errorCounts.merge(failure.kind(), 1L, Long::sum);
                Set<String> examples = errorExamples.computeIfAbsent(failure.kind(), k -> new LinkedHashSet<>());
                if (examples.size() < LoadResult.ErrorStats.MAX_EXAMPLES) examples.add(failure.message());
                run.measuredErrors.increment();
            }
            run.measuredDone.increment();
        }
    }

    private HttpRequest request(LoadSpec spec, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(spec.target()).timeout(spec.requestTimeout())
                .POST(HttpRequest.BodyPublishers.ofString(body));
        String action = spec.soapAction();
        if (body.contains(SOAP12_NS)) {
            b.header("Content-Type", "application/soap+xml; charset=utf-8" + (action.isEmpty() ? "" : "; action=\"" + action + "\""));
        } else {
            b.header("Content-Type", "text/xml; charset=utf-8").header("SOAPAction", "\"" + action + "\"");
        }
        if (authorization != null) b.header("Authorization", authorization);
        return b.build();
    }
}
