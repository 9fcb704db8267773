package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.moses.core.loop.Adaptation;
import java.io.ByteArrayInputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * A process copies the client's request element whole into a partner message of
 * another namespace, and the partner's reply whole into the client's reply. Whether the client
 * puts its element in a default namespace or uses a prefix, and wherever it declares the
 * prefixes its xsi:type values use, the partner gets well-formed XML (it parses what it gets
 * with a namespace-aware parser and faults otherwise, as SOAP stacks do) in the namespaces the
 * WSDL says, and so does the client, with the reply or with the process's declared fault.
 */
@Tag("e2e")
class NamespacesEndToEndTest {
    static final String SOAP = "http://schemas.xmlsoap.org/soap/envelope/";
    static final String XSI = "http://www.w3.org/2001/XMLSchema-instance";
    static final String ORDERS = "urn:moses:test:orders";
    static final String SUPPLIER = "urn:moses:test:supplier";
    static final String TYPES = "urn:moses:test:types";
    /** An item the supplier answers with its declared fault. */
    static final String SOLD_OUT = "Atlantis";

    static HttpServer supplier;
    /** Every request body the supplier got, as sent. */
    static final List<String> received = new CopyOnWriteArrayList<>();
    static Broker broker;
    static final HttpClient http = HttpClient.newHttpClient();
    @TempDir static Path work;

    static Element parse(String xml) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        return f.newDocumentBuilder().parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8))).getDocumentElement();
    }

    static Element firstElement(Node parent) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling())
            if (n instanceof Element e) return e;
        throw new AssertionError("no element in " + parent.getNodeName());
    }

    static Element child(Element parent, String local) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling())
            if (n instanceof Element e && local.equals(e.getLocalName())) return e;
        throw new AssertionError("no " + local + " in " + parent.getNodeName());
    }

    /** The SOAP body's payload of an envelope, parsed namespace-aware. */
    static Element payload(String envelope) throws Exception {
        Element env = parse(envelope);
        assertEquals(SOAP, env.getNamespaceURI(), envelope);
        return firstElement(child(env, "Body"));
    }

    /** The namespace the prefix of an xsi:type value resolves to where it is. */
    static String xsiTypeNamespace(Element e) {
        String value = e.getAttributeNS(XSI, "type");
        assertTrue(value.contains(":"), "a prefixed xsi:type on " + e.getLocalName());
        return e.lookupNamespaceURI(value.substring(0, value.indexOf(':')));
    }

    @BeforeAll
    static void start() throws Exception {
        supplier = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
        supplier.createContext("/", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            received.add(body);
            String reply;
            int status = 200;
            try {
                Element order = payload(body);
                String item = child(order, "item").getTextContent();
                // answers in a default namespace, with an xsi:type whose prefix only the envelope declares
                String envelope = "<s:Envelope xmlns:s='" + SOAP + "' xmlns:xsi='" + XSI + "' xmlns:k='" + TYPES + "'><s:Body>";
                if (item.equals(SOLD_OUT)) {
                    status = 500;
                    reply = envelope + "<s:Fault><faultcode>s:Server</faultcode><faultstring>out of stock</faultstring><detail>"
                            + "<outOfStock xmlns='" + SUPPLIER + "'><status xsi:type='k:Status'>sold out</status>"
                            + "<item>" + item + "</item><plain xmlns=''>kept</plain></outOfStock></detail></s:Fault></s:Body></s:Envelope>";
                } else {
                    reply = envelope + "<confirmation xmlns='" + SUPPLIER + "'><status xsi:type='k:Status'>accepted</status>"
                            + "<item>" + item + "</item><plain xmlns=''>kept</plain></confirmation></s:Body></s:Envelope>";
                }
            } catch (Exception e) {
                status = 500;
                reply = "<s:Envelope xmlns:s='" + SOAP + "'><s:Body><s:Fault><faultcode>s:Client</faultcode><faultstring>"
                        + "not well-formed: " + e.getMessage().replace("&", "&amp;").replace("<", "&lt;")
                        + "</faultstring></s:Fault></s:Body></s:Envelope>";
            }
            byte[] bytes = reply.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/xml; charset=utf-8");
            exchange.sendResponseHeaders(status, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        supplier.start();
        Files.writeString(work.resolve("seed.yaml"), """
                composite: NamespaceCopy
                services:
                  - {name: supplier-1, task: supplier.supply, endpoint: "${PARTNER}/supplier", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 100}
                """);
        BrokerConfig config = BrokerConfig.defaults().withAdaptation(Adaptation.off()).withPort(0).withWorkDir(work).withDb("mem:namespaces")
                .withSeeds(List.of(work.resolve("seed.yaml")))
                .withVariables(Map.of("PARTNER", "http://127.0.0.1:" + supplier.getAddress().getPort()))
                .withDeployments(List.of(Path.of("src/test/resources/processes/namespaces")));
        broker = new Broker(config);
        broker.start();
    }

    @AfterAll
    static void stop() {
        if (broker != null) broker.close();
        if (supplier != null) supplier.stop(0);
    }

    static HttpResponse<String> place(String envelopeDeclarations, String order) throws Exception {
        String envelope = "<s:Envelope xmlns:s='" + SOAP + "'" + envelopeDeclarations + "><s:Body>" + order + "</s:Body></s:Envelope>";
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + broker.port() + "/services/NamespaceCopyService"))
                .header("Content-Type", "text/xml; charset=utf-8")
                .header("SOAPAction", "\"" + ORDERS + "/place\"")
                .POST(HttpRequest.BodyPublishers.ofString(envelope)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * Places an order, then checks what the supplier got (the order moved into the supplier's
     * namespace, its content still the client's) and what the client got back.
     */
    static void placeAndCheck(String envelopeDeclarations, String order, String itemText) throws Exception {
        int before = received.size();
        HttpResponse<String> r = place(envelopeDeclarations, order);
        assertEquals(before + 1, received.size(), "the supplier was called once");
        String sent = received.get(before);
        Element supplyOrder;
        try {
            supplyOrder = payload(sent);
        } catch (org.xml.sax.SAXException e) {
            throw new AssertionError("the supplier got XML that is not well-formed: " + sent + " (" + e.getMessage() + ")", e);
        }
        assertEquals(SUPPLIER, supplyOrder.getNamespaceURI(), sent);
        assertEquals("supplyOrder", supplyOrder.getLocalName(), sent);
        Element item = child(supplyOrder, "item");
        assertEquals(ORDERS, item.getNamespaceURI(), sent);
        assertEquals(itemText, item.getTextContent(), sent);
        assertEquals("F1", item.getAttributeNS(ORDERS, "ref"), "an attribute in a namespace: " + sent);
        assertEquals(TYPES, xsiTypeNamespace(item), "the xsi:type's prefix declared: " + sent);
        assertNull(child(supplyOrder, "note").getNamespaceURI(), sent);

        Element answer;
        try {
            answer = payload(r.body());
        } catch (org.xml.sax.SAXException e) {
            throw new AssertionError("the client got XML that is not well-formed: " + r.body() + " (" + e.getMessage() + ")", e);
        }
        boolean soldOut = itemText.equals(SOLD_OUT);
        if (soldOut) { // the process's declared fault, its detail copied from the supplier's
            assertEquals(500, r.statusCode(), r.body());
            assertEquals("Fault", answer.getLocalName(), r.body());
            answer = firstElement(child(answer, "detail"));
        } else {
            assertEquals(200, r.statusCode(), r.body());
        }
        assertEquals(ORDERS, answer.getNamespaceURI(), r.body());
        assertEquals(soldOut ? "rejection" : "receipt", answer.getLocalName(), r.body());
        Element status = child(answer, "status");
        assertEquals(SUPPLIER, status.getNamespaceURI(), r.body());
        assertEquals(soldOut ? "sold out" : "accepted", status.getTextContent(), r.body());
        assertEquals(TYPES, xsiTypeNamespace(status), "the xsi:type's prefix declared: " + r.body());
        assertEquals(itemText, child(answer, "item").getTextContent(), r.body());
        assertNull(child(answer, "plain").getNamespaceURI(), r.body());
    }

    static final String TYPE_DECLARATIONS = " xmlns:xsi='" + XSI + "' xmlns:t='" + TYPES + "'";

    @Test
    void aRequestElementInADefaultNamespaceReachesThePartnerInItsNamespace() throws Exception {
        placeAndCheck("", "<order xmlns='" + ORDERS + "'" + TYPE_DECLARATIONS + " xmlns:o='" + ORDERS + "'>"
                + "<item xsi:type='t:Flight' o:ref='F1'>Rome</item><note xmlns=''>plain</note></order>", "Rome");
    }

    @Test
    void aPrefixedRequestElementReachesThePartnerInItsNamespace() throws Exception {
        placeAndCheck("", "<o:order xmlns:o='" + ORDERS + "'" + TYPE_DECLARATIONS + ">"
                + "<o:item xsi:type='t:Flight' o:ref='F1'>Paris</o:item><note>plain</note></o:order>", "Paris");
    }

    @Test
    void aPartnersDeclaredFaultCopiedIntoTheProcesssOwnReachesTheClientInItsNamespace() throws Exception {
        // prefixed: what is checked here is the fault's way back
        placeAndCheck("", "<o:order xmlns:o='" + ORDERS + "'" + TYPE_DECLARATIONS + ">"
                + "<o:item xsi:type='t:Flight' o:ref='F1'>" + SOLD_OUT + "</o:item><note>plain</note></o:order>", SOLD_OUT);
    }

    @Test
    void prefixesTheEnvelopeDeclaresStayDeclared() throws Exception {
        placeAndCheck(TYPE_DECLARATIONS + " xmlns:o='" + ORDERS + "'", "<order xmlns='" + ORDERS + "'>"
                + "<item xsi:type='t:Flight' o:ref='F1'>Oslo</item><note xmlns=''>plain</note></order>", "Oslo");
    }
}
