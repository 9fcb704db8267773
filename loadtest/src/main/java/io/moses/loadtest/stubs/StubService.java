package io.moses.loadtest.stubs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpClient;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;

/** One stub service while it runs: its spec, its current settings and its counters. */
final class StubService {
    /**
     * What a stub answers a request it accepted: a reply's SOAP Body content, a fault's reason,
     * HTTP 202 with no body (a one-way request taken), or 503 with a fault (too busy to take it).
     */
    record Answer(String body, String fault, boolean senderFault, int status) {
        static Answer reply(String body) {
            return new Answer(body, null, false, 200);
        }

        /** {@code sender}: the request was wrong (Client/Sender), else the service failed (Server/Receiver). */
        static Answer fault(boolean sender, String reason) {
            return new Answer(null, reason, sender, 500);
        }

        static Answer accepted() {
            return new Answer(null, null, false, 202);
        }

        static Answer busy(String reason) {
            return new Answer(null, reason, false, 503);
        }
    }

    final StubSpec spec;
    /** A reservation service's reservations and their counters; null for a stub with a reply template. */
    final ReservationBook book;
    /** An asynchronous service's pending callbacks, their settings and counters; else null. */
    final Callbacks callbacks;
    private volatile Settings settings;
    /** Every SOAP POST that reached this service, whatever happened to it. */
    final AtomicLong requests = new AtomicLong();
    final AtomicLong replied = new AtomicLong();
    final AtomicLong faults = new AtomicLong();
    final AtomicLong dropped = new AtomicLong();
    /** Refused with 503 because the service was down. */
    final AtomicLong refused = new AtomicLong();
    /** Answered with a client fault: malformed XML, unexpected element, missing echo field. */
    final AtomicLong rejected = new AtomicLong();
    final AtomicLong wsdlRequests = new AtomicLong();
    /** The W3C {@code traceparent} headers of the last {@link #TRACEPARENTS_KEPT} SOAP requests that carried one: a test compares them with the caller's spans. */
    private final java.util.concurrent.ConcurrentLinkedDeque<String> traceparents = new java.util.concurrent.ConcurrentLinkedDeque<>();
    private final java.util.concurrent.atomic.AtomicInteger traceparentCount = new java.util.concurrent.atomic.AtomicInteger();
    static final int TRACEPARENTS_KEPT = 1000;

    /** @param scheduler and {@code http}: what an asynchronous service's callbacks wait on and are sent with */
    StubService(StubSpec spec, ScheduledExecutorService scheduler, HttpClient http) {
        this.spec = spec;
        this.settings = spec.initial();
        this.book = spec.reservations() == null ? null
                : new ReservationBook(spec.name(), spec.namespace(), spec.reservations().maxOpen());
        this.callbacks = spec.async() == null ? null : new Callbacks(spec.name(), spec.namespace(), spec.async(), scheduler, http);
    }

    Settings settings() {
        return settings;
    }

    /**
     * Changes the fields present in {@code patch} (a JSON object): the latency and failure
     * settings, and an asynchronous service's callback settings. Nothing changes when a field is
     * wrong.
     *
     * @throws IllegalArgumentException naming the field and the reason
     */
    synchronized void update(JsonNode patch) {
        if (patch == null || !patch.isObject())
            throw new IllegalArgumentException("expected a JSON object with any of " + Settings.FIELDS
                    + (callbacks == null ? "" : " and " + CallbackSettings.FIELDS));
        ObjectNode own = ((ObjectNode) patch).deepCopy();
        if (callbacks != null) own.remove(CallbackSettings.FIELDS);
        Settings s = settings.with(own);
        CallbackSettings c = callbacks == null ? null : callbacks.settings().with(patch);
        settings = s;
        if (callbacks != null) callbacks.settings(c);
    }

    /** A SOAP request carried this {@code traceparent}. */
    void traced(String traceparent) {
        traceparents.addLast(traceparent);
        if (traceparentCount.incrementAndGet() > TRACEPARENTS_KEPT && traceparents.pollFirst() != null) traceparentCount.decrementAndGet();
    }

    void reset() {
        traceparents.clear();
        traceparentCount.set(0);
        settings = spec.initial();
        for (AtomicLong c : new AtomicLong[] {requests, replied, faults, dropped, refused, rejected, wsdlRequests}) c.set(0);
        if (book != null) book.reset();
        if (callbacks != null) callbacks.reset();
    }

    /**
     * Checks the request is one this service expects; returns how to answer it once its latency
     * has passed, given the request's number.
     */
    LongFunction<Answer> accept(Soap.Request request) throws Soap.BadRequest {
        if (book != null) return book.accept(request);
        if (callbacks != null) return callbacks.accept(request, this::settings);
        if (!request.namespace().equals(spec.namespace()) || !request.local().equals(spec.requestElement()))
            throw new Soap.BadRequest("service " + spec.name() + " expects request element " + spec.requestName()
                    + ", got " + request.name());
        if (spec.echo() == null) return count -> Answer.reply(reply(null, count));
        String value = child(request, spec.namespace(), spec.echo());
        if (value == null)
            throw new Soap.BadRequest("service " + spec.name() + ": request element " + spec.requestName() + " lacks child "
                    + spec.echo() + " (in namespace " + spec.namespace() + " or none); it has " + request.children().keySet());
        return count -> Answer.reply(reply(value, count));
    }

    /** The text of the request element's child {@code local}, in {@code namespace} or in none (rpc parts), or null. */
    static String child(Soap.Request request, String namespace, String local) {
        String value = request.children().get("{" + namespace + "}" + local);
        return value != null ? value : request.children().get("{}" + local);
    }

    String reply(String echo, long count) {
        String body = spec.replyTemplate().replace("${service}", spec.name()).replace("${count}", Long.toString(count));
        return echo == null ? body : body.replace("${echo}", Soap.escape(echo.strip()));
    }

    Map<String, Object> toJson() {
        Settings s = settings;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", spec.name());
        m.put("request", spec.requestName());
        m.put("reply", "{" + spec.replyNamespace() + "}" + spec.replyElement());
        m.put("up", s.up());
        m.put("distribution", s.distribution().name().toLowerCase());
        m.put("latencyMs", s.latencyMs());
        m.put("sigma", s.sigma());
        m.put("failureProbability", s.failureProbability());
        m.put("failureKind", s.failureKind().name().toLowerCase());
        m.put("requests", requests.get());
        m.put("replied", replied.get());
        m.put("faults", faults.get());
        m.put("dropped", dropped.get());
        m.put("refused", refused.get());
        m.put("rejected", rejected.get());
        m.put("wsdlRequests", wsdlRequests.get());
        if (!traceparents.isEmpty()) m.put("traceparents", java.util.List.copyOf(traceparents));
        if (book != null) book.addTo(m);
        if (callbacks != null) callbacks.addTo(m);
        return m;
    }
}
