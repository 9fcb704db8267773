package io.moses.core.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.status.Status;
import ch.qos.logback.core.status.StatusUtil;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The broker's logback.xml: the text format as slf4j-simple wrote it, and {@code --log-format json}, one JSON object per line. */
class LogFormatsTest {
    static final ObjectMapper JSON = new ObjectMapper();

    /** The broker's logback.xml configured in a context of its own, with {@code format}. */
    static LoggerContext configured(String format) throws Exception {
        LoggerContext context = new LoggerContext();
        context.putProperty("moses.log.format", format);
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        configurator.doConfigure(LogFormatsTest.class.getResource("/logback.xml"));
        assertTrue(new StatusUtil(context).getHighestLevel(0) < Status.ERROR, "no errors: " + context.getStatusManager().getCopyOfStatusList());
        return context;
    }

    static byte[] encode(LoggerContext context, String appender, LoggingEvent event) {
        var root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        ConsoleAppender<?> console = assertInstanceOf(ConsoleAppender.class, root.getAppender(appender), appender + " is the root's appender");
        assertEquals("System.err", console.getTarget(), "on standard error, as slf4j-simple wrote");
        @SuppressWarnings("unchecked")
        LayoutWrappingEncoder<ch.qos.logback.classic.spi.ILoggingEvent> encoder = (LayoutWrappingEncoder<ch.qos.logback.classic.spi.ILoggingEvent>) console.getEncoder();
        return encoder.encode(event);
    }

    static LoggingEvent event(LoggerContext context, Level level, String message, Throwable t, Map<String, String> mdc, Object... args) {
        LoggingEvent e = new LoggingEvent(LogFormatsTest.class.getName(), context.getLogger("io.moses.adaptation.ProviderHealth"), level, message, t, args);
        e.setTimeStamp(1_796_000_000_000L); // 2026-11-29T...Z, a whole second: its .000 is written
        e.setMDCPropertyMap(mdc);
        return e;
    }

    @Test
    void oneObjectPerLineWithTheTraceIdsWhenThereAreAndTheException() throws Exception {
        LoggerContext context = configured("json");
        assertEquals(null, context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getAppender("text"), "json only");
        String traced = new String(encode(context, "json", event(context, Level.INFO, "concrete service {} ejected from selection: {}", null,
                Map.of("trace_id", "0af7651916cd43dd8448eb211c80319c", "span_id", "b7ad6b7169203331", "other", "not written"),
                "car-a", "a \"quoted\"\nreason\t\u0001")), StandardCharsets.UTF_8);
        assertTrue(traced.endsWith("}\n") && traced.indexOf('\n') == traced.length() - 1, "one line: " + traced);
        JsonNode line = JSON.readTree(traced);
        assertEquals(List.of("time", "level", "logger", "message", "trace_id", "span_id"), fields(line));
        assertEquals(java.time.Instant.ofEpochMilli(1_796_000_000_000L).toString().replace("Z", ".000Z"), line.get("time").asText());
        assertEquals("INFO", line.get("level").asText());
        assertEquals("io.moses.adaptation.ProviderHealth", line.get("logger").asText());
        assertEquals("concrete service car-a ejected from selection: a \"quoted\"\nreason\t\u0001", line.get("message").asText());
        assertEquals("0af7651916cd43dd8448eb211c80319c", line.get("trace_id").asText());
        assertEquals("b7ad6b7169203331", line.get("span_id").asText());

        String failed = new String(encode(context, "json", event(context, Level.WARN, "request listener failed", new IllegalStateException("boom"),
                Map.of())), StandardCharsets.UTF_8);
        assertEquals(1, failed.lines().count(), "the stack trace inside the line: " + failed);
        JsonNode f = JSON.readTree(failed);
        assertEquals(List.of("time", "level", "logger", "message", "exception"), fields(f), "no ids outside a traced request");
        assertTrue(f.get("exception").asText().startsWith("java.lang.IllegalStateException: boom"), f.toString());
        assertTrue(f.get("exception").asText().contains("at io.moses.core.logging.LogFormatsTest"), f.toString());
    }

    @Test
    void theTextFormatIsTheDefaultAndAppendsTheTraceIdOnlyWhenThereIsOne() throws Exception {
        LoggerContext context = new LoggerContext();
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        configurator.doConfigure(LogFormatsTest.class.getResource("/logback.xml"));
        assertEquals(null, context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getAppender("json"), "text unless json is asked for");
        String time = java.time.format.DateTimeFormatter.ofPattern("HH:mm:ss.SSS").format(
                java.time.Instant.ofEpochMilli(1_796_000_000_000L).atZone(java.time.ZoneId.systemDefault()));
        assertEquals(time + " INFO ProviderHealth - concrete service car-a ejected from selection\n",
                new String(encode(context, "text", event(context, Level.INFO, "concrete service {} ejected from selection", null, Map.of(), "car-a")),
                        StandardCharsets.UTF_8));
        assertEquals(time + " WARN ProviderHealth - concrete service car-a ejected from selection trace_id=0af7651916cd43dd8448eb211c80319c\n",
                new String(encode(context, "text", event(context, Level.WARN, "concrete service {} ejected from selection", null,
                        Map.of("trace_id", "0af7651916cd43dd8448eb211c80319c", "span_id", "b7ad6b7169203331"), "car-a")), StandardCharsets.UTF_8));
        assertFalse(context.getLogger("org.apache.cxf").isWarnEnabled(), "the per-logger levels of the former simplelogger.properties");
        assertFalse(context.getLogger("org.apache.ode.bpel.runtime.INVOKE").isErrorEnabled());
        assertTrue(context.getLogger("org.apache.ode").isWarnEnabled() && !context.getLogger("org.apache.ode").isInfoEnabled());
        assertTrue(context.getLogger("io.moses.core.Broker").isInfoEnabled());
    }

    @Test
    void mosesLogLevelSetsTheBrokersOwnLevel() throws Exception {
        LoggerContext context = new LoggerContext();
        context.putProperty("moses.log.level", "warn");
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        configurator.doConfigure(LogFormatsTest.class.getResource("/logback.xml"));
        assertFalse(context.getLogger("io.moses.core.Broker").isInfoEnabled());
        assertTrue(context.getLogger("io.moses.core.Broker").isWarnEnabled());
    }

    static List<String> fields(JsonNode n) {
        List<String> out = new java.util.ArrayList<>();
        n.fieldNames().forEachRemaining(out::add);
        return out;
    }
}
