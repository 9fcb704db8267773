package io.moses.core.tracing;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.adaptation.Invocation;
import io.moses.adaptation.InvokeTrace;
import io.moses.model.TaskRef;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class TracingTest {
    static Properties props(String... kv) {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2) p.setProperty(kv[i], kv[i + 1]);
        return p;
    }

    @Test
    void offUnlessAnEndpointOrAnExporterIsSet() {
        assertFalse(Tracing.wanted(Map.of(), props()));
        assertFalse(Tracing.wanted(Map.of("OTEL_SERVICE_NAME", "x", "OTEL_TRACES_SAMPLER", "always_on"), props()));
        assertTrue(Tracing.wanted(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"), props()));
        assertTrue(Tracing.wanted(Map.of("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://127.0.0.1:4318/v1/traces"), props()));
        assertTrue(Tracing.wanted(Map.of(), props("otel.exporter.otlp.endpoint", "http://127.0.0.1:4318")));
        assertTrue(Tracing.wanted(Map.of("OTEL_TRACES_EXPORTER", "otlp"), props()));
    }

    @Test
    void noneOrADisabledSdkWins() {
        assertFalse(Tracing.wanted(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://x:4318", "OTEL_TRACES_EXPORTER", "none"), props()));
        assertFalse(Tracing.wanted(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://x:4318", "OTEL_SDK_DISABLED", "true"), props()));
        // the system property before the environment, as the SDK reads them
        assertFalse(Tracing.wanted(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://x:4318"), props("otel.traces.exporter", "none")));
    }

    @Test
    void offBuildsNothingAndTracesNothing() {
        Tracing off = Tracing.configure(Map.of(), props(), "r1");
        assertSame(Tracing.OFF, off);
        assertFalse(off.on());
        assertNull(off.current());
        Invocation inv = new Invocation(new TaskRef("c", "p.op"), "gold", "", null, null);
        assertSame(InvokeTrace.NONE, off.invoke(null, inv));
        assertSame(InvokeTrace.NONE, inv.trace(), "an invocation is untraced unless given a trace");
    }
}
