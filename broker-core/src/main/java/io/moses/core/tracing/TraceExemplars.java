package io.moses.core.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;

/**
 * The trace of the span current where a latency is recorded, for the Prometheus histograms'
 * exemplars: a slow bucket in a dashboard opens the trace of a request that fell in it. Only
 * sampled spans give one (an exemplar must name a trace the collector has), and they are shown
 * only in the OpenMetrics format (docs/monitoring.md).
 */
final class TraceExemplars implements io.prometheus.metrics.tracer.common.SpanContext {
    static final TraceExemplars INSTANCE = new TraceExemplars();

    private TraceExemplars() {}

    @Override
    public String getCurrentTraceId() {
        SpanContext c = Span.current().getSpanContext();
        return c.isValid() ? c.getTraceId() : null;
    }

    @Override
    public String getCurrentSpanId() {
        SpanContext c = Span.current().getSpanContext();
        return c.isValid() ? c.getSpanId() : null;
    }

    @Override
    public boolean isCurrentSpanSampled() {
        return Span.current().getSpanContext().isSampled();
    }

    @Override
    public void markCurrentSpanAsExemplar() {
        Span.current().setAttribute(EXEMPLAR_ATTRIBUTE_NAME, EXEMPLAR_ATTRIBUTE_VALUE);
    }
}
