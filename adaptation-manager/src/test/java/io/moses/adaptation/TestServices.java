package io.moses.adaptation;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Concrete services for tests, one per path: each answers after its delay, with a reply
 * naming itself, a SOAP fault, or a dropped connection.
 */
final class TestServices implements AutoCloseable {
    /**
     * REFUSE: HTTP 503 with a SOAP fault (a provider, or a gateway in front of it, that may have
     * processed the call); UNAVAILABLE: HTTP 503 with no body (declined before processing);
     * GARBAGE: 200 with a body that is not XML; HANG: accepts the request, never answers (until
     * the services close). Whatever the behaviour, a GET (the WS Monitor's probe of
     * {@code ?wsdl}) is answered at once, as a provider's web server serves its static WSDL while
     * its SOAP handler hangs; probes are counted apart from calls.
     */
    enum Behaviour { REPLY, FAULT, DROP, REFUSE, UNAVAILABLE, GARBAGE, HANG }

    record Settings(long delayMillis, Behaviour behaviour) {}

    private final HttpServer server;
    private final java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);
    final Map<String, Settings> settings = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> probes = new ConcurrentHashMap<>();
    final Map<String, String> lastRequest = new ConcurrentHashMap<>();
    /** The {@code traceparent} header of each service's last call that carried one. */
    final Map<String, String> lastTraceparent = new ConcurrentHashMap<>();

    TestServices() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 500);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", ex -> {
            String name = ex.getRequestURI().getPath().substring(1);
            if ("GET".equals(ex.getRequestMethod())) {
                probes.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
                byte[] wsdl = "<definitions xmlns='http://schemas.xmlsoap.org/wsdl/'/>".getBytes(StandardCharsets.UTF_8);
                ex.sendResponseHeaders(200, wsdl.length);
                ex.getResponseBody().write(wsdl);
                ex.close();
                return;
            }
            calls.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
            lastRequest.put(name, new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            String traceparent = ex.getRequestHeaders().getFirst("traceparent");
            if (traceparent != null) lastTraceparent.put(name, traceparent);
            Settings s = settings.getOrDefault(name, new Settings(0, Behaviour.REPLY));
            try {
                Thread.sleep(s.delayMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (s.behaviour() == Behaviour.HANG) {
                try {
                    closed.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                ex.close();
                return;
            }
            if (s.behaviour() == Behaviour.UNAVAILABLE) {
                ex.sendResponseHeaders(503, -1);
                ex.close();
                return;
            }
            if (s.behaviour() == Behaviour.DROP) {
                ex.close();
                return;
            }
            if (s.behaviour() == Behaviour.GARBAGE) {
                byte[] junk = "this is not XML <<<".getBytes(StandardCharsets.UTF_8);
                ex.sendResponseHeaders(200, junk.length);
                ex.getResponseBody().write(junk);
                ex.close();
                return;
            }
            if (s.behaviour() == Behaviour.REFUSE) {
                byte[] down = ("<s:Envelope xmlns:s='http://schemas.xmlsoap.org/soap/envelope/'><s:Body><s:Fault><faultcode>s:Server</faultcode>"
                        + "<faultstring>" + name + " is down</faultstring></s:Fault></s:Body></s:Envelope>").getBytes(StandardCharsets.UTF_8);
                ex.sendResponseHeaders(503, down.length);
                ex.getResponseBody().write(down);
                ex.close();
                return;
            }
            String body = s.behaviour() == Behaviour.FAULT
                    ? "<s:Fault><faultcode>s:Server</faultcode><faultstring>" + name + " is broken</faultstring></s:Fault>"
                    : "<r:answer xmlns:r='urn:test:reply'><r:by>" + name + "</r:by></r:answer>";
            byte[] bytes = ("<s:Envelope xmlns:s='http://schemas.xmlsoap.org/soap/envelope/'><s:Body>" + body
                    + "</s:Body></s:Envelope>").getBytes(StandardCharsets.UTF_8);
            try {
                ex.sendResponseHeaders(s.behaviour() == Behaviour.FAULT ? 500 : 200, bytes.length);
                ex.getResponseBody().write(bytes);
            } catch (IOException e) {
                // the client went away (a cancelled 1-out-of-n member)
            }
            ex.close();
        });
        server.start();
    }

    void set(String name, long delayMillis, Behaviour b) {
        settings.put(name, new Settings(delayMillis, b));
    }

    URI uri(String name) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/" + name);
    }

    int calls(String name) {
        AtomicInteger n = calls.get(name);
        return n == null ? 0 : n.get();
    }

    /** GETs of the service's WSDL (the WS Monitor's probes) so far. */
    int probes(String name) {
        AtomicInteger n = probes.get(name);
        return n == null ? 0 : n.get();
    }

    @Override
    public void close() {
        closed.countDown();
        server.stop(0);
    }
}
