package io.moses.loadtest.stubs;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;

/** One stub service while it runs: its spec, its current settings and its counters. */
final class StubService {
    /** What a stub answers a request it accepted: a reply's SOAP Body content, or a fault's reason. */
    record Answer(String body, String fault, boolean senderFault) {
        static Answer reply(String body) {
            return new Answer(body, null, false);
        }

        /** {@code sender}: the request was wrong (Client/Sender), else the service failed (Server/Receiver). */
        static Answer fault(boolean sender, String reason) {
            return new Answer(null, reason, sender);
        }
    }

    final StubSpec spec;
    /** A reservation service's reservations and their counters; null for a stub with a reply template. */
    final ReservationBook book;
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

    StubService(StubSpec spec) {
        this.spec = spec;
        this.settings = spec.initial();
        this.book = spec.reservations() == null ? null
                : new ReservationBook(spec.name(), spec.namespace(), spec.reservations().maxOpen());
    }

    Settings settings() {
        return settings;
    }

    void settings(Settings s) {
        settings = s;
    }

    void reset() {
        settings = spec.initial();
        for (AtomicLong c : new AtomicLong[] {requests, replied, faults, dropped, refused, rejected, wsdlRequests}) c.set(0);
        if (book != null) book.reset();
    }

    /**
     * Checks the request is one this service expects; returns how to answer it once its latency
     * has passed, given the request's number.
     */
    LongFunction<Answer> accept(Soap.Request request) throws Soap.BadRequest {
        if (book != null) return book.accept(request);
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
        if (book != null) book.addTo(m);
        return m;
    }
}
