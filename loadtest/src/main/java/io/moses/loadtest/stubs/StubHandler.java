package io.moses.loadtest.stubs;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpClient;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves every stub at {@code /stubs/<name>} and the admin API at {@code /admin/...}. No thread
 * waits out a simulated latency: the request body is read asynchronously and the reply is
 * written from a scheduler when the latency has passed.
 */
final class StubHandler extends Handler.Abstract.NonBlocking {
    private static final Logger LOG = LoggerFactory.getLogger(StubHandler.class);
    static final int MAX_BODY = 1 << 20;
    /** Set on a request once its body has been read: an error answer to a request without it closes the connection. */
    private static final String BODY_READ = StubHandler.class.getName() + ".bodyRead";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<String, StubService> services;
    private final ScheduledExecutorService scheduler;

    /** @param http what asynchronous services send their callbacks with */
    StubHandler(List<StubSpec> specs, ScheduledExecutorService scheduler, HttpClient http) {
        Map<String, StubService> m = new LinkedHashMap<>();
        for (StubSpec s : specs) m.put(s.name(), new StubService(s, scheduler, http));
        this.services = m;
        this.scheduler = scheduler;
    }

    StubService service(String name) {
        return services.get(name);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        String path = request.getHttpURI().getPath();
        if (path == null) path = "/";
        if (path.startsWith("/stubs/")) {
            String name = path.substring("/stubs/".length());
            StubService service = services.get(name);
            if (service == null) {
                text(request, response, callback, HttpStatus.NOT_FOUND_404, "no stub service '" + name + "' (known: " + services.keySet() + ")");
            } else if ("GET".equals(request.getMethod()) && isWsdlQuery(request.getHttpURI().getQuery())) {
                wsdl(service, request, response, callback);
            } else if ("POST".equals(request.getMethod())) {
                soap(service, request, response, callback);
            } else {
                response.getHeaders().put(HttpHeader.ALLOW, "POST, GET (?wsdl)");
                text(request, response, callback, HttpStatus.METHOD_NOT_ALLOWED_405, "a stub takes SOAP POSTs and GET ?wsdl");
            }
        } else if (path.equals("/admin/services") || path.startsWith("/admin/services/") || path.equals("/admin/reset")) {
            admin(path, request, response, callback);
        } else {
            text(request, response, callback, HttpStatus.NOT_FOUND_404, "not found: " + path + " (stubs are at /stubs/<name>, admin at /admin/services)");
        }
        return true;
    }

    private static boolean isWsdlQuery(String query) {
        return query != null && (query.equalsIgnoreCase("wsdl") || query.toLowerCase().startsWith("wsdl=")
                || query.toLowerCase().startsWith("wsdl&"));
    }

    private void wsdl(StubService service, Request request, Response response, Callback callback) {
        service.wsdlRequests.incrementAndGet();
        if (!service.settings().up()) {
            refuse(service, request, response, callback, Soap.SOAP11); // a probe: not counted as a refused request
            return;
        }
        String address = request.getHttpURI().getScheme() + "://" + Request.getServerName(request) + ":"
                + Request.getServerPort(request) + "/stubs/" + service.spec.name();
        write(request, response, callback, HttpStatus.OK_200, "text/xml; charset=utf-8", Wsdls.of(service.spec, address));
    }

    private void soap(StubService service, Request request, Response response, Callback callback) {
        long count = service.requests.incrementAndGet();
        String traceparent = request.getHeaders().get("traceparent");
        if (traceparent != null) service.traced(traceparent);
        String soapNs = soapNsOf(request.getHeaders().get(HttpHeader.CONTENT_TYPE));
        if (!service.settings().up()) {
            service.refused.incrementAndGet();
            refuse(service, request, response, callback, soapNs);
            return;
        }
        if (request.getLength() > MAX_BODY) {
            service.rejected.incrementAndGet();
            response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
            write(request, response, callback, HttpStatus.PAYLOAD_TOO_LARGE_413, Soap.contentType(soapNs),
                    Soap.fault(soapNs, true, "request larger than " + MAX_BODY + " bytes"));
            return;
        }
        readBody(request, MAX_BODY).whenComplete((body, failure) -> {
            if (failure != null) {
                service.rejected.incrementAndGet();
                response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
                write(request, response, callback, HttpStatus.BAD_REQUEST_400, Soap.contentType(soapNs),
                        Soap.fault(soapNs, true, "cannot read the request: " + failure.getMessage()));
                return;
            }
            answer(service, count, body, soapNs, request, response, callback);
        });
    }

    private void answer(StubService service, long count, byte[] body, String soapNs, Request request, Response response, Callback callback) {
        LongFunction<StubService.Answer> pending;
        String ns = soapNs;
        try {
            Soap.Request parsed = Soap.parse(body);
            ns = parsed.soapNs();
            pending = service.accept(parsed);
        } catch (Soap.BadRequest e) {
            service.rejected.incrementAndGet();
            write(request, response, callback, HttpStatus.INTERNAL_SERVER_ERROR_500, Soap.contentType(ns), Soap.fault(ns, true, e.getMessage()));
            return;
        }
        Settings s = service.settings();
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long delayMicros = Math.round(s.sampleLatencyMs(random) * 1000);
        boolean fail = s.failureProbability() > 0 && random.nextDouble() < s.failureProbability();
        String soapNsOfReply = ns;
        Runnable complete = () -> {
            if (!fail) {
                StubService.Answer a = pending.apply(count);
                if (a.status() == HttpStatus.ACCEPTED_202) { // a one-way request taken: no body, as SOAP over HTTP answers one
                    service.replied.incrementAndGet();
                    write(request, response, callback, HttpStatus.ACCEPTED_202, null, "");
                } else if (a.fault() == null) {
                    service.replied.incrementAndGet();
                    write(request, response, callback, HttpStatus.OK_200, Soap.contentType(soapNsOfReply),
                            Soap.envelope(soapNsOfReply, a.body()));
                } else { // a reservation or asynchronous service's answer that is a fault, counted by its book or callbacks
                    write(request, response, callback, a.status(), Soap.contentType(soapNsOfReply),
                            Soap.fault(soapNsOfReply, a.senderFault(), a.fault()));
                }
            } else if (s.failureKind() == Settings.FailureKind.FAULT) {
                service.faults.incrementAndGet();
                write(request, response, callback, HttpStatus.INTERNAL_SERVER_ERROR_500, Soap.contentType(soapNsOfReply),
                        Soap.fault(soapNsOfReply, false, "simulated failure of " + service.spec.name()));
            } else {
                service.dropped.incrementAndGet();
                // No status line at all: the client sees the connection closed under it.
                request.getConnectionMetaData().getConnection().getEndPoint().close();
                callback.failed(new EofException("connection dropped by stub " + service.spec.name()));
            }
        };
        if (delayMicros <= 0) complete.run();
        else scheduler.schedule(complete, delayMicros, TimeUnit.MICROSECONDS);
    }

    private static void refuse(StubService service, Request request, Response response, Callback callback, String soapNs) {
        response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
        write(request, response, callback, HttpStatus.SERVICE_UNAVAILABLE_503, Soap.contentType(soapNs),
                Soap.fault(soapNs, false, "service " + service.spec.name() + " is down"));
    }

    private static String soapNsOf(String contentType) {
        return contentType != null && contentType.toLowerCase().startsWith("application/soap+xml") ? Soap.SOAP12 : Soap.SOAP11;
    }

    // ---- admin API ----

    private void admin(String path, Request request, Response response, Callback callback) {
        String method = request.getMethod();
        if (path.equals("/admin/reset")) {
            if (!"POST".equals(method)) {
                json(request, response, callback, HttpStatus.METHOD_NOT_ALLOWED_405, error("use POST /admin/reset"));
                return;
            }
            services.values().forEach(StubService::reset);
            LOG.info("stub settings and counters reset");
            json(request, response, callback, HttpStatus.OK_200, list());
            return;
        }
        if (path.equals("/admin/services")) {
            if ("GET".equals(method)) json(request, response, callback, HttpStatus.OK_200, list());
            else json(request, response, callback, HttpStatus.METHOD_NOT_ALLOWED_405, error("use GET /admin/services"));
            return;
        }
        String name = path.substring("/admin/services/".length());
        StubService service = services.get(name);
        if (service == null) {
            json(request, response, callback, HttpStatus.NOT_FOUND_404, error("no stub service '" + name + "' (known: " + services.keySet() + ")"));
            return;
        }
        switch (method) {
            case "GET" -> json(request, response, callback, HttpStatus.OK_200, service.toJson());
            case "PUT", "POST" -> readBody(request, 64 * 1024).whenComplete((body, failure) -> {
                if (failure != null) {
                    json(request, response, callback, HttpStatus.BAD_REQUEST_400, error("cannot read the body: " + failure.getMessage()));
                    return;
                }
                JsonNode patch;
                try {
                    patch = JSON.readTree(body);
                } catch (JacksonException e) {
                    json(request, response, callback, HttpStatus.BAD_REQUEST_400, error("body is not valid JSON: " + e.getOriginalMessage()));
                    return;
                } catch (java.io.IOException e) {
                    json(request, response, callback, HttpStatus.BAD_REQUEST_400, error("cannot read the body: " + e.getMessage()));
                    return;
                }
                try {
                    service.update(patch);
                    LOG.info("stub {} now {}{}", name, service.settings(), service.callbacks == null ? "" : ", " + service.callbacks.settings());
                    json(request, response, callback, HttpStatus.OK_200, service.toJson());
                } catch (IllegalArgumentException e) {
                    json(request, response, callback, HttpStatus.BAD_REQUEST_400, error(e.getMessage()));
                }
            });
            default -> json(request, response, callback, HttpStatus.METHOD_NOT_ALLOWED_405, error("use GET, PUT or POST"));
        }
    }

    private List<Map<String, Object>> list() {
        List<Map<String, Object>> out = new ArrayList<>(services.size());
        for (StubService s : services.values()) out.add(s.toJson());
        return out;
    }

    private static Map<String, Object> error(String message) {
        return Map.of("error", message);
    }

    private static boolean hasBody(Request request) {
        return request.getLength() > 0 || request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING);
    }

    private static void json(Request request, Response response, Callback callback, int status, Object value) {
        String text;
        try {
            text = JSON.writerWithDefaultPrettyPrinter().writeValueAsString(value) + "\n";
        } catch (JacksonException e) {
            throw new IllegalStateException(e);
        }
        write(request, response, callback, status, "application/json", text);
    }

    private static void text(Request request, Response response, Callback callback, int status, String message) {
        write(request, response, callback, status, "text/plain; charset=utf-8", message + "\n");
    }

    private static java.util.concurrent.CompletableFuture<byte[]> readBody(Request request, int max) {
        request.setAttribute(BODY_READ, Boolean.TRUE);
        return Content.Source.asByteArrayAsync(request, max);
    }

    private static void write(Request request, Response response, Callback callback, int status, String contentType, String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        // An error answered before the request's body was read (an unknown service, a wrong method):
        // Jetty closes such a connection after the reply to drop the unread bytes, so say so, or a
        // client reusing the connection gets no answer at all.
        if (status >= 400 && request.getAttribute(BODY_READ) == null && hasBody(request))
            response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
        response.setStatus(status);
        if (contentType != null) response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, bytes.length);
        response.write(true, ByteBuffer.wrap(bytes), callback);
    }
}
