package io.moses.adaptation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.moses.adaptation.TestServices.Behaviour;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

/** Every failure gets its kind where it is seen. */
class SoapClientTest {
    static TestServices stubs;
    static HttpServer raw;
    static SoapClient client;
    static Element BODY;

    @BeforeAll
    static void start() throws Exception {
        stubs = new TestServices();
        raw = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
        raw.createContext("/busy", ex -> { // a provider shedding load before it processes anything
            ex.sendResponseHeaders(503, -1);
            ex.close();
        });
        raw.createContext("/garbage", ex -> {
            byte[] b = "this is not xml".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        raw.start();
        client = new SoapClient(Duration.ofSeconds(2), null);
        BODY = Xml.parse("<q:ask xmlns:q='urn:test'/>".getBytes(StandardCharsets.UTF_8)).getDocumentElement();
    }

    @AfterAll
    static void stop() {
        stubs.close();
        raw.stop(0);
    }

    static SoapClient.Result call(URI uri, Duration timeout) throws Exception {
        return client.call(uri, "urn:test:ask", BODY, timeout).get(10, TimeUnit.SECONDS);
    }

    static FailureKind kindOf(SoapClient.Result r) {
        return assertInstanceOf(SoapClient.Result.Failure.class, r).kind();
    }

    @Test
    void aRefusedConnectionNeverReachedTheProvider() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        FailureKind k = kindOf(call(URI.create("http://127.0.0.1:" + closed + "/x"), Duration.ofSeconds(2)));
        assertEquals(FailureKind.CONNECT, k);
        assertTrue(k.neverProcessed());
    }

    @Test
    void http503WithoutABodyIsUnavailableNotProcessed() throws Exception {
        FailureKind k = kindOf(call(URI.create("http://127.0.0.1:" + raw.getAddress().getPort() + "/busy"), Duration.ofSeconds(2)));
        assertEquals(FailureKind.UNAVAILABLE, k);
        assertTrue(k.neverProcessed());
    }

    @Test
    void aTimeoutMayHaveBeenProcessed() throws Exception {
        stubs.set("sleepy", 1_000, Behaviour.REPLY);
        FailureKind k = kindOf(call(stubs.uri("sleepy"), Duration.ofMillis(150)));
        assertEquals(FailureKind.TIMEOUT, k);
        assertFalse(k.neverProcessed());
        assertTrue(k.blamesProvider());
    }

    @Test
    void garbageAndDroppedConnectionsAreProtocolFailures() throws Exception {
        assertEquals(FailureKind.PROTOCOL, kindOf(call(URI.create("http://127.0.0.1:" + raw.getAddress().getPort() + "/garbage"), Duration.ofSeconds(2))));
        stubs.set("dropper", 0, Behaviour.DROP);
        FailureKind dropped = kindOf(call(stubs.uri("dropper"), Duration.ofSeconds(2)));
        assertEquals(FailureKind.PROTOCOL, dropped);
        assertFalse(dropped.neverProcessed(), "a dropped connection may have been processed");
    }

    @Test
    void aCancelledCallSaysNothingAboutTheProvider() throws Exception {
        stubs.set("slowpoke", 1_000, Behaviour.REPLY);
        SoapClient.Call call = client.send(stubs.uri("slowpoke"), SoapVersion.SOAP_11, "urn:test:ask", BODY, Duration.ofSeconds(5));
        for (long deadline = System.nanoTime() + 10_000_000_000L; stubs.calls("slowpoke") == 0 && System.nanoTime() < deadline; )
            Thread.onSpinWait(); // cancel once the call has reached the provider
        assertEquals(1, stubs.calls("slowpoke"), "the call reached the provider");
        call.cancel();
        FailureKind k = kindOf(call.result().get(10, TimeUnit.SECONDS));
        assertEquals(FailureKind.CANCELLED, k);
        assertFalse(k.blamesProvider());
    }
}
