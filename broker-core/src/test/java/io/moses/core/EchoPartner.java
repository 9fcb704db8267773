package io.moses.core;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A concrete service for tests: answers urn:moses:test:partner echo requests after a delay, in
 * the SOAP version of the request (1.2 if its content type is application/soap+xml).
 */
final class EchoPartner implements AutoCloseable {
    private static final Pattern TEXT = Pattern.compile("<(?:\\w+:)?text[^>]*>([^<]*)<");
    final HttpServer server;
    final AtomicInteger calls = new AtomicInteger();
    private final AtomicInteger inFlight = new AtomicInteger();
    /** The most calls this partner has had in flight at once (its delay keeps each one open). */
    final AtomicInteger peakInFlight = new AtomicInteger();
    volatile long delayMillis;
    volatile boolean fault;
    /** Per path, the content type, SOAPAction header and body of the last request. */
    final java.util.Map<String, String[]> lastRequest = new java.util.concurrent.ConcurrentHashMap<>();

    EchoPartner(long delayMillis) throws IOException {
        this.delayMillis = delayMillis;
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 200);
        server.setExecutor(Executors.newFixedThreadPool(32));
        server.createContext("/", exchange -> {
            calls.incrementAndGet();
            peakInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            Matcher m = TEXT.matcher(body);
            String text = m.find() ? m.group(1) : "?";
            try {
                Thread.sleep(delayMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            String path = exchange.getRequestURI().getPath();
            String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
            lastRequest.put(path, new String[] {contentType, exchange.getRequestHeaders().getFirst("SOAPAction"), body});
            boolean soap12 = contentType != null && contentType.startsWith("application/soap+xml");
            String env = soap12 ? "http://www.w3.org/2003/05/soap-envelope" : "http://schemas.xmlsoap.org/soap/envelope/";
            String faultBody = soap12
                    ? "<s:Fault><s:Code><s:Value>s:Receiver</s:Value></s:Code><s:Reason><s:Text xml:lang='en'>partner broken</s:Text></s:Reason></s:Fault>"
                    : "<s:Fault><faultcode>s:Server</faultcode><faultstring>partner broken</faultstring></s:Fault>";
            String reply = "<s:Envelope xmlns:s='" + env + "'><s:Body>" + (fault ? faultBody
                    : "<p:echoResponse xmlns:p='urn:moses:test:partner'><p:result>" + text + " via " + path + "</p:result></p:echoResponse>")
                    + "</s:Body></s:Envelope>";
            byte[] bytes = reply.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", soap12 ? "application/soap+xml; charset=utf-8" : "text/xml; charset=utf-8");
            exchange.sendResponseHeaders(fault ? 500 : 200, bytes.length);
            inFlight.decrementAndGet();
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        server.start();
    }

    String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
