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
    static volatile String[] seen12;
    static final java.util.List<String> cookiesSeen = new java.util.concurrent.CopyOnWriteArrayList<>();

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
        raw.createContext("/soap12", ex -> { // a SOAP 1.2 provider: replies in 1.2, faults on demand
            String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            seen12 = new String[] {ex.getRequestHeaders().getFirst("Content-Type"), ex.getRequestHeaders().getFirst("SOAPAction"), body};
            boolean fault = ex.getRequestURI().getQuery() != null;
            byte[] b = ("<e:Envelope xmlns:e='http://www.w3.org/2003/05/soap-envelope'><e:Body>" + (fault
                    ? "<e:Fault><e:Code><e:Value>e:Sender</e:Value><e:Subcode><e:Value xmlns:a='urn:test:app'>a:NoSuchFlight</e:Value></e:Subcode></e:Code>"
                      + "<e:Reason><e:Text xml:lang='en'>no such flight</e:Text></e:Reason><e:Detail><a:why xmlns:a='urn:test:app'>sold out</a:why></e:Detail></e:Fault>"
                    : "<r:answer xmlns:r='urn:test:reply'>1.2</r:answer>") + "</e:Body></e:Envelope>").getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/soap+xml; charset=utf-8");
            ex.sendResponseHeaders(fault ? 500 : 200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        raw.createContext("/cookie", ex -> { // a provider that sets a session cookie on every reply
            cookiesSeen.add(String.valueOf(ex.getRequestHeaders().getFirst("Cookie")));
            byte[] b = "<e:Envelope xmlns:e='http://schemas.xmlsoap.org/soap/envelope/'><e:Body><r:ok xmlns:r='urn:test:reply'/></e:Body></e:Envelope>"
                    .getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "text/xml; charset=utf-8");
            ex.getResponseHeaders().add("Set-Cookie", "session=of-the-first-caller; Path=/");
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        raw.createContext("/large", ex -> { // a reply of ?KiB, well below the 16 MiB of one reply
            int kib = Integer.parseInt(ex.getRequestURI().getQuery());
            byte[] b = ("<e:Envelope xmlns:e='http://schemas.xmlsoap.org/soap/envelope/'><e:Body><r:big xmlns:r='urn:test:reply'>"
                    + "x".repeat(kib * 1024) + "</r:big></e:Body></e:Envelope>").getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "text/xml; charset=utf-8");
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

    static CallOutcome call(URI uri, Duration timeout) throws Exception {
        return client.call(uri, "urn:test:ask", BODY, timeout).get(10, TimeUnit.SECONDS);
    }

    static CallEnd kindOf(CallOutcome r) {
        return assertInstanceOf(CallOutcome.CallFailure.class, r).kind();
    }

    @Test
    void repliesBeingReceivedShareOneBudgetAndGiveItBackOnceParsed() throws Exception {
        try (SoapClient small = new SoapClient(Duration.ofSeconds(2), null, Xml.jdk(), 1 << 20)) {
            URI large = URI.create("http://127.0.0.1:" + raw.getAddress().getPort() + "/large?1536");
            CallOutcome refused = small.call(large, "urn:test:ask", BODY, Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
            assertEquals(CallEnd.PROTOCOL, kindOf(refused));
            assertTrue(assertInstanceOf(CallOutcome.CallFailure.class, refused).reason()
                    .contains("the replies being received at once would hold more than 1 MiB"), refused.toString());
            // what the refused reply held, and each parsed one, is given back: 700 KiB fits, again and again
            URI fits = URI.create("http://127.0.0.1:" + raw.getAddress().getPort() + "/large?700");
            for (int i = 0; i < 3; i++)
                assertInstanceOf(CallOutcome.CallReply.class, small.call(fits, "urn:test:ask", BODY, Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void aCookieOneCallGotIsNotSentWithTheNext() throws Exception {
        URI cookie = URI.create("http://127.0.0.1:" + raw.getAddress().getPort() + "/cookie");
        assertInstanceOf(CallOutcome.CallReply.class, call(cookie, Duration.ofSeconds(2)));
        assertInstanceOf(CallOutcome.CallReply.class, call(cookie, Duration.ofSeconds(2)));
        assertEquals(java.util.List.of("null", "null"), cookiesSeen, "the Cookie header of each call");
    }

    @Test
    void aRefusedConnectionNeverReachedTheProvider() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        CallEnd k = kindOf(call(URI.create("http://127.0.0.1:" + closed + "/x"), Duration.ofSeconds(2)));
        assertEquals(CallEnd.CONNECT, k);
        assertTrue(k.neverProcessed());
    }

    @Test
    void http503WithoutABodyIsUnavailableNotProcessed() throws Exception {
        CallEnd k = kindOf(call(URI.create("http://127.0.0.1:" + raw.getAddress().getPort() + "/busy"), Duration.ofSeconds(2)));
        assertEquals(CallEnd.UNAVAILABLE, k);
        assertTrue(k.neverProcessed());
    }

    @Test
    void aTimeoutMayHaveBeenProcessed() throws Exception {
        stubs.set("sleepy", 0, Behaviour.REPLY);
        call(stubs.uri("sleepy"), Duration.ofSeconds(5)); // a connection in the pool: the next request is sent at once
        stubs.set("sleepy", 2_000, Behaviour.REPLY);
        CallEnd k = kindOf(call(stubs.uri("sleepy"), Duration.ofMillis(500)));
        assertEquals(2, stubs.calls("sleepy"), "the request reached the provider");
        assertEquals(CallEnd.TIMEOUT, k);
        assertFalse(k.neverProcessed());
        assertTrue(k.blamesProvider());
    }

    @Test
    void garbageAndDroppedConnectionsAreProtocolFailures() throws Exception {
        assertEquals(CallEnd.PROTOCOL, kindOf(call(URI.create("http://127.0.0.1:" + raw.getAddress().getPort() + "/garbage"), Duration.ofSeconds(2))));
        stubs.set("dropper", 0, Behaviour.DROP);
        CallEnd dropped = kindOf(call(stubs.uri("dropper"), Duration.ofSeconds(2)));
        assertEquals(CallEnd.PROTOCOL, dropped);
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
        CallEnd k = kindOf(call.result().get(10, TimeUnit.SECONDS));
        assertEquals(CallEnd.CANCELLED, k);
        assertFalse(k.blamesProvider());
    }

    @Test
    void aSoap12CallCarriesItsActionInTheContentTypeAndGetsA12Reply() throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + raw.getAddress().getPort() + "/soap12");
        CallOutcome r = client.call(uri, SoapVersion.SOAP_12, "urn:test:ask", BODY, Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
        Element reply = assertInstanceOf(CallOutcome.CallReply.class, r).body();
        assertEquals("answer", reply.getLocalName());
        assertEquals("1.2", reply.getTextContent());
        assertEquals("application/soap+xml; charset=utf-8; action=\"urn:test:ask\"", seen12[0]);
        assertEquals(null, seen12[1], "no SOAPAction header in SOAP 1.2");
        assertTrue(seen12[2].startsWith("<soapenv:Envelope xmlns:soapenv=\"http://www.w3.org/2003/05/soap-envelope\"><soapenv:Body><q:ask"), seen12[2]);
    }

    @Test
    void aSoap11CallSendsTextXmlAndTheSoapActionHeader() throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + raw.getAddress().getPort() + "/soap12");
        client.call(uri, "urn:test:ask", BODY, Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
        assertEquals("text/xml; charset=utf-8", seen12[0]);
        assertEquals("\"urn:test:ask\"", seen12[1]);
        assertTrue(seen12[2].startsWith("<soapenv:Envelope xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/envelope/\">"), seen12[2]);
    }

    @Test
    void aSoap12FaultIsReadWithItsCodeReasonAndDetail() throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + raw.getAddress().getPort() + "/soap12?fault");
        CallOutcome r = client.call(uri, SoapVersion.SOAP_12, "urn:test:ask", BODY, Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
        CallOutcome.CallFault f = assertInstanceOf(CallOutcome.CallFault.class, r);
        assertEquals(new javax.xml.namespace.QName(SoapVersion.SOAP_12.envelopeNamespace, "Sender"), f.code());
        assertEquals("no such flight", f.reason());
        assertEquals("why", f.detail().getLocalName());
        assertEquals("sold out", f.detail().getTextContent());
    }

    @Test
    void repliesAreParsedIntoTheGivenDomImplementation() throws Exception {
        // a client whose replies go into documents of the factory it is given
        javax.xml.parsers.DocumentBuilderFactory f = javax.xml.parsers.DocumentBuilderFactory.newDefaultInstance();
        try (SoapClient own = new SoapClient(Duration.ofSeconds(2), null, new Xml.Parser(f))) {
            stubs.set("plain", 0, Behaviour.REPLY);
            CallOutcome r = own.call(stubs.uri("plain"), "urn:test:ask", BODY, Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
            Element body = assertInstanceOf(CallOutcome.CallReply.class, r).body();
            assertEquals(f.newDocumentBuilder().newDocument().getImplementation().getClass(), body.getOwnerDocument().getImplementation().getClass());
            assertEquals("plain", body.getTextContent());
        }
    }

    @Test
    void aCancelledLoserLeavesItsConnectionInThePool() throws Exception {
        // the loser's reply is discarded when it comes; the next calls reuse connections and succeed
        stubs.set("loser", 200, Behaviour.REPLY);
        SoapClient.Call loser = client.send(stubs.uri("loser"), SoapVersion.SOAP_11, "urn:test:ask", BODY, Duration.ofSeconds(5));
        for (long deadline = System.nanoTime() + 10_000_000_000L; stubs.calls("loser") == 0 && System.nanoTime() < deadline; )
            Thread.onSpinWait();
        loser.cancel();
        assertEquals(CallEnd.CANCELLED, kindOf(loser.result().get(10, TimeUnit.SECONDS)));
        stubs.set("loser", 0, Behaviour.REPLY);
        for (int i = 0; i < 20; i++)
            assertInstanceOf(CallOutcome.CallReply.class, call(stubs.uri("loser"), Duration.ofSeconds(5)));
    }
}
