package io.moses.loadtest.bench;

import com.sun.net.httpserver.HttpServer;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A local OTLP/HTTP endpoint for the tracing benchmark (loadtest/bench-tracing.sh): accepts
 * every {@code POST /v1/traces}, reads it whole, answers 200 with an empty
 * {@code ExportTraceServiceResponse} and counts requests and bytes. It decodes nothing: what is
 * measured is the broker's cost of making and sending spans, not a collector's.
 *
 * <p>{@code OtlpSink [--port 0]}; prints {@code otlp sink listening on http://127.0.0.1:PORT},
 * and at exit the exports and bytes it took.
 */
public final class OtlpSink {
    private OtlpSink() {}

    public static void main(String[] args) throws Exception {
        int port = 0;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--port") && i + 1 < args.length) port = Integer.parseInt(args[++i]);
            else {
                System.err.println("usage: OtlpSink [--port N]");
                System.exit(2);
            }
        }
        AtomicLong exports = new AtomicLong(), bytes = new AtomicLong(), refused = new AtomicLong();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
        server.setExecutor(Executors.newFixedThreadPool(2));
        server.createContext("/", exchange -> {
            try (exchange; InputStream in = exchange.getRequestBody()) {
                long n = in.transferTo(java.io.OutputStream.nullOutputStream());
                if (!exchange.getRequestMethod().equals("POST") || !exchange.getRequestURI().getPath().equals("/v1/traces")) {
                    refused.incrementAndGet();
                    exchange.sendResponseHeaders(404, -1);
                    return;
                }
                exports.incrementAndGet();
                bytes.addAndGet(n);
                exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
                exchange.sendResponseHeaders(200, -1); // an empty message is an ExportTraceServiceResponse with nothing to say
            }
        });
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.stop(0);
            System.out.printf("otlp sink: %d exports, %d bytes, %d refused%n", exports.get(), bytes.get(), refused.get());
        }));
        server.start();
        System.out.println("otlp sink listening on http://127.0.0.1:" + server.getAddress().getPort());
    }
}
