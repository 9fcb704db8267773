package io.moses.loadtest.stubs;

import io.moses.loadtest.stubs.StubSpec.Async;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * The callbacks of one asynchronous service ({@link Async}): each accepted request's
 * {@code quoteReady} waits out its delay on the stub server's scheduler, then is POSTed to the
 * request's reply address, once, within its timeout; a callback that fails is counted, not sent
 * again. At most {@code maxPending} wait or are being sent; a request beyond them is answered 503.
 *
 * <p>One lock guards the pending callbacks and the counters, which change together; it is never
 * held while a callback is sent.
 */
final class Callbacks {
    private final String service;
    private final String namespace;
    private final Async spec;
    private final ScheduledExecutorService scheduler;
    private final HttpClient http;
    private volatile CallbackSettings settings;
    /** Scheduled or being sent, by number; a reset cancels them and forgets them. */
    private final Map<Long, ScheduledFuture<?>> pending = new HashMap<>();
    private long numbered;
    private long sent;
    private long failed;
    private long skipped;
    private long busy;
    private long withoutAddress;
    private String lastFailure;
    /** Where the latest request said to call back: a broker's reply address names its call. */
    private volatile URI lastReplyTo;

    Callbacks(String service, String namespace, Async spec, ScheduledExecutorService scheduler, HttpClient http) {
        this.service = service;
        this.namespace = namespace;
        this.spec = spec;
        this.scheduler = scheduler;
        this.http = http;
        this.settings = spec.callbacks();
    }

    CallbackSettings settings() {
        return settings;
    }

    void settings(CallbackSettings s) {
        settings = s;
    }

    /**
     * Checks a request; returns how to answer it once its latency has passed. Its callback is
     * scheduled then, and not for a request that fails (simulated).
     */
    LongFunction<StubService.Answer> accept(Soap.Request request, Supplier<Settings> latency) throws Soap.BadRequest {
        if (!request.namespace().equals(namespace) || !request.local().equals(Async.REQUEST))
            throw new Soap.BadRequest("service " + service + " expects request element {" + namespace + "}" + Async.REQUEST
                    + ", got " + request.name());
        String requestId = StubService.child(request, namespace, "requestId");
        String item = StubService.child(request, namespace, "item");
        if (requestId == null || requestId.isBlank() || item == null)
            throw new Soap.BadRequest("service " + service + ": " + Async.REQUEST + " needs children requestId, replyTo and item (in namespace "
                    + namespace + " or none); it has " + request.children().keySet());
        URI replyTo = replyTo(request, settings.address());
        lastReplyTo = replyTo;
        String id = requestId.strip();
        return count -> take(id, replyTo, latency.get());
    }

    /**
     * The callback's address: the replyTo child's wsa:Address (an endpoint reference, or a BPEL
     * service-ref wrapping one), or its text when that is a URL; {@code otherwise} when it holds
     * neither, if not null.
     */
    private URI replyTo(Soap.Request request, URI otherwise) throws Soap.BadRequest {
        String key = request.children().containsKey("{" + namespace + "}replyTo") ? "{" + namespace + "}replyTo" : "{}replyTo";
        if (!request.children().containsKey(key))
            throw new Soap.BadRequest("service " + service + ": " + Async.REQUEST + " needs children requestId, replyTo and item (in namespace "
                    + namespace + " or none); it has " + request.children().keySet());
        String address = request.addresses().get(key);
        String text = address != null ? address : request.children().get(key).strip();
        URI uri = null;
        try {
            uri = text.isEmpty() ? null : URI.create(text);
        } catch (IllegalArgumentException e) {
            // refused below
        }
        if (uri == null || !CallbackSettings.isHttp(uri)) {
            synchronized (this) {
                withoutAddress++;
            }
            if (otherwise != null) return otherwise;
            throw new Soap.BadRequest("service " + service + ": replyTo holds no http(s) address to call back ("
                    + (address != null ? "its wsa:Address is '" + address + "'" : "its text is '" + text + "'") + ")");
        }
        return uri;
    }

    private synchronized StubService.Answer take(String requestId, URI replyTo, Settings latency) {
        CallbackSettings s = settings;
        ThreadLocalRandom random = ThreadLocalRandom.current();
        if (s.never() || (s.skipProbability() > 0 && random.nextDouble() < s.skipProbability())) {
            skipped++;
            return StubService.Answer.accepted();
        }
        if (pending.size() >= spec.maxPending()) {
            busy++;
            return StubService.Answer.busy(service + " has " + pending.size() + " callbacks pending, its limit: it takes no more until some are sent");
        }
        long number = ++numbered;
        long delayMicros = Math.round(s.sampleDelayMillis(latency, random) * 1000);
        HttpRequest callback = callback(requestId, replyTo, s);
        try {
            // put under the lock, so the callback's end (which takes it) finds itself pending
            pending.put(number, scheduler.schedule(() -> send(number, callback), delayMicros, TimeUnit.MICROSECONDS));
        } catch (RejectedExecutionException e) { // the server is stopping
            busy++;
            return StubService.Answer.busy(service + " is stopping");
        }
        return StubService.Answer.accepted();
    }

    private HttpRequest callback(String requestId, URI replyTo, CallbackSettings s) {
        String body = Soap.envelope(Soap.SOAP11, "<q:" + Async.CALLBACK + " xmlns:q=\"" + Soap.escape(namespace) + "\"><q:requestId>"
                + Soap.escape(requestId) + "</q:requestId><q:price>" + spec.price(requestId) + "</q:price></q:" + Async.CALLBACK + ">");
        HttpRequest.Builder b = HttpRequest.newBuilder(replyTo).timeout(Duration.ofMillis(Math.round(s.timeoutMillis())))
                .header("Content-Type", Soap.contentType(Soap.SOAP11))
                .header("SOAPAction", "\"" + namespace + "/" + Async.CALLBACK + "\"")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (s.authorization() != null) b.header("Authorization", s.authorization());
        return b.build();
    }

    private void send(long number, HttpRequest callback) {
        try {
            http.sendAsync(callback, HttpResponse.BodyHandlers.ofString()).whenComplete((r, e) -> {
                if (e != null) done(number, callback.uri() + ": " + (e.getCause() != null ? e.getCause() : e));
                else if (r.statusCode() / 100 != 2)
                    done(number, "HTTP " + r.statusCode() + " from " + callback.uri() + ": " + excerpt(r.body()));
                else done(number, null);
            });
        } catch (RuntimeException e) { // the client refused it at once (shut down with the server)
            done(number, callback.uri() + ": " + e);
        }
    }

    private static String excerpt(String body) {
        String b = body == null ? "" : body.replaceAll("\\s+", " ").strip();
        return b.length() > 300 ? b.substring(0, 300) + "..." : b;
    }

    private synchronized void done(long number, String failure) {
        if (pending.remove(number) == null) return; // forgotten by a reset meanwhile
        if (failure == null) {
            sent++;
        } else {
            failed++;
            lastFailure = failure;
        }
    }

    /** Cancels and forgets the pending callbacks, zeroes the counters, and the settings go back to the config's. */
    synchronized void reset() {
        pending.values().forEach(f -> f.cancel(false));
        pending.clear();
        sent = failed = skipped = busy = withoutAddress = 0;
        lastFailure = null;
        lastReplyTo = null;
        settings = spec.callbacks();
    }

    /** The settings and counters, into a service's admin JSON. */
    synchronized void addTo(Map<String, Object> json) {
        settings.addTo(json);
        json.put("maxPending", spec.maxPending());
        json.put("pending", pending.size());
        json.put("callbacksSent", sent);
        json.put("callbacksFailed", failed);
        json.put("callbacksSkipped", skipped);
        json.put("pendingRefused", busy);
        json.put("withoutReplyTo", withoutAddress);
        json.put("lastCallbackFailure", lastFailure);
        json.put("lastReplyTo", lastReplyTo == null ? null : lastReplyTo.toString());
    }
}
