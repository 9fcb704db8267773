package io.moses.core.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.LayoutBase;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;

/**
 * {@code --log-format json}: one JSON object per line, for log shippers:
 * {@code {"time":"2026-12-04T19:20:49.123Z","level":"INFO","logger":"io.moses.core.Broker","message":"...",
 * "trace_id":"...","span_id":"...","exception":"..."}}, the ids only when a traced request's span was
 * current, the exception (its stack trace as text) only when there is one. Flat and of fixed
 * fields, unlike logback's own JsonEncoder (numbers for times, the MDC and the logger context
 * nested): nothing else of the MDC or the context gets into a line.
 */
public final class JsonLines extends LayoutBase<ILoggingEvent> {
    private static final JsonStringEncoder JSON = JsonStringEncoder.getInstance();
    /** UTC to the millisecond, always with its three digits (Instant.toString drops ".000"). */
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    @Override
    public String doLayout(ILoggingEvent event) {
        StringBuilder b = new StringBuilder(256);
        b.append("{\"time\":\"").append(TIME.format(Instant.ofEpochMilli(event.getTimeStamp()))).append('"');
        field(b, "level", event.getLevel().toString());
        field(b, "logger", event.getLoggerName());
        field(b, "message", event.getFormattedMessage());
        Map<String, String> mdc = event.getMDCPropertyMap();
        if (mdc != null) {
            field(b, TraceIdSuffix.TRACE_ID, mdc.get(TraceIdSuffix.TRACE_ID));
            field(b, TraceIdSuffix.SPAN_ID, mdc.get(TraceIdSuffix.SPAN_ID));
        }
        IThrowableProxy t = event.getThrowableProxy();
        if (t != null) field(b, "exception", ThrowableProxyUtil.asString(t));
        return b.append("}\n").toString();
    }

    private static void field(StringBuilder b, String name, String value) {
        if (value == null) return;
        b.append(",\"").append(name).append("\":\"");
        JSON.quoteAsString(value, b);
        b.append('"');
    }
}
