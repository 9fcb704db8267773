package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.core.loop.Adaptation;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The broker in this JVM, a real socket in front, a real partner behind. */
@Tag("e2e")
class BrokerInProcessTest {
    static EchoPartner partner;
    static Broker broker;
    static HttpClient http = HttpClient.newHttpClient();
    @TempDir static Path work;

    @BeforeAll
    static void start() throws Exception {
        partner = new EchoPartner(100);
        java.nio.file.Files.writeString(work.resolve("seed.yaml"), """
                composite: EchoPair
                services:
                  - {name: left-1, task: left.echo, endpoint: "${PARTNER}/left", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 100}
                  - {name: right-1, task: right.echo, endpoint: "${PARTNER}/right", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 100}
                """);
        BrokerConfig config = BrokerConfig.defaults().withAdaptation(Adaptation.off()).withPort(0).withWorkDir(work).withDb("mem:inprocess")
                .withSeeds(List.of(work.resolve("seed.yaml"))).withVariables(Map.of("PARTNER", partner.url("")))
                .withDeployments(java.util.List.of(Path.of("src/test/resources/processes/echo-pair")));
        broker = new Broker(config);
        broker.start();
    }

    @AfterAll
    static void stop() {
        if (broker != null) broker.close();
        if (partner != null) partner.close();
    }

    static HttpResponse<String> post(String path, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + broker.port() + path))
                .header("Content-Type", "text/xml; charset=utf-8")
                .header("SOAPAction", "\"urn:moses:test:echo-pair/pair\"")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static String pair(String text) {
        return "<s:Envelope xmlns:s='http://schemas.xmlsoap.org/soap/envelope/'><s:Body>"
                + "<e:pair xmlns:e='urn:moses:test:echo-pair'><e:text>" + text + "</e:text></e:pair></s:Body></s:Envelope>";
    }

    @Test
    void flowInvokesBothPartnersConcurrently() throws Exception {
        post("/services/EchoPairService", pair("warmup"));
        partner.peakInFlight.set(0);
        HttpResponse<String> r = post("/services/EchoPairService", pair("hello"));
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(r.body().contains("hello via /left"), r.body());
        assertTrue(r.body().contains("hello via /right"), r.body());
        // two 100 ms partners in a flow: both calls were open at the same time (one after the other, never more than one)
        assertEquals(2, partner.peakInFlight.get(), "calls in flight at once");
    }

    static void assertFault(HttpResponse<String> r, String faultCode, String reason) {
        assertEquals(500, r.statusCode(), r.body());
        assertTrue(r.body().contains("<faultcode>soap:" + faultCode + "</faultcode>"), r.body());
        assertTrue(r.body().contains(reason), "expected '" + reason + "' in " + r.body());
        assertTrue(!r.body().contains("\tat "), "no stack trace: " + r.body());
    }

    static final String ENV = "<s:Envelope xmlns:s='http://schemas.xmlsoap.org/soap/envelope/'><s:Body>";
    static final String END = "</s:Body></s:Envelope>";

    @Test
    void malformedXmlIsAClientFault() throws Exception {
        assertFault(post("/services/EchoPairService", ENV + "<e:pair"), "Client", "Unexpected end of input");
    }

    @Test
    void aBodyThatIsNotSoapIsRefused() throws Exception {
        assertFault(post("/services/EchoPairService", "<hello>world</hello>"), "VersionMismatch", "You must send a SOAP message");
    }

    @Test
    void anUnknownOperationNamesWhatWasExpected() throws Exception {
        assertFault(post("/services/EchoPairService", ENV + "<e:nothing xmlns:e='urn:moses:test:echo-pair'/>" + END),
                "Client", "expects element {urn:moses:test:echo-pair}pair");
    }

    @Test
    void externalEntitiesAndEntityBombsAreRefused() throws Exception {
        String xxe = "<?xml version='1.0'?><!DOCTYPE d [<!ENTITY x SYSTEM 'file:///etc/passwd'>]>" + ENV
                + "<e:pair xmlns:e='urn:moses:test:echo-pair'><e:text>&x;</e:text></e:pair>" + END;
        HttpResponse<String> r = post("/services/EchoPairService", xxe);
        assertFault(r, "Client", "DTD");
        assertTrue(!r.body().contains("root:"), "file content leaked");
        String bomb = "<?xml version='1.0'?><!DOCTYPE d [<!ENTITY a 'aaaaaaaaaa'><!ENTITY b '&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;'>"
                + "<!ENTITY c '&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;'>]>" + ENV
                + "<e:pair xmlns:e='urn:moses:test:echo-pair'><e:text>&c;</e:text></e:pair>" + END;
        assertFault(post("/services/EchoPairService", bomb), "Client", "DTD");
    }

    @Test
    void unknownPathsAre404() throws Exception {
        assertEquals(404, post("/services/Nope", pair("x")).statusCode());
        HttpResponse<String> r = post("/elsewhere", pair("x"));
        assertEquals(404, r.statusCode());
        assertTrue(r.body().contains("/services/"), r.body());
    }

    @Test
    void oversizedBodiesAreRefusedWith413() throws Exception {
        // several in a row: the broker reads a refused body before it answers and closes, so the
        // close cannot reset the connection under the client before it reads the 413
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> r = post("/services/EchoPairService", pair("x".repeat(2_000_000)));
            assertEquals(413, r.statusCode());
            assertTrue(r.body().contains("larger than the limit"), r.body());
        }
    }

    @Test
    void aFailingConcreteServiceFaultsTheRequestAndTheBrokerKeepsServing() throws Exception {
        partner.fault = true;
        try {
            assertFault(post("/services/EchoPairService", pair("x")), "Server", "answered echo with a SOAP fault: partner broken");
        } finally {
            partner.fault = false;
        }
        HttpResponse<String> r = post("/services/EchoPairService", pair("after"));
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(r.body().contains("after via /left"), r.body());
    }

    @Test
    void wsdlHealthAndMetricsAreServed() throws Exception {
        post("/services/EchoPairService", pair("m"));
        String base = "http://127.0.0.1:" + broker.port();
        HttpResponse<String> wsdl = http.send(HttpRequest.newBuilder(URI.create(base + "/services/EchoPairService?wsdl")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, wsdl.statusCode());
        assertTrue(wsdl.body().contains("EchoPairService") && wsdl.body().contains("127.0.0.1:" + broker.port()), wsdl.body());
        HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create(base + "/health")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, health.statusCode());
        assertTrue(health.body().contains("\"status\" : \"UP\"") && health.body().contains("/services/EchoPairService"), health.body());
        HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, metrics.statusCode());
        assertTrue(metrics.body().contains("moses_composite_requests_seconds_count{composite=\"EchoPair\",outcome=\"ok\"}"), metrics.body());
        assertTrue(metrics.body().contains("moses_concrete_invokes_seconds_bucket{composite=\"EchoPair\""), "latency histogram per concrete service");
        assertTrue(metrics.body().contains("service=\"left-1\""), "per concrete service");
    }
}
