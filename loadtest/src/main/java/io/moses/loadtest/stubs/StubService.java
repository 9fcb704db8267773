package io.moses.loadtest.stubs;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** One stub service while it runs: its spec, its current settings and its counters. */
final class StubService {
    final StubSpec spec;
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
    }

    /** Checks the request is the one this service expects; returns the echoed text (or null). */
    String accept(Soap.Request request) throws Soap.BadRequest {
        if (!request.namespace().equals(spec.namespace()) || !request.local().equals(spec.requestElement()))
            throw new Soap.BadRequest("service " + spec.name() + " expects request element " + spec.requestName()
                    + ", got " + request.name());
        if (spec.echo() == null) return null;
        String value = request.children().get("{" + spec.namespace() + "}" + spec.echo());
        if (value == null) value = request.children().get("{}" + spec.echo());
        if (value == null)
            throw new Soap.BadRequest("service " + spec.name() + ": request element " + spec.requestName() + " lacks child "
                    + spec.echo() + " (in namespace " + spec.namespace() + " or none); it has " + request.children().keySet());
        return value;
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
        return m;
    }
}
