package io.moses.core.tracing;

import static io.moses.core.tracing.SpanAttributes.*;

import io.moses.adaptation.CallEnd;
import io.moses.adaptation.Invocation;
import io.moses.adaptation.InvokeOutcome;
import io.moses.adaptation.InvokeTrace;
import io.moses.model.Implementation;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import java.net.URI;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/** One invoke's span, and a client span for each call it sends to a concrete service. */
final class InvokeSpans implements InvokeTrace {
    private final Tracing tracing;
    private final Span span;
    private final Context context;
    private final AtomicBoolean bound = new AtomicBoolean();
    private final AtomicBoolean ended = new AtomicBoolean();

    InvokeSpans(Tracing tracing, Context parent, Invocation inv) {
        this.tracing = tracing;
        var builder = tracing.tracer().spanBuilder("invoke " + inv.task().name())
                .setParent(parent)
                .setSpanKind(SpanKind.INTERNAL)
                .setAttribute(COMPOSITE, inv.task().composite())
                .setAttribute(TASK, inv.task().name());
        if (inv.serviceClass() != null) builder.setAttribute(CLASS, inv.serviceClass());
        this.span = builder.startSpan();
        this.context = parent.with(span);
    }

    @Override
    public void bound(Implementation implementation, Long planVersion) {
        if (bound.compareAndSet(false, true)) {
            // the binding's first choice; a retry's or a fallback's shows in its call's span
            span.setAttribute(IMPLEMENTATION, implementation.toString());
            span.setAttribute(PATTERN, implementation.pattern().name().toLowerCase(Locale.ROOT));
            if (planVersion != null) span.setAttribute(PLAN_VERSION, planVersion);
        }
    }

    @Override
    public Call call(String provider, URI endpoint, Why why, boolean hedge) {
        return new CallSpan(provider, endpoint, why, hedge);
    }

    @Override
    public void ended(InvokeOutcome outcome) {
        if (!ended.compareAndSet(false, true)) return;
        if (outcome instanceof InvokeOutcome.InvokeFault f) {
            span.setAttribute(OUTCOME, "fault");
            span.setStatus(StatusCode.ERROR, "SOAP fault: " + f.reason());
        } else if (outcome instanceof InvokeOutcome.InvokeFailure f) {
            span.setAttribute(OUTCOME, "failure");
            span.setStatus(StatusCode.ERROR, f.reason());
        } else {
            span.setAttribute(OUTCOME, "reply");
        }
        if (outcome.answeredBy() != null) span.setAttribute(ANSWERED_BY, outcome.answeredBy());
        span.end();
    }

    @Override
    public Scope logged() {
        return current(span);
    }

    /**
     * {@code span} current on this thread until closed: its ids in the log lines, and in the
     * exemplars of the latencies recorded meanwhile ({@link TraceExemplars}).
     */
    static Scope current(io.opentelemetry.api.trace.Span span) {
        io.opentelemetry.context.Scope context = span.makeCurrent();
        Scope ids = LogIds.of(span.getSpanContext());
        return () -> {
            ids.close();
            context.close();
        };
    }

    /** The invoke was never sent: the engine's transaction did not commit. */
    void abandoned(String why) {
        if (!ended.compareAndSet(false, true)) return;
        span.setAttribute(OUTCOME, "not sent");
        span.setStatus(StatusCode.ERROR, why);
        span.end();
    }

    private final class CallSpan implements Call {
        private final Span call;
        private final Map<String, String> headers;
        private volatile long finishedNanos;

        CallSpan(String provider, URI endpoint, Why why, boolean hedge) {
            var builder = tracing.tracer().spanBuilder("call " + provider)
                    .setParent(context)
                    .setSpanKind(SpanKind.CLIENT)
                    .setStartTimestamp(tracing.epochNanos(System.nanoTime()), TimeUnit.NANOSECONDS)
                    .setAttribute(PROVIDER, provider)
                    .setAttribute(HTTP_METHOD, "POST")
                    .setAttribute(RETRY, why == Why.RETRY)
                    .setAttribute(HEDGE, hedge)
                    .setAttribute(EXPLORATION, why == Why.EXPLORATION)
                    .setAttribute(TRIAL, why == Why.TRIAL);
            if (endpoint != null) {
                builder.setAttribute(URL_FULL, endpoint.toString());
                if (endpoint.getHost() != null) builder.setAttribute(SERVER_ADDRESS, endpoint.getHost());
                int port = endpoint.getPort() >= 0 ? endpoint.getPort() : "https".equalsIgnoreCase(endpoint.getScheme()) ? 443 : 80;
                builder.setAttribute(SERVER_PORT, (long) port);
            }
            this.call = builder.startSpan();
            this.headers = Map.copyOf(Tracing.headersOf(context.with(call)));
        }

        @Override
        public Map<String, String> headers() {
            return headers;
        }

        @Override
        public void finished() {
            finishedNanos = System.nanoTime();
        }

        @Override
        public void ended(CallEnd end, boolean discarded) {
            long at = finishedNanos;
            call.setAttribute(CALL_END, end.name().toLowerCase(Locale.ROOT));
            call.setAttribute(DISCARDED, discarded);
            if (end != CallEnd.REPLY && !discarded) {
                call.setAttribute(ERROR_TYPE, end.name().toLowerCase(Locale.ROOT));
                call.setStatus(StatusCode.ERROR, end.name().toLowerCase(Locale.ROOT));
            }
            call.end(tracing.epochNanos(at != 0 ? at : System.nanoTime()), TimeUnit.NANOSECONDS);
        }

        @Override
        public Scope logged() {
            return current(call);
        }
    }
}
