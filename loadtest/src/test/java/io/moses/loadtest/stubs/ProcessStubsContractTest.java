package io.moses.loadtest.stubs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The default stubs answer what the shipped processes send: for every partner WSDL of
 * bpel-processes/, the stub at its default address accepts a request built from that WSDL and
 * answers with the WSDL's response element carrying a {@code result}.
 */
@Tag("e2e")
class ProcessStubsContractTest {
    static final String WSDL = "http://schemas.xmlsoap.org/wsdl/";
    static final String SOAP = "http://schemas.xmlsoap.org/wsdl/soap/";
    static final String XSD = "http://www.w3.org/2001/XMLSchema";

    static List<Element> all(Element root, String ns, String local) {
        NodeList nodes = root.getElementsByTagNameNS(ns, local);
        List<Element> out = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) out.add((Element) nodes.item(i));
        return out;
    }

    @Test
    void defaultStubsServeEveryPartnerOfTheShippedProcesses() throws Exception {
        Path processes = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().resolve("../bpel-processes").normalize();
        assumeTrue(Files.isDirectory(processes.resolve("trip-planner")), "bpel-processes/ not beside loadtest/");
        Map<String, StubSpec> stubs = StubConfig.defaults().services().stream()
                .collect(Collectors.toMap(StubSpec::name, Function.identity()));
        List<Path> wsdls;
        try (Stream<Path> files = Files.walk(processes)) {
            wsdls = files.filter(p -> p.toString().endsWith(".wsdl") && !p.toString().contains("/target/") && !p.toString().contains("/src/")).toList();
        }
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        int partners = 0;
        try (StubServer server = StubServer.start(StubConfig.defaults(), "127.0.0.1", 0)) {
            HttpClient http = HttpClient.newHttpClient();
            for (Path wsdl : wsdls) {
                Element defs = f.newDocumentBuilder().parse(wsdl.toFile()).getDocumentElement();
                String tns = defs.getAttribute("targetNamespace");
                if (!tns.startsWith("urn:moses:task:")) continue; // a provided service, not a partner
                partners++;
                String address = all(defs, SOAP, "address").get(0).getAttribute("location");
                String stubName = address.substring(address.lastIndexOf('/') + 1);
                assertEquals("http://localhost:9090/stubs/" + stubName, address);
                StubSpec stub = stubs.get(stubName);
                assertNotNull(stub, wsdl + ": no default stub " + stubName);
                assertEquals(tns, stub.namespace(), stubName);
                boolean rpc = "rpc".equals(all(defs, SOAP, "binding").get(0).getAttribute("style"));
                String operation = all(defs, WSDL, "operation").get(0).getAttribute("name");
                String body;
                if (rpc) {
                    assertEquals(operation, stub.requestElement(), stubName);
                    assertEquals(operation + "Response", stub.replyElement(), stubName);
                    StringBuilder parts = new StringBuilder();
                    Element input = all(defs, WSDL, "message").get(0);
                    for (Element part : all(input, WSDL, "part"))
                        parts.append('<').append(part.getAttribute("name")).append(">1</").append(part.getAttribute("name")).append('>');
                    body = "<m:" + operation + " xmlns:m=\"" + tns + "\">" + parts + "</m:" + operation + ">";
                } else {
                    List<Element> elements = all(defs, XSD, "element").stream().filter(e -> e.getParentNode().getLocalName().equals("schema")).toList();
                    Element request = elements.get(0), response = elements.get(1);
                    assertEquals(request.getAttribute("name"), stub.requestElement(), stubName);
                    assertEquals(response.getAttribute("name"), stub.replyElement(), stubName);
                    body = request(tns, request, "1");
                    if (stub.async() != null) {
                        // an asynchronous service: the one-way request taken, then the callback the WSDL declares
                        assertEquals(List.of("requestId", "replyTo", "item"), names(request), stubName);
                        assertEquals(List.of("requestId", "price"), names(response), stubName);
                        assertCallsBack(http, server.url(stubName), tns, request, response);
                        continue;
                    }
                    if (stub.reservations() != null) {
                        // a reservation service: reserve, then confirm the id it answered, both as the WSDL says
                        Element confirm = elements.get(2);
                        assertEquals(StubSpec.Reservations.CONFIRM_REQUEST, confirm.getAttribute("name"), stubName);
                        assertEquals(StubSpec.Reservations.CONFIRM_RESPONSE, elements.get(3).getAttribute("name"), stubName);
                        String reserved = post(http, server.url(stubName), body);
                        String id = reserved.replaceAll("(?s).*<(\\w+:)?reservationId>([^<]*)<.*", "$2");
                        assertTrue(id.startsWith(stubName + "-"), reserved);
                        body = request(tns, confirm, id);
                    }
                }
                String reply = post(http, server.url(stubName), body);
                assertTrue(reply.contains("result>") && reply.contains("by " + stubName), reply);
            }
        }
        assertEquals(11, partners, "partner WSDLs found: " + wsdls); // order-confirmation has its own copy of Inventory.wsdl
    }

    /** The names of the child elements a schema element declares, in order. */
    static List<String> names(Element element) {
        return all(element, XSD, "element").stream().map(e -> e.getAttribute("name")).toList();
    }

    /**
     * Sends {@code request} with a replyTo of a small server's own and checks the stub answers 202,
     * then calls back with the {@code callback} element, its children in the WSDL's order.
     */
    static void assertCallsBack(HttpClient http, String url, String tns, Element request, Element callback) throws Exception {
        BlockingQueue<String> received = new LinkedBlockingQueue<>();
        HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 4);
        receiver.createContext("/", exchange -> {
            received.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            exchange.sendResponseHeaders(202, -1);
            exchange.close();
        });
        receiver.start();
        try {
            String replyTo = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/callback";
            String body = request(tns, request, "1").replace("<t:replyTo>1</t:replyTo>", "<t:replyTo>" + replyTo + "</t:replyTo>");
            String envelope = "<s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\"><s:Body>" + body + "</s:Body></s:Envelope>";
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url))
                    .header("Content-Type", "text/xml").POST(HttpRequest.BodyPublishers.ofString(envelope)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(202, r.statusCode(), url + ": " + r.body());
            String sent = received.poll(10, TimeUnit.SECONDS);
            assertNotNull(sent, url + " did not call back within 10 s");
            Element ready = StubServerTest.bodyChild(sent);
            assertEquals("{" + tns + "}" + callback.getAttribute("name"), "{" + ready.getNamespaceURI() + "}" + ready.getLocalName(), sent);
            List<String> children = new ArrayList<>();
            for (var n = ready.getFirstChild(); n != null; n = n.getNextSibling())
                if (n instanceof Element e && tns.equals(e.getNamespaceURI())) children.add(e.getLocalName());
            assertEquals(names(callback), children, sent);
        } finally {
            receiver.stop(0);
        }
    }

    /** A document/literal request element as the schema declares it, every child's text {@code text}. */
    static String request(String tns, Element element, String text) {
        StringBuilder children = new StringBuilder();
        for (Element child : all(element, XSD, "element"))
            children.append("<t:").append(child.getAttribute("name")).append('>').append(text).append("</t:").append(child.getAttribute("name")).append('>');
        String name = element.getAttribute("name");
        return "<t:" + name + " xmlns:t=\"" + tns + "\">" + children + "</t:" + name + ">";
    }

    /** Posts one SOAP 1.1 request; returns the reply, which must be a 200. */
    static String post(HttpClient http, String url, String body) throws Exception {
        String envelope = "<s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\"><s:Body>" + body + "</s:Body></s:Envelope>";
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url))
                .header("Content-Type", "text/xml").POST(HttpRequest.BodyPublishers.ofString(envelope)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), url + ": " + r.body());
        return r.body();
    }
}
