package io.moses.core.tracing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.adaptation.InvokeTrace;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The text format of the broker's own logback.xml (this module's, first on the test class path),
 * as the broker writes it to standard error: a line carries {@code trace_id=} only while a span's
 * ids are in the MDC, and is otherwise what it always was.
 */
class LogIdsTest {
    private static final Logger log = LoggerFactory.getLogger(LogIdsTest.class);
    static final SpanContext REQUEST = SpanContext.create("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331",
            TraceFlags.getSampled(), TraceState.getDefault());
    static final SpanContext CALL = SpanContext.create("0af7651916cd43dd8448eb211c80319c", "00f067aa0ba902b7",
            TraceFlags.getSampled(), TraceState.getDefault());

    /** What the logger writes to standard error while {@code r} runs, by line. */
    static List<String> standardErrorOf(Runnable r) {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        PrintStream before = System.err;
        System.setErr(new PrintStream(buffer, true, StandardCharsets.UTF_8));
        try {
            r.run();
        } finally {
            System.setErr(before);
        }
        return buffer.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void aLineCarriesTheTraceIdOnlyWhileASpansIdsAreInTheMdc() {
        List<String> lines = standardErrorOf(() -> {
            log.info("before the request");
            try (InvokeTrace.Scope request = LogIds.of(REQUEST)) {
                log.warn("the request's {}", "line");
                try (InvokeTrace.Scope call = LogIds.of(CALL)) {
                    assertEquals(CALL.getSpanId(), MDC.get("span_id"));
                    log.info("a call's line");
                }
                assertEquals(REQUEST.getSpanId(), MDC.get("span_id"), "the request's ids back after the call's");
                log.info("the request's again");
            }
            log.info("after the request");
        });
        String time = "\\d{2}:\\d{2}:\\d{2}\\.\\d{3} ";
        List<String> expected = List.of(
                "INFO LogIdsTest - before the request",
                "WARN LogIdsTest - the request's line trace_id=0af7651916cd43dd8448eb211c80319c",
                "INFO LogIdsTest - a call's line trace_id=0af7651916cd43dd8448eb211c80319c",
                "INFO LogIdsTest - the request's again trace_id=0af7651916cd43dd8448eb211c80319c",
                "INFO LogIdsTest - after the request");
        assertEquals(expected.size(), lines.size(), "one line per event: " + lines);
        for (int i = 0; i < lines.size(); i++)
            assertTrue(lines.get(i).matches(time + java.util.regex.Pattern.quote(expected.get(i))),
                    "HH:mm:ss.SSS LEVEL Logger - message [trace_id=ID], as slf4j-simple wrote it: " + lines.get(i));
        assertEquals(null, MDC.get("trace_id"), "nothing left in the MDC");
        assertEquals(null, MDC.get("span_id"));
    }

    @Test
    void noSpanPutsNothingInTheMdc() {
        assertSame(InvokeTrace.Scope.NONE, LogIds.of(SpanContext.getInvalid()));
        assertSame(InvokeTrace.Scope.NONE, LogIds.of(null));
        assertSame(InvokeTrace.Scope.NONE, Tracing.logged(null), "an untraced request's context");
        assertSame(InvokeTrace.Scope.NONE, InvokeTrace.NONE.logged());
    }
}
