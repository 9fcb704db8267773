package io.moses.monitor;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The WS Monitor: probes every concrete service on a period with a GET of its WSDL
 * ({@code endpoint?wsdl}), with hysteresis: a service is down after {@code downAfter}
 * failed probes in a row and up again after {@code upAfter} good ones. Calls back on each
 * change ({@link #onChange}).
 */
public final class WsMonitor {
    private static final Logger log = LoggerFactory.getLogger(WsMonitor.class);

    private final HttpClient http;
    private final Duration timeout;
    private final int downAfter;
    private final int upAfter;
    private volatile BiConsumer<String, Boolean> onChange = (service, up) -> {};
    private final Map<String, int[]> streaks = new ConcurrentHashMap<>();
    private final Set<String> down = ConcurrentHashMap.newKeySet();

    /** @param timeout how long a probe may take before it counts as failed (the JDK client's own timeouts) */
    public WsMonitor(Duration timeout, int downAfter, int upAfter) {
        this.http = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1).build();
        this.timeout = timeout;
        this.downAfter = downAfter;
        this.upAfter = upAfter;
    }

    /** Called with (service, up) on every change of state, on a probe's thread (the feedback loop sets it). */
    public void onChange(BiConsumer<String, Boolean> listener) {
        this.onChange = listener;
    }

    /** Probes every service once, concurrently; returns when all probes have ended. */
    public void probe(Map<String, URI> endpoints) {
        List<CompletableFuture<Void>> probes = new ArrayList<>();
        for (var e : endpoints.entrySet()) {
            URI wsdl = URI.create(e.getValue() + (e.getValue().getQuery() == null ? "?wsdl" : "&wsdl"));
            probes.add(http.sendAsync(HttpRequest.newBuilder(wsdl).timeout(timeout).GET().build(), HttpResponse.BodyHandlers.discarding())
                    .handle((r, err) -> err == null ? r.statusCode() == 200 ? OK : r.statusCode() == 503 ? REFUSED : FAILED
                            : refusal(err) ? REFUSED : FAILED)
                    .thenAccept(result -> observe(e.getKey(), result)));
        }
        CompletableFuture.allOf(probes.toArray(CompletableFuture[]::new)).join();
        streaks.keySet().retainAll(endpoints.keySet());
        down.retainAll(endpoints.keySet());
    }

    private static final int OK = 0, FAILED = 1, REFUSED = 2;

    /** A refused connection: nothing listens there (unlike a timeout, which a busy machine can cause). */
    private static boolean refusal(Throwable err) {
        boolean connect = false;
        for (Throwable t = err; t != null; t = t.getCause()) {
            // the JDK's connect timeout carries a ConnectException as its cause: not a refusal
            if (t instanceof java.net.http.HttpTimeoutException) return false;
            connect |= t instanceof java.net.ConnectException;
        }
        return connect;
    }

    /**
     * Hysteresis: down after {@code downAfter} failed probes in a row, or at once when the probe
     * was refused outright (HTTP 503, connection refused), which a busy machine does not cause.
     */
    void observe(String service, int result) {
        boolean ok = result == OK;
        int[] s = streaks.computeIfAbsent(service, k -> new int[2]); // [good in a row, bad in a row]
        boolean changed;
        synchronized (s) {
            if (ok) { s[0]++; s[1] = 0; } else { s[1]++; s[0] = 0; }
            changed = ok ? s[0] >= upAfter && down.remove(service)
                    : (s[1] >= downAfter || result == REFUSED) && down.add(service);
        }
        if (changed) {
            log.info("concrete service {} is {}", service, ok ? "back up" : "down");
            onChange.accept(service, ok);
        }
    }

    /** The services whose last probe succeeded. */
    public Set<String> answering() {
        Set<String> out = new java.util.HashSet<>();
        streaks.forEach((k, s) -> {
            synchronized (s) {
                if (s[0] > 0) out.add(k);
            }
        });
        return out;
    }

    public Set<String> down() {
        return Set.copyOf(down);
    }
}
