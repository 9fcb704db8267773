package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.model.ConcreteService;
import io.moses.model.ProviderSla;
import io.moses.model.TaskRef;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The broker in this JVM, a real socket in front, a real partner behind. */
class BrokerInProcessTest {
    static EchoPartner partner;
    static Broker broker;
    static HttpClient http = HttpClient.newHttpClient();
    @TempDir static Path work;

    @BeforeAll
    static void start() throws Exception {
        partner = new EchoPartner(100);
        Map<TaskRef, ConcreteService> bindings = Map.of(
                TaskRef.of("EchoPair", "left", "echo"), service("left-1", "left", partner.url("/left")),
                TaskRef.of("EchoPair", "right", "echo"), service("right-1", "right", partner.url("/right")));
        BrokerConfig config = BrokerConfig.defaults().withPort(0).withWorkDir(work)
                .withDeployments(java.util.List.of(Path.of("src/test/resources/processes/echo-pair")));
        broker = new Broker(config, bindings);
        broker.start();
    }

    static ConcreteService service(String name, String plink, String url) {
        return new ConcreteService(name, TaskRef.of("EchoPair", plink, "echo"), URI.create(url),
                new ProviderSla(0.1, 0.99, 1, 100), null);
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
        long start = System.nanoTime();
        HttpResponse<String> r = post("/services/EchoPairService", pair("hello"));
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(r.body().contains("hello via /left"), r.body());
        assertTrue(r.body().contains("hello via /right"), r.body());
        // two 100 ms partners in a flow: well under the sequential 200 ms
        assertTrue(millis < 190, "took " + millis + " ms");
    }
}
