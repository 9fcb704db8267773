package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.core.loop.Adaptation;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partner whose WSDL binding is SOAP 1.2 is sent SOAP 1.2: the echo pair with its
 * right partner's port bound with soap12, both partners behind a real socket.
 */
@Tag("e2e")
class Soap12PartnerTest {
    static EchoPartner partner;
    static Broker broker;
    @TempDir static Path work;

    @BeforeAll
    static void start() throws Exception {
        partner = new EchoPartner(0);
        Path deployment = work.resolve("echo-pair-12");
        Files.createDirectories(deployment);
        Path source = Path.of("src/test/resources/processes/echo-pair");
        for (String f : List.of("EchoPair.bpel", "EchoPair.wsdl", "deploy.xml"))
            Files.copy(source.resolve(f), deployment.resolve(f));
        // the right port on a SOAP 1.2 binding of the same port type
        String wsdl = Files.readString(source.resolve("Partner.wsdl"))
                .replace("xmlns:soap=\"http://schemas.xmlsoap.org/wsdl/soap/\"",
                        "xmlns:soap=\"http://schemas.xmlsoap.org/wsdl/soap/\" xmlns:soap12=\"http://schemas.xmlsoap.org/wsdl/soap12/\"")
                .replace("  <service name=\"PartnerService\">", """
                          <binding name="EchoBinding12" type="tns:EchoPortType">
                            <soap12:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
                            <operation name="echo"><soap12:operation soapAction="urn:moses:test:partner/echo"/>
                              <input><soap12:body use="literal"/></input><output><soap12:body use="literal"/></output></operation>
                          </binding>
                          <service name="PartnerService">""")
                .replace("<port name=\"RightPort\" binding=\"tns:EchoBinding\"><soap:address location=\"http://127.0.0.1:19091/right\"/></port>",
                        "<port name=\"RightPort\" binding=\"tns:EchoBinding12\"><soap12:address location=\"http://127.0.0.1:19091/right\"/></port>");
        assertTrue(wsdl.contains("soap12:address"), "the WSDL was rewritten");
        Files.writeString(deployment.resolve("Partner.wsdl"), wsdl);
        Files.writeString(work.resolve("seed.yaml"), """
                composite: EchoPair
                services:
                  - {name: left-1, task: left.echo, endpoint: "${PARTNER}/left", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 100}
                  - {name: right-1, task: right.echo, endpoint: "${PARTNER}/right", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 100}
                """);
        BrokerConfig config = BrokerConfig.defaults().withAdaptation(Adaptation.off()).withPort(0).withWorkDir(work).withDb("mem:soap12")
                .withSeeds(List.of(work.resolve("seed.yaml"))).withVariables(Map.of("PARTNER", partner.url("")))
                .withDeployments(List.of(deployment));
        broker = new Broker(config);
        broker.start();
    }

    @AfterAll
    static void stop() {
        if (broker != null) broker.close();
        if (partner != null) partner.close();
    }

    static HttpResponse<String> pair(String text) throws Exception {
        return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create("http://127.0.0.1:" + broker.port() + "/services/EchoPairService"))
                .header("Content-Type", "text/xml; charset=utf-8")
                .header("SOAPAction", "\"urn:moses:test:echo-pair/pair\"")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(BrokerInProcessTest.pair(text))).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void eachPartnerIsSentTheSoapVersionOfItsWsdlBinding() throws Exception {
        HttpResponse<String> r = pair("hello");
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(r.body().contains("hello via /left") && r.body().contains("hello via /right"), r.body());

        String[] left = partner.lastRequest.get("/left");
        assertEquals("text/xml; charset=utf-8", left[0]);
        assertEquals("\"urn:moses:test:partner/echo\"", left[1]);
        assertTrue(left[2].contains("\"http://schemas.xmlsoap.org/soap/envelope/\""), left[2]);

        String[] right = partner.lastRequest.get("/right");
        assertEquals("application/soap+xml; charset=utf-8; action=\"urn:moses:test:partner/echo\"", right[0]);
        assertNull(right[1], "no SOAPAction header in SOAP 1.2");
        assertTrue(right[2].contains("\"http://www.w3.org/2003/05/soap-envelope\""), right[2]);
        assertTrue(!right[2].contains("http://schemas.xmlsoap.org/soap/envelope/"), right[2]);
    }

    @Test
    void aSoap12FaultReachesTheCallerWithItsReason() throws Exception {
        partner.fault = true;
        try {
            HttpResponse<String> r = pair("x");
            BrokerInProcessTest.assertFault(r, "Server", "answered echo with a SOAP fault: partner broken");
        } finally {
            partner.fault = false;
        }
    }
}
