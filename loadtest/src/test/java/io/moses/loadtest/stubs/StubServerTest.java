package io.moses.loadtest.stubs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

/** The stub server over real sockets on 127.0.0.1. */
@Tag("e2e")
class StubServerTest {
    static final String CONFIG = """
            services:
              - name: flight-a
                namespace: urn:moses:task:flight
                request: findFlightRequest
                echo: customer
                reply: '<t:findFlightResponse xmlns:t="urn:moses:task:flight"><t:result>flight AZ${count} for ${echo} by ${service}</t:result></t:findFlightResponse>'
              - name: flight-b
                namespace: urn:moses:provider-b:flight
                request: searchFlights
                echo: client
                reply: '<b:searchFlightsResponse xmlns:b="urn:moses:provider-b:flight"><b:outcome>flight by ${service}</b:outcome></b:searchFlightsResponse>'
              - name: inventory
                namespace: urn:moses:task:inventory
                request: reserve
                style: rpc
                echo: amount
                reply: '<m:reserveResponse xmlns:m="urn:moses:task:inventory"><result>reserved ${echo} by ${service}</result></m:reserveResponse>'
            """;
    static final String SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/";
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
        assertEquals(200, admin("POST", "/admin/reset", "").statusCode());
    }

    static String envelope(String body) {
        return "<soap:Envelope xmlns:soap=\"" + SOAP11 + "\"><soap:Header/><soap:Body>" + body + "</soap:Body></soap:Envelope>";
    }

    static String flightRequest(String customer) {
        return envelope("<t:findFlightRequest xmlns:t=\"urn:moses:task:flight\"><t:customer>" + customer
                + "</t:customer><t:destination>Rome</t:destination></t:findFlightRequest>");
    }

    static HttpResponse<String> post(String service, String body) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(server.url(service))).timeout(Duration.ofSeconds(20))
                .header("Content-Type", "text/xml; charset=utf-8").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> admin(String method, String path, String body) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + path)).timeout(Duration.ofSeconds(10))
                .method(method, HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode status(String service) throws Exception {
        HttpResponse<String> r = admin("GET", "/admin/services/" + service, "");
        assertEquals(200, r.statusCode(), r.body());
        return JSON.readTree(r.body());
    }

    static Element bodyChild(String envelope) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        Element env = f.newDocumentBuilder().parse(new ByteArrayInputStream(envelope.getBytes(StandardCharsets.UTF_8))).getDocumentElement();
        Element body = (Element) env.getElementsByTagNameNS(env.getNamespaceURI(), "Body").item(0);
        for (var n = body.getFirstChild(); n != null; n = n.getNextSibling()) if (n instanceof Element e) return e;
        throw new AssertionError("empty SOAP body: " + envelope);
    }

    @Test
    void replyNamesTheServiceAndEchoesTheField() throws Exception {
        HttpResponse<String> r = post("flight-a", flightRequest("alice &amp; bob"));
        assertEquals(200, r.statusCode(), r.body());
        Element reply = bodyChild(r.body());
        assertEquals("urn:moses:task:flight", reply.getNamespaceURI());
        assertEquals("findFlightResponse", reply.getLocalName());
        assertEquals("flight AZ1 for alice & bob by flight-a", reply.getTextContent());
        assertEquals("flight AZ2 for carol by flight-a", bodyChild(post("flight-a", flightRequest("carol")).body()).getTextContent());
        JsonNode s = status("flight-a");
        assertEquals(2, s.get("requests").asInt());
        assertEquals(2, s.get("replied").asInt());
        assertEquals(0, status("flight-b").get("requests").asInt());
    }

    @Test
    void rpcRequestWithUnqualifiedPartsIsServed() throws Exception {
        HttpResponse<String> r = post("inventory", envelope(
                "<m:reserve xmlns:m=\"urn:moses:task:inventory\"><orderId>o1</orderId><item>w</item><amount>7</amount></m:reserve>"));
        assertEquals(200, r.statusCode(), r.body());
        assertEquals("reserved 7 by inventory", bodyChild(r.body()).getTextContent());
    }

    @Test
    void soap12RequestGetsASoap12Reply() throws Exception {
        String body = flightRequest("dan").replace(SOAP11, "http://www.w3.org/2003/05/soap-envelope");
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(server.url("flight-a")))
                .header("Content-Type", "application/soap+xml; charset=utf-8").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/soap+xml"));
        assertTrue(r.body().contains("http://www.w3.org/2003/05/soap-envelope"), r.body());
    }

    @Test
    void fixedLatencyIsHonoured() throws Exception {
        HttpResponse<String> set = admin("PUT", "/admin/services/flight-a", "{\"latencyMs\":100,\"distribution\":\"fixed\"}");
        assertEquals(200, set.statusCode(), set.body());
        assertEquals(100.0, JSON.readTree(set.body()).get("latencyMs").asDouble());
        post("flight-a", flightRequest("warm-up"));
        for (int i = 0; i < 3; i++) {
            long t0 = System.nanoTime();
            HttpResponse<String> r = post("flight-a", flightRequest("eve"));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(200, r.statusCode());
            assertTrue(ms >= 100, "answered after " + ms + " ms, latency is 100 ms");
        }
    }

    @Test
    void unknownElementGetsAFaultSayingWhatWasExpected() throws Exception {
        HttpResponse<String> r = post("flight-b", flightRequest("frank"));
        assertEquals(500, r.statusCode());
        Element fault = bodyChild(r.body());
        assertEquals("Fault", fault.getLocalName());
        String text = fault.getTextContent();
        assertTrue(text.contains("{urn:moses:provider-b:flight}searchFlights"), text);
        assertTrue(text.contains("{urn:moses:task:flight}findFlightRequest"), text);
        assertEquals(1, status("flight-b").get("rejected").asInt());
    }

    @Test
    void missingEchoFieldGetsAFault() throws Exception {
        // the right element, but its child still in the abstract namespace: a half-done payload adaptation
        HttpResponse<String> r = post("flight-b", envelope("<b:searchFlights xmlns:b=\"urn:moses:provider-b:flight\" xmlns:t=\"urn:moses:task:flight\">"
                + "<t:client>gina</t:client></b:searchFlights>"));
        assertEquals(500, r.statusCode());
        assertTrue(r.body().contains("lacks child client"), r.body());
        HttpResponse<String> ok = post("flight-b", envelope("<b:searchFlights xmlns:b=\"urn:moses:provider-b:flight\"><b:client>gina</b:client></b:searchFlights>"));
        assertEquals(200, ok.statusCode(), ok.body());
        assertEquals("flight by flight-b", bodyChild(ok.body()).getTextContent());
    }

    @Test
    void malformedXmlAndDtdsGetFaults() throws Exception {
        HttpResponse<String> broken = post("flight-a", "<soap:Envelope xmlns:soap=\"" + SOAP11 + "\"><soap:Body><unclosed>");
        assertEquals(500, broken.statusCode());
        assertTrue(bodyChild(broken.body()).getTextContent().contains("malformed"), broken.body());

        HttpResponse<String> notSoap = post("flight-a", "<hello/>");
        assertEquals(500, notSoap.statusCode());
        assertTrue(notSoap.body().contains("not a SOAP envelope"), notSoap.body());

        HttpResponse<String> xxe = post("flight-a", "<?xml version=\"1.0\"?><!DOCTYPE e [<!ENTITY x SYSTEM \"file:///etc/hostname\">]>"
                + flightRequest("&x;"));
        assertEquals(500, xxe.statusCode());
        assertTrue(xxe.body().contains("DTDs are not allowed"), xxe.body());
        assertEquals(3, status("flight-a").get("rejected").asInt());
        assertEquals(0, status("flight-a").get("replied").asInt());
    }

    @Test
    void failureKindFaultAnswersWithASoapFault() throws Exception {
        assertEquals(200, admin("POST", "/admin/services/flight-a", "{\"failureProbability\":1,\"failureKind\":\"fault\"}").statusCode());
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> r = post("flight-a", flightRequest("hal"));
            assertEquals(500, r.statusCode());
            assertTrue(r.body().contains("simulated failure of flight-a"), r.body());
        }
        assertEquals(3, status("flight-a").get("faults").asInt());
    }

    @Test
    void failureKindDropClosesTheConnectionWithoutAResponse() throws Exception {
        assertEquals(200, admin("PUT", "/admin/services/flight-a", "{\"failureProbability\":1.0,\"failureKind\":\"drop\"}").statusCode());
        assertThrows(IOException.class, () -> post("flight-a", flightRequest("ian")));
        assertEquals(1, status("flight-a").get("dropped").asInt());
        assertEquals(200, admin("PUT", "/admin/services/flight-a", "{\"failureProbability\":0}").statusCode());
        assertEquals(200, post("flight-a", flightRequest("ian")).statusCode());
    }

    @Test
    void failureProbabilityIsAProbability() throws Exception {
        assertEquals(200, admin("PUT", "/admin/services/flight-a", "{\"failureProbability\":0.3}").statusCode());
        int faults = 0;
        for (int i = 0; i < 300; i++) if (post("flight-a", flightRequest("jo")).statusCode() == 500) faults++;
        assertTrue(faults > 50 && faults < 130, faults + " faults out of 300 at p = 0.3");
        assertEquals(faults, status("flight-a").get("faults").asInt());
    }

    @Test
    void downServiceRefusesWith503UntilItIsUpAgain() throws Exception {
        HttpResponse<String> down = admin("PUT", "/admin/services/flight-a", "{\"up\":false}");
        assertEquals(200, down.statusCode());
        assertFalse(JSON.readTree(down.body()).get("up").asBoolean());
        HttpResponse<String> r = post("flight-a", flightRequest("kim"));
        assertEquals(503, r.statusCode());
        assertEquals("close", r.headers().firstValue("Connection").orElse(""));
        assertTrue(r.body().contains("flight-a is down"), r.body());
        HttpResponse<String> wsdl = http.send(HttpRequest.newBuilder(URI.create(server.url("flight-a") + "?wsdl")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(503, wsdl.statusCode());
        assertEquals(1, status("flight-a").get("refused").asInt());

        assertEquals(200, admin("PUT", "/admin/services/flight-a", "{\"up\":true}").statusCode());
        assertEquals(200, post("flight-a", flightRequest("kim")).statusCode());
        assertEquals(200, post("flight-b", envelope("<b:searchFlights xmlns:b=\"urn:moses:provider-b:flight\"><b:client>x</b:client></b:searchFlights>")).statusCode());
    }

    @Test
    void wsdlIsServed() throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(server.url("flight-b") + "?wsdl")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        Element defs = f.newDocumentBuilder().parse(new ByteArrayInputStream(r.body().getBytes(StandardCharsets.UTF_8))).getDocumentElement();
        assertEquals("definitions", defs.getLocalName());
        assertEquals("urn:moses:provider-b:flight", defs.getAttribute("targetNamespace"));
        Element address = (Element) defs.getElementsByTagNameNS("http://schemas.xmlsoap.org/wsdl/soap/", "address").item(0);
        assertEquals(server.url("flight-b"), address.getAttribute("location"));
        assertEquals(1, status("flight-b").get("wsdlRequests").asInt());
    }

    @Test
    void adminApiListsServicesAndRejectsBadInput() throws Exception {
        JsonNode all = JSON.readTree(admin("GET", "/admin/services", "").body());
        assertEquals(3, all.size());
        assertEquals("flight-a", all.get(0).get("name").asText());
        assertEquals("{urn:moses:task:flight}findFlightRequest", all.get(0).get("request").asText());

        HttpResponse<String> badJson = admin("PUT", "/admin/services/flight-a", "{\"latencyMs\":");
        assertEquals(400, badJson.statusCode());
        assertTrue(JSON.readTree(badJson.body()).get("error").asText().contains("not valid JSON"), badJson.body());

        HttpResponse<String> unknownField = admin("PUT", "/admin/services/flight-a", "{\"latency\":5}");
        assertEquals(400, unknownField.statusCode());
        assertTrue(unknownField.body().contains("unknown field 'latency'"), unknownField.body());

        HttpResponse<String> badValue = admin("PUT", "/admin/services/flight-a", "{\"failureProbability\":1.5}");
        assertEquals(400, badValue.statusCode());
        assertTrue(badValue.body().contains("failureProbability must be in [0, 1]"), badValue.body());

        HttpResponse<String> badKind = admin("PUT", "/admin/services/flight-a", "{\"failureKind\":\"explode\"}");
        assertEquals(400, badKind.statusCode());
        assertTrue(badKind.body().contains("fault, drop"), badKind.body());

        HttpResponse<String> notObject = admin("PUT", "/admin/services/flight-a", "[1]");
        assertEquals(400, notObject.statusCode());

        assertEquals(404, admin("PUT", "/admin/services/nope", "{\"up\":false}").statusCode());
        assertEquals(404, admin("GET", "/admin/services/nope", "").statusCode());
        assertEquals(404, post("nope", flightRequest("x")).statusCode());
        assertEquals(405, admin("DELETE", "/admin/services/flight-a", "").statusCode());
        // nothing of the above changed the service
        assertEquals(0.0, status("flight-a").get("failureProbability").asDouble());
    }

    @Test
    void anErrorAnsweredBeforeTheBodyIsReadClosesTheConnection() throws Exception {
        // Only part of the body has arrived when the stub answers 404 (unknown service): Jetty must
        // close the connection to drop the rest, so the reply has to say so; a client that reused
        // the connection without that header got no answer at all (a flaky CI run).
        for (String head : List.of("PUT /admin/services/nope", "POST /stubs/nope", "DELETE /admin/services/flight-a")) {
            try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.port())) {
                socket.setSoTimeout(30_000);
                var out = socket.getOutputStream();
                out.write((head + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/xml\r\nContent-Length: 200000\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.write(new byte[1000]);
                out.flush();
                var in = new java.io.BufferedReader(new java.io.InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
                String status = in.readLine();
                assertTrue(status != null && (status.contains(" 404 ") || status.contains(" 405 ")), head + ": " + status);
                List<String> headers = new ArrayList<>();
                for (String h = in.readLine(); h != null && !h.isEmpty(); h = in.readLine()) headers.add(h.toLowerCase());
                assertTrue(headers.contains("connection: close"), head + ": " + headers);
            }
        }
        // a request whose body was read keeps its connection after an error
        HttpResponse<String> badJson = admin("PUT", "/admin/services/flight-a", "{\"latencyMs\":");
        assertEquals(400, badJson.statusCode());
        assertFalse(badJson.headers().firstValue("Connection").orElse("").equalsIgnoreCase("close"), badJson.headers().toString());
    }

    @Test
    void resetRestoresConfiguredSettingsAndZeroesCounts() throws Exception {
        post("flight-a", flightRequest("lee"));
        admin("PUT", "/admin/services/flight-a", "{\"up\":false,\"latencyMs\":5,\"distribution\":\"exponential\"}");
        post("flight-a", flightRequest("lee"));
        JsonNode before = status("flight-a");
        assertEquals(2, before.get("requests").asInt());
        assertEquals("exponential", before.get("distribution").asText());
        HttpResponse<String> r = admin("POST", "/admin/reset", "");
        assertEquals(200, r.statusCode());
        JsonNode after = status("flight-a");
        assertEquals(0, after.get("requests").asInt());
        assertEquals(0, after.get("refused").asInt());
        assertTrue(after.get("up").asBoolean());
        assertEquals("fixed", after.get("distribution").asText());
        assertEquals(0.0, after.get("latencyMs").asDouble());
    }

    @Test
    void manyConcurrentSlowRequestsDoNotHoldThreads() throws Exception {
        // 1000 requests each delayed 10 s: all of them are waiting at once, which a server holding a
        // thread per request (at most 200 threads) could not do; shown by the counters, not a clock
        admin("PUT", "/admin/services/flight-a", "{\"latencyMs\":10000,\"distribution\":\"fixed\"}");
        HttpClient many = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
        int n = 1000;
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>(n);
        for (int i = 0; i < n; i++)
            calls.add(many.sendAsync(HttpRequest.newBuilder(URI.create(server.url("flight-a"))).timeout(Duration.ofSeconds(60))
                    .header("Content-Type", "text/xml").POST(HttpRequest.BodyPublishers.ofString(flightRequest("c" + i))).build(),
                    HttpResponse.BodyHandlers.ofString()));
        JsonNode waiting = status("flight-a");
        for (long deadline = System.nanoTime() + 30_000_000_000L; waiting.get("requests").asInt() < n && System.nanoTime() < deadline; )
            waiting = status("flight-a");
        assertEquals(n, waiting.get("requests").asInt(), "every request arrived: " + waiting);
        assertEquals(0, waiting.get("replied").asInt(), "all " + n + " were waiting at once: " + waiting);
        int ok = 0;
        for (CompletableFuture<HttpResponse<String>> c : calls) if (c.get().statusCode() == 200) ok++;
        assertEquals(n, ok);
        assertEquals(n, status("flight-a").get("replied").asInt());
    }
}
