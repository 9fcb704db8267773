package io.moses.core;

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
import java.util.function.Predicate;
import java.util.zip.GZIPInputStream;

/**
 * An OTLP/HTTP trace receiver on a free port: decodes every {@code POST /v1/traces} as the real
 * wire format ({@code ExportTraceServiceRequest}, protobuf) and keeps the spans.
 */
final class OtlpReceiver implements AutoCloseable {
    /** One received span, its ids in hex as W3C trace context writes them. */
    record Received(String service, String traceId, String spanId, String parentSpanId, String name, String kind,
                    Map<String, Object> attributes, boolean error) {
        String string(String key) {
            return attributes.get(key) instanceof String s ? s : null;
        }

        boolean flag(String key) {
            return Boolean.TRUE.equals(attributes.get(key));
        }
    }

    private final HttpServer server;
    private final List<Received> spans = new ArrayList<>();
    private int requests, refused;

    OtlpReceiver() throws IOException {
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
                ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(in.readAllBytes());
                List<Received> got = new ArrayList<>();
                for (ResourceSpans rs : request.getResourceSpansList()) {
                    String service = String.valueOf(attributes(rs.getResource().getAttributesList()).get("service.name"));
                    for (ScopeSpans ss : rs.getScopeSpansList())
                        for (io.opentelemetry.proto.trace.v1.Span s : ss.getSpansList())
                            got.add(new Received(service, hex(s.getTraceId()), hex(s.getSpanId()), hex(s.getParentSpanId()), s.getName(),
                                    s.getKind().name().replace("SPAN_KIND_", ""), attributes(s.getAttributesList()),
                                    s.getStatus().getCode() == io.opentelemetry.proto.trace.v1.Status.StatusCode.STATUS_CODE_ERROR));
                }
                synchronized (this) {
                    requests++;
                    spans.addAll(got);
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

    /** Where the broker sends its spans: its {@code OTEL_EXPORTER_OTLP_ENDPOINT}. */
    String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    synchronized List<Received> spans() {
        return List.copyOf(spans);
    }

    /** Export requests that were not OTLP/HTTP protobuf traces. */
    synchronized int refused() {
        return refused;
    }

    /** Waits until the spans received so far satisfy {@code done}, at most {@code seconds}; the spans then. */
    synchronized List<Received> await(Predicate<List<Received>> done, int seconds) throws InterruptedException {
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
