package io.moses.loadtest.demo;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;

/**
 * An OTLP/HTTP trace receiver on a free loopback port: decodes every {@code POST /v1/traces} as
 * the real wire format ({@code ExportTraceServiceRequest}, protobuf) and keeps the spans, with
 * their times. The demo draws traces from it ({@code ./moses demo --trace}, {@link TraceView});
 * the broker's tracing tests check what the broker exported with it. Bounded: it keeps at most
 * {@link #MAX_SPANS} spans and takes bodies of at most 16 MB.
 */
public final class TraceCollector implements AutoCloseable {
    static final int MAX_SPANS = 200_000;
    private static final int MAX_BODY = 16 << 20;

    /**
     * One span: the service that sent it ({@code service.name}) and its other resource attributes
     * ({@code resource}: a broker's {@code moses.replica}, say), ids in hex as W3C trace context
     * writes them, times in epoch nanos, attributes as their Java values.
     */
    public record Span(String service, Map<String, Object> resource, String traceId, String spanId, String parentSpanId, String name, String kind, long start, long end,
                       Map<String, Object> attributes, boolean error) {
        public String string(String key) {
            return attributes.get(key) instanceof String s ? s : null;
        }

        public boolean flag(String key) {
            return Boolean.TRUE.equals(attributes.get(key));
        }

        public double millis() {
            return (end - start) / 1e6;
        }
    }

    private final HttpServer server;
    private final List<Span> spans = new ArrayList<>();
    private int refused;

    public TraceCollector() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.createContext("/", exchange -> {
            try (exchange) {
                if (!exchange.getRequestMethod().equals("POST") || !exchange.getRequestURI().getPath().equals("/v1/traces")
                        || !String.valueOf(exchange.getRequestHeaders().getFirst("Content-Type")).startsWith("application/x-protobuf")) {
                    synchronized (this) {
                        refused++;
                    }
                    exchange.sendResponseHeaders(404, -1);
                    return;
                }
                InputStream in = exchange.getRequestBody();
                if ("gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))) in = new GZIPInputStream(in);
                byte[] body = in.readNBytes(MAX_BODY + 1);
                if (body.length > MAX_BODY) {
                    exchange.sendResponseHeaders(413, -1);
                    return;
                }
                List<Span> got = new ArrayList<>();
                for (ResourceSpans rs : ExportTraceServiceRequest.parseFrom(body).getResourceSpansList()) {
                    Map<String, Object> resource = attributes(rs.getResource().getAttributesList());
                    String service = String.valueOf(resource.get("service.name"));
                    for (ScopeSpans ss : rs.getScopeSpansList())
                        for (io.opentelemetry.proto.trace.v1.Span s : ss.getSpansList())
                            got.add(new Span(service, resource, hex(s.getTraceId()), hex(s.getSpanId()), hex(s.getParentSpanId()), s.getName(),
                                    s.getKind().name().replace("SPAN_KIND_", ""), s.getStartTimeUnixNano(), s.getEndTimeUnixNano(),
                                    attributes(s.getAttributesList()),
                                    s.getStatus().getCode() == io.opentelemetry.proto.trace.v1.Status.StatusCode.STATUS_CODE_ERROR));
                }
                synchronized (this) {
                    if (spans.size() + got.size() <= MAX_SPANS) spans.addAll(got);
                    notifyAll();
                }
                byte[] reply = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
                exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
                exchange.sendResponseHeaders(200, reply.length == 0 ? -1 : reply.length);
                if (reply.length > 0) exchange.getResponseBody().write(reply);
            }
        });
        server.start();
    }

    private static String hex(com.google.protobuf.ByteString bytes) {
        return HexFormat.of().formatHex(bytes.toByteArray());
    }

    private static Map<String, Object> attributes(List<KeyValue> list) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (KeyValue kv : list) {
            AnyValue v = kv.getValue();
            out.put(kv.getKey(), switch (v.getValueCase()) {
                case STRING_VALUE -> v.getStringValue();
                case BOOL_VALUE -> v.getBoolValue();
                case INT_VALUE -> v.getIntValue();
                case DOUBLE_VALUE -> v.getDoubleValue();
                default -> v.toString();
            });
        }
        return out;
    }

    /** Where a broker sends its spans: its {@code OTEL_EXPORTER_OTLP_ENDPOINT}. */
    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public synchronized List<Span> spans() {
        return List.copyOf(spans);
    }

    /** Export requests that were not OTLP/HTTP protobuf traces. */
    public synchronized int refused() {
        return refused;
    }

    /** Waits until at least {@code servers} server spans came, at most {@code seconds}; every span then. */
    public List<Span> await(int servers, int seconds) throws InterruptedException {
        return await(s -> s.stream().filter(x -> x.kind().equals("SERVER")).count() >= servers, seconds);
    }

    /** Waits until the spans received so far satisfy {@code done}, at most {@code seconds}; the spans then. */
    public synchronized List<Span> await(java.util.function.Predicate<List<Span>> done, int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!done.test(spans)) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) break;
            wait(left); // woken by each export
        }
        return List.copyOf(spans);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
