package io.moses.core.tracing;

import io.moses.adaptation.InvokeTrace;
import io.moses.core.logging.TraceIdSuffix;
import io.opentelemetry.api.trace.SpanContext;
import org.slf4j.MDC;

/**
 * A span's trace and span ids in the MDC ({@code trace_id}, {@code span_id}, OpenTelemetry's
 * names), so that the log lines this thread writes meanwhile carry them; closing puts back the
 * ids that were there (a request's, around a call's), or none. Only where tracing is on: an
 * untraced broker never touches the MDC.
 */
final class LogIds implements InvokeTrace.Scope {
    private final String traceBefore;
    private final String spanBefore;

    private LogIds(String traceBefore, String spanBefore) {
        this.traceBefore = traceBefore;
        this.spanBefore = spanBefore;
    }

    /** {@code span}'s ids in the MDC until closed; {@link InvokeTrace.Scope#NONE} for no valid span. */
    static InvokeTrace.Scope of(SpanContext span) {
        if (span == null || !span.isValid()) return InvokeTrace.Scope.NONE;
        LogIds before = new LogIds(MDC.get(TraceIdSuffix.TRACE_ID), MDC.get(TraceIdSuffix.SPAN_ID));
        MDC.put(TraceIdSuffix.TRACE_ID, span.getTraceId());
        MDC.put(TraceIdSuffix.SPAN_ID, span.getSpanId());
        return before;
    }

    @Override
    public void close() {
        restore(TraceIdSuffix.TRACE_ID, traceBefore);
        restore(TraceIdSuffix.SPAN_ID, spanBefore);
    }

    private static void restore(String key, String value) {
        if (value == null) MDC.remove(key);
        else MDC.put(key, value);
    }
}
