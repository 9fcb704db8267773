package io.moses.loadtest.driver;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A SOAP-ish server on 127.0.0.1 for the driver's tests. A request body may carry
 * {@code <mode>ok|fault|500|slow</mode>} and {@code <svc>name</svc>}: the reply is then an
 * envelope saying "served by name", a SOAP 1.1 fault (HTTP 500), a plain HTTP 503, or the ok
 * reply after {@code slowMs}. Every reply waits {@code delayMs} first.
 */
final class SoapTestServer implements AutoCloseable {
    static final String OK_TEMPLATE = "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body>"
            + "<r>served by %s</r></soap:Body></soap:Envelope>";
    static final String FAULT = "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body>"
            + "<soap:Fault><faultcode>soap:Server</faultcode><faultstring>Server busy &amp; tired</faultstring></soap:Fault>"
            + "</soap:Body></soap:Envelope>";
    private static final Pattern MODE = Pattern.compile("<mode>(\\w+)</mode>");
    private static final Pattern SVC = Pattern.compile("<svc>([\\w-]+)</svc>");

    static {
        // Headers and body go out in separate writes: with Nagle and delayed ACKs every
        // keep-alive reply would wait ~40 ms. Read once, when the server classes load.
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    private final HttpServer server;
    private final ExecutorService pool = Executors.newCachedThreadPool();
    final AtomicLong received = new AtomicLong();
    final Map<String, AtomicLong> byAuthorization = new ConcurrentHashMap<>();
    final List<String> contentTypes = new CopyOnWriteArrayList<>();
    final List<String> soapActions = new CopyOnWriteArrayList<>();
    volatile long delayMs;
    volatile long slowMs = 1000;

    SoapTestServer(long delayMs) throws IOException {
        this.delayMs = delayMs;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 200);
        server.createContext("/soap", this::handle);
        server.setExecutor(pool);
        server.start();
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/soap");
    }

    static String body(String mode, String svc) {
        return "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body><req><mode>" + mode
                + "</mode><svc>" + svc + "</svc></req></soap:Body></soap:Envelope>";
    }

    private void handle(HttpExchange x) throws IOException {
        try (x) {
            String request = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            received.incrementAndGet();
            String auth = x.getRequestHeaders().getFirst("Authorization");
            byAuthorization.computeIfAbsent(auth == null ? "" : auth, a -> new AtomicLong()).incrementAndGet();
            if (contentTypes.size() < 50) {
                contentTypes.add(String.valueOf(x.getRequestHeaders().getFirst("Content-Type")));
                soapActions.add(String.valueOf(x.getRequestHeaders().getFirst("SOAPAction")));
            }
            Matcher m = MODE.matcher(request);
            String mode = m.find() ? m.group(1) : "ok";
            Matcher s = SVC.matcher(request);
            String svc = s.find() ? s.group(1) : "echo-a";
            sleep(delayMs);
            switch (mode) {
                case "fault" -> send(x, 500, FAULT);
                case "500" -> send(x, 503, "<html><body>Service Unavailable</body></html>");
                case "slow" -> {
                    sleep(slowMs);
                    send(x, 200, OK_TEMPLATE.formatted(svc));
                }
                case "twice" -> send(x, 200, OK_TEMPLATE.formatted(svc) + "<!-- served by " + svc + " -->");
                default -> send(x, 200, OK_TEMPLATE.formatted(svc));
            }
        } catch (IOException e) {
            // the client gave up (timeout test): nothing to answer
        }
    }

    private static void sleep(long ms) {
        if (ms <= 0) return;
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void send(HttpExchange x, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().set("Content-Type", "text/xml; charset=utf-8");
        x.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = x.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        pool.shutdownNow();
    }
}
