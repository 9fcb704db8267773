package io.moses.loadtest.stubs;

import static io.moses.loadtest.stubs.StubServerTest.bodyChild;
import static io.moses.loadtest.stubs.StubServerTest.envelope;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.moses.testing.Waits;
import java.io.ByteArrayInputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

/**
 * The asynchronous stubs over real sockets on 127.0.0.1: requests answered 202, callbacks
 * received by a small HTTP server of the test's own.
 */
@Tag("e2e")
class AsyncStubTest {
    static final String NS = "urn:moses:task:supplier";
    static final String CONFIG = """
            services:
              - {name: supplier-a, kind: async, namespace: 'urn:moses:task:supplier', price: 100, distribution: fixed, callbackDelayMillis: 200}
              - {name: supplier-b, kind: async, namespace: 'urn:moses:task:supplier', price: 200.5, callbackDelayMillis: 0}
              - {name: small, kind: async, namespace: 'urn:moses:task:supplier', maxPending: 2, callbackDelayMillis: 60000}
            """;
    static final ObjectMapper JSON = new ObjectMapper();
    static StubServer server;
    static HttpClient http;
    static HttpServer receiver;
    /** What the receiver got: each callback's path, Authorization, SOAPAction and body, in order. */
    static final BlockingQueue<Received> callbacks = new LinkedBlockingQueue<>();
    static volatile int receiverStatus = 202;

    record Received(String path, String authorization, String soapAction, String contentType, String body, long atNanos) {}

    @BeforeAll
    static void start() throws Exception {
        server = StubServer.start(StubConfig.parse(CONFIG, true), "127.0.0.1", 0);
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        receiver.createContext("/", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            callbacks.add(new Received(exchange.getRequestURI().getPath(), exchange.getRequestHeaders().getFirst("Authorization"),
                    exchange.getRequestHeaders().getFirst("SOAPAction"), exchange.getRequestHeaders().getFirst("Content-Type"),
                    new String(body, StandardCharsets.UTF_8), System.nanoTime()));
            exchange.sendResponseHeaders(receiverStatus, -1);
            exchange.close();
        });
        receiver.start();
    }

    @AfterAll
    static void stop() {
        server.close();
        receiver.stop(0);
    }

    @BeforeEach
    void reset() throws Exception {
        assertEquals(200, admin("POST", "/admin/reset", null).statusCode());
        callbacks.clear();
        receiverStatus = 202;
    }

    static String receiverUrl(String path) {
        return "http://127.0.0.1:" + receiver.getAddress().getPort() + path;
    }

    static HttpResponse<String> admin(String method, String path, String json) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + path)).timeout(Duration.ofSeconds(10))
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static void set(String service, String json) throws Exception {
        HttpResponse<String> r = admin("PUT", "/admin/services/" + service, json);
        assertEquals(200, r.statusCode(), r.body());
    }

    static JsonNode status(String service) throws Exception {
        HttpResponse<String> r = admin("GET", "/admin/services/" + service, null);
        assertEquals(200, r.statusCode(), r.body());
        return JSON.readTree(r.body());
    }

    /** Waits, bounded, until {@code service}'s {@code counter} is {@code value}; returns its status then. */
    static JsonNode awaitCounter(String service, String counter, long value) throws Exception {
        // the counter is the event: counted when the callback's answer came
        AtomicReference<JsonNode> last = new AtomicReference<>(status(service));
        Waits.within(10, () -> {
            last.set(status(service));
            return last.get().path(counter).asLong() == value;
        });
        JsonNode s = last.get();
        assertEquals(value, s.path(counter).asLong(), counter + " of " + service + ": " + s);
        return s;
    }

    /** A BPEL service-ref wrapping a WS-Addressing endpoint reference, as a process's myRole reference copies. */
    static String serviceRef(String address) {
        return "<sref:service-ref xmlns:sref='http://docs.oasis-open.org/wsbpel/2.0/serviceref'>"
                + "<wsa:EndpointReference xmlns:wsa='http://www.w3.org/2005/08/addressing'><wsa:Address>" + address
                + "</wsa:Address></wsa:EndpointReference></sref:service-ref>";
    }

    static HttpResponse<String> requestQuote(String service, String requestId, String replyTo, String item) throws Exception {
        String body = "<q:quoteRequest xmlns:q='" + NS + "'><q:requestId>" + requestId + "</q:requestId>"
                + (replyTo == null ? "" : "<q:replyTo>" + replyTo + "</q:replyTo>") + "<q:item>" + item + "</q:item></q:quoteRequest>";
        return http.send(HttpRequest.newBuilder(URI.create(server.url(service))).timeout(Duration.ofSeconds(20))
                .header("Content-Type", "text/xml; charset=utf-8").POST(HttpRequest.BodyPublishers.ofString(envelope(body))).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static Received nextCallback() throws InterruptedException {
        Received r = callbacks.poll(10, TimeUnit.SECONDS);
        assertNotNull(r, "no callback within 10 s");
        return r;
    }

    /** The price the stubs quote: the service's base plus CRC-32(requestId) mod 1000 cents. */
    static String price(long baseCents, String requestId) {
        CRC32 crc = new CRC32();
        crc.update(requestId.getBytes(StandardCharsets.UTF_8));
        long cents = baseCents + crc.getValue() % 1000;
        return String.format(java.util.Locale.ROOT, "%d.%02d", cents / 100, cents % 100);
    }

    static String text(Element parent, String local) {
        return parent.getElementsByTagNameNS(NS, local).item(0).getTextContent();
    }

    @Test
    void aRequestIsAcceptedAt202AndCalledBackAfterItsDelayWithItsPrice() throws Exception {
        long sentAt = System.nanoTime();
        HttpResponse<String> r = requestQuote("supplier-a", "q-1", serviceRef(receiverUrl("/services/QuoteCallbackService")), "widget");
        assertEquals(202, r.statusCode(), r.body());
        assertEquals("", r.body());
        Received c = nextCallback();
        assertTrue(c.atNanos() - sentAt >= TimeUnit.MILLISECONDS.toNanos(200), "called back before its fixed 200 ms delay");
        assertEquals("/services/QuoteCallbackService", c.path());
        assertEquals("\"urn:moses:task:supplier/quoteReady\"", c.soapAction());
        assertTrue(c.contentType().startsWith("text/xml"), c.contentType());
        assertNull(c.authorization());
        Element ready = bodyChild(c.body());
        assertEquals("{" + NS + "}quoteReady", "{" + ready.getNamespaceURI() + "}" + ready.getLocalName());
        assertEquals("q-1", text(ready, "requestId"));
        assertEquals(price(10_000, "q-1"), text(ready, "price"));
        JsonNode s = awaitCounter("supplier-a", "callbacksSent", 1);
        assertEquals(1, s.get("requests").asInt());
        assertEquals(1, s.get("replied").asInt());
        assertEquals(0, s.get("callbacksFailed").asInt());
        assertEquals(0, s.get("pending").asInt());
        assertEquals(0, status("supplier-b").get("requests").asInt());
    }

    @Test
    void aReplyToThatIsAPlainUrlOrABareEndpointReferenceIsCalledToo() throws Exception {
        assertEquals(202, requestQuote("supplier-b", "q-2", receiverUrl("/plain"), "bolt").statusCode());
        Received plain = nextCallback();
        assertEquals("/plain", plain.path());
        assertEquals(price(20_050, "q-2"), text(bodyChild(plain.body()), "price"));
        String epr = "<wsa:EndpointReference xmlns:wsa='http://www.w3.org/2005/08/addressing'><wsa:Address>" + receiverUrl("/epr")
                + "</wsa:Address><wsa:ReferenceParameters><x:id xmlns:x='urn:x'>7</x:id></wsa:ReferenceParameters></wsa:EndpointReference>";
        assertEquals(202, requestQuote("supplier-b", "q-3", epr, "nut").statusCode());
        assertEquals("/epr", nextCallback().path());
        awaitCounter("supplier-b", "callbacksSent", 2);
    }

    @Test
    void noAddressToCallBackIsAClientFault() throws Exception {
        // what a process gets today from <from partnerLink endpointReference="myRole"/> in this broker
        String[] f = ReservationStubTest.fault(requestQuote("supplier-a", "q-4", serviceRef(""), "widget"));
        assertEquals("soap:Client", f[0]);
        assertTrue(f[1].contains("replyTo holds no http(s) address to call back (its wsa:Address is '')"), f[1]);
        assertTrue(ReservationStubTest.fault(requestQuote("supplier-a", "q-5", null, "widget"))[1].contains("children requestId, replyTo and item"));
        assertTrue(ReservationStubTest.fault(requestQuote("supplier-a", "q-6", "not a url", "widget"))[1].contains("its text is 'not a url'"));
        assertTrue(ReservationStubTest.fault(requestQuote("supplier-a", "q-7", "ftp://127.0.0.1/x", "widget"))[1].contains("no http(s) address"));
        JsonNode s = status("supplier-a");
        assertEquals(4, s.get("rejected").asInt());
        assertEquals(3, s.get("withoutReplyTo").asInt());
        assertEquals(0, s.get("pending").asInt());
    }

    @Test
    void aCallbackAddressIsCalledWhenTheReplyToHoldsNone() throws Exception {
        assertEquals(400, admin("PUT", "/admin/services/supplier-b", "{\"callbackAddress\":\"mailto:x@y\"}").statusCode());
        set("supplier-b", "{\"callbackAddress\":\"" + receiverUrl("/fallback") + "\"}");
        assertEquals(receiverUrl("/fallback"), status("supplier-b").get("callbackAddress").asText());
        assertEquals(202, requestQuote("supplier-b", "q-13", serviceRef(""), "x").statusCode());
        assertEquals("/fallback", nextCallback().path());
        // a replyTo with an address still wins
        assertEquals(202, requestQuote("supplier-b", "q-14", receiverUrl("/own"), "x").statusCode());
        assertEquals("/own", nextCallback().path());
        JsonNode s = awaitCounter("supplier-b", "callbacksSent", 2);
        assertEquals(1, s.get("withoutReplyTo").asInt());
        assertEquals(0, s.get("rejected").asInt());
    }

    @Test
    void callbackNeverAndASkipRateLeaveRequestsUncalledBackAndCountThem() throws Exception {
        set("supplier-b", "{\"callback\":\"never\"}");
        assertEquals("never", status("supplier-b").get("callback").asText());
        assertEquals(202, requestQuote("supplier-b", "skipped", receiverUrl("/never"), "x").statusCode());
        set("supplier-b", "{\"callback\":\"always\",\"callbackSkipProbability\":1}");
        assertEquals(202, requestQuote("supplier-b", "skipped-too", receiverUrl("/never"), "x").statusCode());
        set("supplier-b", "{\"callbackSkipProbability\":0}");
        assertEquals(202, requestQuote("supplier-b", "called", receiverUrl("/always"), "x").statusCode());
        // the skipped ones, sent first with the same delay, would have come first
        assertEquals("called", text(bodyChild(nextCallback().body()), "requestId"));
        JsonNode s = awaitCounter("supplier-b", "callbacksSent", 1);
        assertEquals(2, s.get("callbacksSkipped").asInt());
        assertEquals(3, s.get("requests").asInt());
        assertTrue(callbacks.isEmpty(), callbacks.toString());
    }

    @Test
    void aFailedCallbackIsCountedAndNotSentAgain() throws Exception {
        receiverStatus = 500;
        assertEquals(202, requestQuote("supplier-b", "q-8", receiverUrl("/fails"), "x").statusCode());
        nextCallback();
        JsonNode s = awaitCounter("supplier-b", "callbacksFailed", 1);
        assertTrue(s.get("lastCallbackFailure").asText().startsWith("HTTP 500 from " + receiverUrl("/fails")), s.toString());
        assertEquals(0, s.get("callbacksSent").asInt());
        // nobody listens there: a connection refused fails it as well
        int closed;
        try (ServerSocket free = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = free.getLocalPort();
        }
        assertEquals(202, requestQuote("supplier-b", "q-9", "http://127.0.0.1:" + closed + "/gone", "x").statusCode());
        s = awaitCounter("supplier-b", "callbacksFailed", 2);
        assertTrue(s.get("lastCallbackFailure").asText().startsWith("http://127.0.0.1:" + closed + "/gone: "), s.toString());
        // a failed callback is never sent again: the next one the receiver gets is a new request's
        receiverStatus = 202;
        assertEquals(202, requestQuote("supplier-b", "q-10", receiverUrl("/ok"), "x").statusCode());
        assertEquals("q-10", text(bodyChild(nextCallback().body()), "requestId"));
        assertEquals(0, awaitCounter("supplier-b", "callbacksSent", 1).get("pending").asInt());
    }

    @Test
    void aSlowReceiverTimesTheCallbackOut() throws Exception {
        // a server that accepts the connection and never answers
        try (ServerSocket silent = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            set("supplier-b", "{\"callbackTimeoutMillis\":300}");
            assertEquals(202, requestQuote("supplier-b", "q-11", "http://127.0.0.1:" + silent.getLocalPort() + "/slow", "x").statusCode());
            JsonNode s = awaitCounter("supplier-b", "callbacksFailed", 1);
            assertTrue(s.get("lastCallbackFailure").asText().contains("imed out"), s.toString());
        }
    }

    @Test
    void credentialsAreSentButNeverShown() throws Exception {
        set("supplier-a", "{\"callbackUser\":\"alice\",\"callbackPassword\":\"alice-demo\",\"callbackDelayMillis\":0}");
        JsonNode s = status("supplier-a");
        assertEquals("alice", s.get("callbackUser").asText());
        assertFalse(s.toString().contains("alice-demo"), s.toString());
        assertEquals(202, requestQuote("supplier-a", "q-12", receiverUrl("/auth"), "x").statusCode());
        assertEquals("Basic " + Base64.getEncoder().encodeToString("alice:alice-demo".getBytes(StandardCharsets.UTF_8)),
                nextCallback().authorization());
        // one without the other is refused, and changes nothing
        HttpResponse<String> r = admin("PUT", "/admin/services/supplier-a", "{\"callbackUser\":null,\"latencyMs\":5}");
        assertEquals(400, r.statusCode(), r.body());
        assertTrue(r.body().contains("callbackUser and callbackPassword go together"), r.body());
        assertEquals(0.0, status("supplier-a").get("latencyMs").asDouble());
        set("supplier-a", "{\"callbackUser\":null,\"callbackPassword\":null}");
        assertTrue(status("supplier-a").get("callbackUser").isNull());
    }

    @Test
    void atMostMaxPendingCallbacksWaitAndAResetCancelsThem() throws Exception {
        assertEquals(202, requestQuote("small", "p-1", receiverUrl("/late"), "x").statusCode());
        assertEquals(202, requestQuote("small", "p-2", receiverUrl("/late"), "x").statusCode());
        HttpResponse<String> third = requestQuote("small", "p-3", receiverUrl("/late"), "x");
        assertEquals(503, third.statusCode(), third.body());
        assertTrue(third.body().contains("small has 2 callbacks pending, its limit"), third.body());
        JsonNode s = status("small");
        assertEquals(2, s.get("pending").asInt());
        assertEquals(1, s.get("pendingRefused").asInt());
        assertEquals(2, s.get("maxPending").asInt());
        reset();
        assertEquals(0, status("small").get("pending").asInt());
        assertEquals(202, requestQuote("small", "p-4", receiverUrl("/late"), "x").statusCode());
    }

    @Test
    void theCallbackDelayAndItsSettingsChangeAtRunTime() throws Exception {
        set("supplier-a", "{\"callbackDelayMillis\":5,\"distribution\":\"lognormal\",\"sigma\":0.3}");
        JsonNode s = status("supplier-a");
        assertEquals(5.0, s.get("callbackDelayMillis").asDouble());
        assertEquals("lognormal", s.get("distribution").asText());
        for (String bad : new String[] {"{\"callbackDelayMillis\":-1}", "{\"callback\":\"sometimes\"}", "{\"callbackSkipProbability\":2}",
                "{\"callbackTimeoutMillis\":0}", "{\"callbackUser\":\"a:b\",\"callbackPassword\":\"x\"}"}) {
            HttpResponse<String> r = admin("PUT", "/admin/services/supplier-a", bad);
            assertEquals(400, r.statusCode(), bad + ": " + r.body());
        }
        assertEquals(5.0, status("supplier-a").get("callbackDelayMillis").asDouble(), "a refused change changes nothing");
        reset();
        assertEquals(200.0, status("supplier-a").get("callbackDelayMillis").asDouble(), "a reset restores the configured delay");
    }

    @Test
    void itsWsdlHasTheOneWayRequest() throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(server.url("supplier-a") + "?wsdl")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        Element defs = f.newDocumentBuilder().parse(new ByteArrayInputStream(r.body().getBytes(StandardCharsets.UTF_8))).getDocumentElement();
        Element portType = (Element) defs.getElementsByTagNameNS("http://schemas.xmlsoap.org/wsdl/", "portType").item(0);
        var operations = portType.getElementsByTagNameNS("http://schemas.xmlsoap.org/wsdl/", "operation");
        assertEquals(1, operations.getLength(), r.body());
        assertEquals("requestQuote", ((Element) operations.item(0)).getAttribute("name"));
        assertEquals(0, ((Element) operations.item(0)).getElementsByTagNameNS("http://schemas.xmlsoap.org/wsdl/", "output").getLength(), r.body());
    }
}
