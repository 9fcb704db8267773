package io.moses.core.logging;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import java.util.Map;

/**
 * {@code %traceId} in the text format: {@code " trace_id=<id>"} when the line was written while a
 * traced request's span was current, else nothing, so that an untraced broker's lines are what
 * they always were.
 */
public final class TraceIdSuffix extends ClassicConverter {
    /** The MDC key, OpenTelemetry's name for it. */
    public static final String TRACE_ID = "trace_id";
    /** The MDC key of the span that was current. */
    public static final String SPAN_ID = "span_id";

    @Override
    public String convert(ILoggingEvent event) {
        Map<String, String> mdc = event.getMDCPropertyMap();
        String id = mdc == null ? null : mdc.get(TRACE_ID);
        return id == null ? "" : " trace_id=" + id;
    }
}
