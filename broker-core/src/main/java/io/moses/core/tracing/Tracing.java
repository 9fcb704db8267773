package io.moses.core.tracing;

import io.moses.adaptation.Invocation;
import io.moses.adaptation.InvokeTrace;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.resources.Resource;
import java.time.Instant;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's traces. {@link #fromEnvironment} turns them on when an OTLP endpoint or a traces
 * exporter is set ({@code OTEL_EXPORTER_OTLP_ENDPOINT}, {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT},
 * {@code OTEL_TRACES_EXPORTER}, or their system properties {@code otel.*}); everything else
 * ({@code OTEL_SERVICE_NAME}, {@code OTEL_TRACES_SAMPLER}, {@code OTEL_BSP_*}, ...) is the
 * OpenTelemetry SDK's autoconfiguration. Trace context travels as W3C {@code traceparent}.
 */
public final class Tracing implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Tracing.class);
    /** No SDK, no spans: every method returns at once. */
    public static final Tracing OFF = new Tracing(null);
    private static final TextMapPropagator W3C = W3CTraceContextPropagator.getInstance();

    private final OpenTelemetrySdk sdk;
    private final Tracer tracer;
    /** Wall-clock nanoseconds at {@link #anchorNanos}: a span's own start and end times from the monotonic clock. */
    private final long anchorEpochNanos;
    private final long anchorNanos;

    private Tracing(OpenTelemetrySdk sdk) {
        this.sdk = sdk;
        this.tracer = sdk == null ? null : sdk.getTracer("io.moses.broker");
        Instant now = Instant.now();
        this.anchorNanos = System.nanoTime();
        this.anchorEpochNanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /** Traces as this process's environment and system properties say; {@link #OFF} when they name no exporter. */
    public static Tracing fromEnvironment(String replica) {
        return configure(System.getenv(), System.getProperties(), replica);
    }

    static Tracing configure(Map<String, String> env, java.util.Properties props, String replica) {
        if (!wanted(env, props)) return OFF;
        Map<String, String> defaults = new HashMap<>();
        // HTTP/protobuf: the JDK's HTTP client sends it, no gRPC stack is needed
        defaults.put("otel.exporter.otlp.protocol", "http/protobuf");
        // the broker's metrics are Prometheus's (/metrics); its logs go to standard error
        defaults.put("otel.metrics.exporter", "none");
        defaults.put("otel.logs.exporter", "none");
        String resource = setting(env, props, "otel.resource.attributes");
        if (resource == null || !resource.contains("service.name=")) defaults.put("otel.service.name", "moses-broker");
        OpenTelemetrySdk sdk;
        try {
            sdk = AutoConfiguredOpenTelemetrySdk.builder()
                    .addPropertiesSupplier(() -> defaults)
                    // the replica's name beside the SDK's own service.instance.id, which it keeps
                    .addResourceCustomizer((r, config) -> replica == null ? r
                            : r.merge(Resource.create(Attributes.of(AttributeKey.stringKey("moses.replica"), replica))))
                    .disableShutdownHook() // the broker closes it last, after the requests in flight
                    .build()
                    .getOpenTelemetrySdk();
        } catch (io.opentelemetry.sdk.autoconfigure.spi.ConfigurationException e) {
            throw new IllegalArgumentException("the OTEL_* tracing settings: " + e.getMessage(), e);
        }
        String sampler = or(setting(env, props, "otel.traces.sampler"), "parentbased_always_on");
        String arg = setting(env, props, "otel.traces.sampler.arg");
        String endpoint = or(setting(env, props, "otel.exporter.otlp.traces.endpoint"),
                or(setting(env, props, "otel.exporter.otlp.endpoint"), "the default OTLP endpoint"));
        log.info("tracing on: {}{} spans to {} ({})", sampler, arg == null ? "" : " " + arg, endpoint,
                or(setting(env, props, "otel.exporter.otlp.traces.protocol"), or(setting(env, props, "otel.exporter.otlp.protocol"), "http/protobuf")));
        return new Tracing(sdk);
    }

    /** Whether the settings name a traces exporter: an OTLP endpoint, or {@code OTEL_TRACES_EXPORTER} other than none. */
    static boolean wanted(Map<String, String> env, java.util.Properties props) {
        if ("true".equalsIgnoreCase(setting(env, props, "otel.sdk.disabled"))) return false;
        String exporter = setting(env, props, "otel.traces.exporter");
        if (exporter != null) return !exporter.isBlank() && !exporter.strip().equalsIgnoreCase("none");
        return setting(env, props, "otel.exporter.otlp.endpoint") != null || setting(env, props, "otel.exporter.otlp.traces.endpoint") != null;
    }

    private static String or(String v, String otherwise) {
        return v != null ? v : otherwise;
    }

    /** A setting by its property name: the system property first, then its environment variable, as the SDK reads them. */
    private static String setting(Map<String, String> env, java.util.Properties props, String property) {
        String v = props.getProperty(property);
        if (v == null) v = env.get(property.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_'));
        return v == null || v.isBlank() ? null : v;
    }

    public boolean on() {
        return sdk != null;
    }

    /**
     * Where the latency histograms take their exemplars from when this process's settings turn
     * tracing on (the span current where a latency is recorded); null when they do not, so that
     * recording costs nothing more.
     */
    public static io.prometheus.metrics.tracer.common.SpanContext exemplars() {
        return wanted(System.getenv(), System.getProperties()) ? TraceExemplars.INSTANCE : null;
    }

    Tracer tracer() {
        return tracer;
    }

    /** Now on the wall clock, in nanoseconds, read from the monotonic clock. */
    long epochNanos(long monotonicNanos) {
        return anchorEpochNanos + (monotonicNanos - anchorNanos);
    }

    /** The servlet filter that makes each request it sees a server span ({@link RequestSpans}). */
    public jakarta.servlet.Filter requests() {
        return new RequestSpans(this);
    }

    /**
     * Names the server span of {@code servletRequest} (if it has one) after its composite service
     * and operation, with the caller's class and the request's outcome.
     */
    public static void describe(Object servletRequest, String composite, String service, String operation, String serviceClass,
                                String outcome) {
        RequestSpans.describe(servletRequest, composite, service, operation, serviceClass, outcome);
    }

    /** The request waited {@code nanos} for {@code what}, which ended as {@code verdict}: an event of its server span, if it has one. */
    public static void waited(Object servletRequest, String what, String verdict, long nanos) {
        RequestSpans.waited(servletRequest, what, verdict, nanos);
    }

    /** The context of the request this thread serves (its server span), to be handed to the engine's invokes; null when off. */
    public Object current() {
        return sdk == null ? null : Context.current();
    }

    /**
     * The ids of {@code context} ({@link #current()} of a request, null when untraced) in the log
     * lines this thread writes until closed: for a request's work on an engine thread.
     */
    public static InvokeTrace.Scope logged(Object context) {
        return context instanceof Context c ? LogIds.of(Span.fromContext(c).getSpanContext()) : InvokeTrace.Scope.NONE;
    }

    /**
     * The trace of one partner invoke, a child of {@code parent} ({@link #current()} of its
     * request; null: a span of its own trace, e.g. an invoke of an instance that outlived its request).
     */
    public InvokeTrace invoke(Object parent, Invocation invocation) {
        if (sdk == null) return InvokeTrace.NONE;
        return new InvokeSpans(this, parent instanceof Context c ? c : Context.root(), invocation);
    }

    /** The trace context of the current thread's span as W3C headers ({@code traceparent}, {@code tracestate}); none when there is none. */
    public static void inject(BiConsumer<String, String> header) {
        Context now = Context.current();
        if (!Span.fromContext(now).getSpanContext().isValid()) return;
        W3C.inject(now, header, (h, k, v) -> h.accept(k, v));
    }

    static Context extract(Context base, Map<String, String> headers) {
        return W3C.extract(base, headers, MAP_GETTER);
    }

    static Map<String, String> headersOf(Context context) {
        Map<String, String> out = new HashMap<>(2);
        W3C.inject(context, out, Map::put);
        return out;
    }

    private static final TextMapGetter<Map<String, String>> MAP_GETTER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    /** Exports the spans still buffered and stops the exporter. */
    @Override
    public void close() {
        if (sdk == null) return;
        sdk.getSdkTracerProvider().forceFlush().join(5, TimeUnit.SECONDS);
        sdk.close();
    }
}
