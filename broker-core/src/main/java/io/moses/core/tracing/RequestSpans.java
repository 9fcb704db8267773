package io.moses.core.tracing;

import static io.moses.core.tracing.SpanAttributes.*;

import io.moses.adaptation.InvokeTrace;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * A server span for each request to the composite services, the child of the caller's
 * {@code traceparent} when it sent one; current on the request's thread while it is served, so
 * that the engine's invokes and a forwarded conversation message are its children. It covers
 * the wait for an engine place (the overload bound's queue) too: it is the outermost filter.
 * Its ids are in the MDC meanwhile ({@link LogIds}): the request's log lines carry them.
 */
final class RequestSpans implements Filter {
    /** The request's attribute that holds its span, for {@link #describe}. */
    static final String SPAN = RequestSpans.class.getName();
    private final Tracing tracing;

    RequestSpans(Tracing tracing) {
        this.tracing = tracing;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain) throws IOException, ServletException {
        if (!(request instanceof HttpServletRequest http) || !(response instanceof HttpServletResponse reply)) {
            chain.doFilter(request, response);
            return;
        }
        Context parent = Context.root();
        String traceparent = http.getHeader("traceparent");
        if (traceparent != null) {
            Map<String, String> carrier = new HashMap<>(2);
            carrier.put("traceparent", traceparent);
            String state = http.getHeader("tracestate");
            if (state != null) carrier.put("tracestate", state);
            parent = Tracing.extract(parent, carrier); // a malformed one is ignored: the request starts a trace
        }
        // the method alone until the endpoint names it: a path is any client's choice, a span's name must not be
        Span span = tracing.tracer().spanBuilder(http.getMethod())
                .setParent(parent)
                .setSpanKind(SpanKind.SERVER)
                .setAttribute(HTTP_METHOD, http.getMethod())
                .setAttribute(URL_PATH, http.getRequestURI())
                .setAttribute(URL_SCHEME, http.getScheme())
                .setAttribute(SERVER_ADDRESS, http.getServerName())
                .setAttribute(SERVER_PORT, (long) http.getServerPort())
                .setAttribute(CLIENT_ADDRESS, http.getRemoteAddr())
                .startSpan();
        http.setAttribute(SPAN, span);
        // the log lines written while it is served carry its ids (the engine's threads: Tracing.logged)
        try (Scope ignored = span.makeCurrent(); InvokeTrace.Scope ids = LogIds.of(span.getSpanContext())) {
            chain.doFilter(request, response);
        } catch (IOException | ServletException | RuntimeException e) {
            span.setStatus(StatusCode.ERROR, e.toString());
            throw e;
        } finally {
            int status = reply.getStatus();
            span.setAttribute(HTTP_STATUS, (long) status);
            if (status >= 500) span.setStatus(StatusCode.ERROR);
            span.end();
        }
    }

    static void waited(Object servletRequest, String what, String verdict, long nanos) {
        if (!(servletRequest instanceof HttpServletRequest http) || !(http.getAttribute(SPAN) instanceof Span span)) return;
        span.addEvent(what, io.opentelemetry.api.common.Attributes.of(WAIT_VERDICT, verdict, WAIT_MS, nanos / 1e6));
    }

    /** Names the request's span after its composite service and operation, with the caller's class and the outcome. */
    static void describe(Object servletRequest, String composite, String service, String operation, String serviceClass, String outcome) {
        if (!(servletRequest instanceof HttpServletRequest http) || !(http.getAttribute(SPAN) instanceof Span span)) return;
        if (operation != null) span.updateName(composite + "/" + operation);
        span.setAttribute(COMPOSITE, composite);
        span.setAttribute(SERVICE, service);
        if (operation != null) span.setAttribute(OPERATION, operation);
        if (serviceClass != null) span.setAttribute(CLASS, serviceClass);
        span.setAttribute(OUTCOME, outcome);
    }
}
