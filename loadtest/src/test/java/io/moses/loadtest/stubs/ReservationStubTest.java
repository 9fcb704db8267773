package io.moses.loadtest.stubs;

import static io.moses.loadtest.stubs.StubServerTest.bodyChild;
import static io.moses.loadtest.stubs.StubServerTest.envelope;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

/** The stateful reservation stubs over real sockets on 127.0.0.1: two providers and a small one. */
@Tag("e2e")
class ReservationStubTest {
    static final String NS = "urn:moses:task:room";
    static final String CONFIG = """
            services:
              - {name: hotel-room-a, kind: reservation, namespace: 'urn:moses:task:room'}
              - {name: hotel-room-b, kind: reservation, namespace: 'urn:moses:task:room'}
              - {name: small, kind: reservation, namespace: 'urn:moses:task:room', maxOpen: 2}
            """;
    static final ObjectMapper JSON = new ObjectMapper();
    static StubServer server;
    static HttpClient http;

    @BeforeAll
    static void start() throws Exception {
        server = StubServer.start(StubConfig.parse(CONFIG, true), "127.0.0.1", 0);
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void reset() throws Exception {
        assertEquals(200, admin("POST", "/admin/reset").statusCode());
    }

    static HttpResponse<String> post(String service, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(server.url(service))).timeout(Duration.ofSeconds(20))
                .header("Content-Type", "text/xml; charset=utf-8").POST(HttpRequest.BodyPublishers.ofString(envelope(body))).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> admin(String method, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + path)).timeout(Duration.ofSeconds(10))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode status(String service) throws Exception {
        HttpResponse<String> r = admin("GET", "/admin/services/" + service);
        assertEquals(200, r.statusCode(), r.body());
        return JSON.readTree(r.body());
    }

    static HttpResponse<String> reserve(String service, String guest, String nights) throws Exception {
        return post(service, "<r:reserveRequest xmlns:r='" + NS + "'><r:guest>" + guest + "</r:guest><r:nights>" + nights
                + "</r:nights></r:reserveRequest>");
    }

    /** Reserves at {@code service}; returns the reservation id it answered. */
    static String reserved(String service, String guest, int nights) throws Exception {
        HttpResponse<String> r = reserve(service, guest, Integer.toString(nights));
        assertEquals(200, r.statusCode(), r.body());
        Element reply = bodyChild(r.body());
        assertEquals("{" + NS + "}reserveResponse", "{" + reply.getNamespaceURI() + "}" + reply.getLocalName());
        Element id = (Element) reply.getElementsByTagNameNS(NS, "reservationId").item(0);
        return id.getTextContent();
    }

    static HttpResponse<String> confirm(String service, String id) throws Exception {
        return post(service, "<r:confirmRequest xmlns:r='" + NS + "'><r:reservationId>" + id + "</r:reservationId></r:confirmRequest>");
    }

    /** A SOAP 1.1 fault's faultcode and faultstring. */
    static String[] fault(HttpResponse<String> r) throws Exception {
        assertEquals(500, r.statusCode(), r.body());
        Element fault = bodyChild(r.body());
        assertEquals("Fault", fault.getLocalName(), r.body());
        return new String[] {fault.getElementsByTagName("faultcode").item(0).getTextContent(),
                fault.getElementsByTagName("faultstring").item(0).getTextContent()};
    }

    @Test
    void aReservationIsConfirmedByTheProviderThatMadeIt() throws Exception {
        String id = reserved("hotel-room-a", "alice &amp; bob", 2);
        assertTrue(id.startsWith("hotel-room-a-"), id);
        HttpResponse<String> r = confirm("hotel-room-a", id);
        assertEquals(200, r.statusCode(), r.body());
        Element reply = bodyChild(r.body());
        assertEquals("confirmResponse", reply.getLocalName());
        assertEquals(NS, reply.getNamespaceURI());
        assertEquals("confirmed " + id + " for alice & bob, 2 nights, by hotel-room-a", reply.getTextContent());
        JsonNode s = status("hotel-room-a");
        assertEquals(1, s.get("reservations").asInt());
        assertEquals(1, s.get("confirmed").asInt());
        assertEquals(0, s.get("confirmsRefused").asInt());
        assertEquals(0, s.get("open").asInt());
        assertEquals(2, s.get("replied").asInt());
        assertEquals(0, status("hotel-room-b").get("requests").asInt());
    }

    @Test
    void aConfirmAtTheOtherProviderIsAFaultAndTheReservationStaysOpen() throws Exception {
        String id = reserved("hotel-room-a", "carol", 1);
        String[] f = fault(confirm("hotel-room-b", id));
        assertEquals("soap:Client", f[0]);
        assertEquals("unknown reservation " + id + " at hotel-room-b", f[1]);
        JsonNode b = status("hotel-room-b");
        assertEquals(1, b.get("confirmsRefused").asInt());
        assertEquals(0, b.get("confirmed").asInt());
        assertEquals(0, b.get("replied").asInt());
        assertEquals(1, status("hotel-room-a").get("open").asInt());
        // the provider that made it still confirms it, once
        assertEquals(200, confirm("hotel-room-a", id).statusCode());
        assertEquals("unknown reservation " + id + " at hotel-room-a", fault(confirm("hotel-room-a", id))[1]);
        JsonNode a = status("hotel-room-a");
        assertEquals(1, a.get("confirmed").asInt());
        assertEquals(1, a.get("confirmsRefused").asInt());
    }

    @Test
    void idsAreTheProvidersOwnAndNotReusedAfterAReset() throws Exception {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            ids.add(reserved("hotel-room-a", "dan", 1));
            ids.add(reserved("hotel-room-b", "dan", 1));
        }
        assertEquals(6, ids.size(), ids.toString());
        assertEquals(3, ids.stream().filter(id -> id.startsWith("hotel-room-b-")).count(), ids.toString());
        String before = reserved("hotel-room-a", "dan", 1);
        reset();
        JsonNode a = status("hotel-room-a");
        assertEquals(0, a.get("open").asInt());
        assertEquals(0, a.get("reservations").asInt());
        assertEquals("unknown reservation " + before + " at hotel-room-a", fault(confirm("hotel-room-a", before))[1]);
        String after = reserved("hotel-room-a", "dan", 1);
        assertTrue(!ids.contains(after) && !after.equals(before), after + " was issued before the reset");
    }

    @Test
    void concurrentReservationsGetDistinctIds() throws Exception {
        int n = 200;
        ExecutorService callers = Executors.newFixedThreadPool(8);
        try {
            List<CompletableFuture<String>> calls = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                String guest = "g" + i;
                calls.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return reserved("hotel-room-b", guest, 1);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, callers));
            }
            Set<String> ids = new HashSet<>();
            for (CompletableFuture<String> c : calls) ids.add(c.get(60, TimeUnit.SECONDS));
            assertEquals(n, ids.size());
        } finally {
            callers.shutdownNow();
        }
        JsonNode b = status("hotel-room-b");
        assertEquals(n, b.get("reservations").asInt());
        assertEquals(n, b.get("open").asInt());
    }

    @Test
    void aReserveBeyondTheOpenLimitFaultsUntilOneIsConfirmed() throws Exception {
        String first = reserved("small", "eve", 1);
        reserved("small", "eve", 1);
        String[] f = fault(reserve("small", "eve", "1"));
        assertEquals("soap:Server", f[0]);
        assertTrue(f[1].contains("small holds 2 open reservations, its limit"), f[1]);
        JsonNode s = status("small");
        assertEquals(1, s.get("reservesRefused").asInt());
        assertEquals(2, s.get("reservations").asInt());
        assertEquals(2, s.get("maxOpen").asInt());
        assertEquals(200, confirm("small", first).statusCode());
        reserved("small", "eve", 1);
    }

    @Test
    void aSimulatedFailureReservesNothing() throws Exception {
        HttpResponse<String> set = http.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/admin/services/hotel-room-a"))
                .PUT(HttpRequest.BodyPublishers.ofString("{\"failureProbability\":1}")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, set.statusCode(), set.body());
        assertTrue(fault(reserve("hotel-room-a", "fay", "1"))[1].contains("simulated failure of hotel-room-a"));
        JsonNode a = status("hotel-room-a");
        assertEquals(1, a.get("faults").asInt());
        assertEquals(0, a.get("reservations").asInt());
        assertEquals(0, a.get("open").asInt());
    }

    @Test
    void malformedRequestsAreRejected() throws Exception {
        assertTrue(fault(post("hotel-room-a", "<r:reserveRequest xmlns:r='" + NS + "'><r:nights>2</r:nights></r:reserveRequest>"))[1]
                .contains("children guest and nights"));
        assertTrue(fault(reserve("hotel-room-a", "gus", "two"))[1].contains("nights must be a whole number from 1, was 'two'"));
        assertTrue(fault(reserve("hotel-room-a", "gus", "0"))[1].contains("nights must be a whole number from 1"));
        assertTrue(fault(post("hotel-room-a", "<r:confirmRequest xmlns:r='" + NS + "'/>"))[1].contains("a child reservationId"));
        String[] other = fault(post("hotel-room-a", "<r:cancelRequest xmlns:r='" + NS + "'/>"));
        assertEquals("soap:Client", other[0]);
        assertTrue(other[1].contains("expects request element {" + NS + "}reserveRequest or {" + NS + "}confirmRequest"), other[1]);
        // unqualified children, as an rpc-minded caller would send them, are read too
        assertEquals(200, post("hotel-room-a", "<r:reserveRequest xmlns:r='" + NS + "'><guest>hal</guest><nights>1</nights></r:reserveRequest>")
                .statusCode());
        JsonNode a = status("hotel-room-a");
        assertEquals(5, a.get("rejected").asInt());
        assertEquals(1, a.get("reservations").asInt());
    }

    @Test
    void itsWsdlHasBothOperations() throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(server.url("hotel-room-a") + "?wsdl")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        Element defs = f.newDocumentBuilder().parse(new ByteArrayInputStream(r.body().getBytes(StandardCharsets.UTF_8))).getDocumentElement();
        Element portType = (Element) defs.getElementsByTagNameNS("http://schemas.xmlsoap.org/wsdl/", "portType").item(0);
        var operations = portType.getElementsByTagNameNS("http://schemas.xmlsoap.org/wsdl/", "operation");
        assertEquals(2, operations.getLength(), r.body());
        assertEquals("reserve", ((Element) operations.item(0)).getAttribute("name"));
        assertEquals("confirm", ((Element) operations.item(1)).getAttribute("name"));
        assertTrue(r.body().contains("<xsd:element name=\"confirmResponse\"/>"), r.body());
    }
}
