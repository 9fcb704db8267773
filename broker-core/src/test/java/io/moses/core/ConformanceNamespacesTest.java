package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.moses.core.loop.Adaptation;
import io.moses.testing.Waits;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The conformance processes ({@link ConformanceEndToEndTest}) called by clients that put their
 * request elements in a default namespace, as many SOAP stacks do, and by clients that use a
 * prefix (the broker sent partners {@code <level xmlns="..." xmlns="...">} for the
 * first). Here the partner and the clients read every message with a namespace-aware parser,
 * as SOAP stacks do: a message that is not well-formed, or an element in the wrong namespace,
 * fails the call. The partner answers in a default namespace too.
 */
@Tag("e2e")
class ConformanceNamespacesTest {
    static final String SOAP = "http://schemas.xmlsoap.org/soap/envelope/";
    static final String NS = "urn:moses:test:conformance";
    static final String SIGNAL = "urn:moses:test:signal";

    /** What the partner was sent, per path and SOAPAction, and what it made of the body. */
    record Received(String path, String soapAction, String body, String problem) {}

    static HttpServer signal;
    static final List<Received> received = new CopyOnWriteArrayList<>();
    static Broker broker;
    static final HttpClient http = HttpClient.newHttpClient();
    @TempDir static Path work;

    /** The two forms of one request element: in a default namespace, and with a prefix. */
    enum Form {
        DEFAULT_NAMESPACE, PREFIXED;

        String element(String local, String content) {
            return this == DEFAULT_NAMESPACE
                    ? "<" + local + " xmlns='" + NS + "'>" + content + "</" + local + ">"
                    : "<c:" + local + " xmlns:c='" + NS + "'>" + content + "</c:" + local + ">";
        }

        String child(String local, Object value) {
            return this == DEFAULT_NAMESPACE ? "<" + local + ">" + value + "</" + local + ">" : "<c:" + local + ">" + value + "</c:" + local + ">";
        }
    }

    /** The SOAP body's payload, null for an empty body; fails if the envelope is not well-formed. */
    static Element payload(String envelope) {
        Element env;
        try {
            env = NamespacesEndToEndTest.parse(envelope);
        } catch (Exception e) {
            throw new AssertionError("not well-formed: " + envelope + " (" + e.getMessage() + ")", e);
        }
        Element body = child(env, SOAP, "Body");
        for (Node n = body.getFirstChild(); n != null; n = n.getNextSibling())
            if (n instanceof Element e) return e;
        return null;
    }

    static Element child(Element parent, String ns, String local) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling())
            if (n instanceof Element e && local.equals(e.getLocalName()) && ns.equals(e.getNamespaceURI())) return e;
        throw new AssertionError("no {" + ns + "}" + local + " in {" + parent.getNamespaceURI() + "}" + parent.getLocalName());
    }

    static void reply(com.sun.net.httpserver.HttpExchange exchange, int status, String payload) throws java.io.IOException {
        byte[] bytes = ("<s:Envelope xmlns:s='" + SOAP + "'><s:Body>" + payload + "</s:Body></s:Envelope>").getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/xml; charset=utf-8");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    @BeforeAll
    static void start() throws Exception {
        signal = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
        signal.createContext("/", exchange -> {
            String action = exchange.getRequestHeaders().getFirst("SOAPAction");
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String problem = null;
            Element level = null;
            try {
                level = payload(body);
                if (action != null && action.contains("check") && !(level != null && SIGNAL.equals(level.getNamespaceURI())
                        && "level".equals(level.getLocalName())))
                    problem = "not a {" + SIGNAL + "}level";
            } catch (AssertionError | RuntimeException e) {
                problem = e.getMessage();
            }
            received.add(new Received(exchange.getRequestURI().getPath(), action, body, problem));
            if (problem != null) {
                reply(exchange, 500, "<s:Fault><faultcode>s:Client</faultcode><faultstring>bad request</faultstring></s:Fault>");
            } else if (action != null && action.contains("notify")) {
                exchange.sendResponseHeaders(202, -1);
            } else if (action != null && action.contains("check")) {
                int value = Integer.parseInt(level.getTextContent().trim());
                reply(exchange, value < 0 ? 500 : 200, value < 0
                        ? "<s:Fault><faultcode>s:Server</faultcode><faultstring>level below zero</faultstring></s:Fault>"
                        : "<levelResponse xmlns='" + SIGNAL + "'>" + 2 * value + "</levelResponse>");
            } else {
                reply(exchange, 200, "");
            }
            exchange.close();
        });
        signal.start();
        String partner = "http://127.0.0.1:" + signal.getAddress().getPort();
        List<Path> seeds = new java.util.ArrayList<>();
        for (String[] c : new String[][] {{"EmptyInvoke", "notify"}, {"EmptyInvoke", "ping"}, {"CatchAll", "check"},
                {"ScopeCase", "notify"}, {"PickCase", "notify"}}) {
            Path file = work.resolve("seed-" + c[0] + "-" + c[1] + ".yaml");
            Files.writeString(file, """
                    composite: %s
                    services:
                      - {name: %s-%s, task: signal.%s, endpoint: "${PARTNER}/%s", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 100}
                    """.formatted(c[0], c[0], c[1], c[1], c[0]));
            seeds.add(file);
        }
        BrokerConfig config = BrokerConfig.defaults().withAdaptation(Adaptation.off()).withPort(0).withWorkDir(work)
                .withDb("mem:conformance-namespaces").withSeeds(seeds).withVariables(Map.of("PARTNER", partner))
                .withDeployments(List.of(Path.of("src/test/resources/processes/conformance")));
        broker = new Broker(config);
        broker.start();
    }

    @AfterAll
    static void stop() {
        if (broker != null) broker.close();
        if (signal != null) signal.stop(0);
    }

    static HttpResponse<String> post(String service, String operation, String payload) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + broker.port() + "/services/" + service))
                .header("Content-Type", "text/xml; charset=utf-8")
                .header("SOAPAction", "\"" + NS + "/" + operation + "\"")
                .POST(HttpRequest.BodyPublishers.ofString("<s:Envelope xmlns:s='" + SOAP + "'><s:Body>" + payload + "</s:Body></s:Envelope>"))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The run reply's value, read namespace-aware; fails unless it is a {NS}runResponse. */
    static int run(String service, Form form, int value) throws Exception {
        HttpResponse<String> r = post(service, "run", form.element("run", String.valueOf(value)));
        assertEquals(200, r.statusCode(), form + ": " + r.body());
        Element response = payload(r.body());
        assertEquals("{" + NS + "}runResponse", "{" + response.getNamespaceURI() + "}" + response.getLocalName(), r.body());
        return Integer.parseInt(response.getTextContent().trim());
    }

    /** The partner's calls since {@code from}: each well-formed, with its payload in the partner's namespace. */
    static List<Received> wellFormedSince(int from) {
        List<Received> calls = received.subList(from, received.size());
        for (Received m : calls) assertEquals(null, m.problem(), "the partner could not read " + m.body());
        return calls;
    }

    @Test
    void aRequestCopiedIntoAPartnerMessageOfAnotherNamespace() throws Exception {
        for (Form form : Form.values()) {
            int before = received.size();
            assertEquals(42, run("CatchAllService", form, 21), form + ": the partner's reply (in its default namespace)");
            List<Received> calls = wellFormedSince(before);
            assertEquals(1, calls.size(), form + ": " + calls);
            Element level = payload(calls.get(0).body());
            assertEquals("{" + SIGNAL + "}level", "{" + level.getNamespaceURI() + "}" + level.getLocalName(), calls.get(0).body());
            before = received.size();
            assertEquals(0, run("CatchAllService", form, -1), form + ": the catchAll's reply, when the partner faults");
            assertEquals(1, wellFormedSince(before).size(), form + ": the partner's fault was its own, not a refusal");
        }
    }

    @Test
    void anInvokeOfMessagesWithNoPart() throws Exception {
        for (Form form : Form.values()) {
            int before = received.size();
            assertEquals(42, run("EmptyInvokeService", form, 41), form.toString());
            // the one-way notify may still be on its way: its well-formedness is checked when it has come
            Waits.within(30, () -> received.size() >= before + 2);
            assertEquals(2, wellFormedSince(before).size(), form + ": notify and ping: " + received);
        }
    }

    @Test
    void anUnsupportedPartnerReferenceFaults() throws Exception {
        for (Form form : Form.values()) {
            HttpResponse<String> r = post("BadReferenceService", "run", form.element("run", "5"));
            assertEquals(500, r.statusCode(), r.body());
            Element fault = payload(r.body());
            assertEquals("Fault", fault.getLocalName(), r.body());
            assertTrue(r.body().contains("unsupportedReference"), r.body());
        }
    }

    /** A case opened by a one-way message and closed by a correlated request, both in {@code form}. */
    static void openAndClose(String service, Form form, int caseId, int messages) throws Exception {
        String path = "/" + service.replace("Service", "");
        long before = received.stream().filter(m -> m.path().equals(path)).count();
        HttpResponse<String> opened = post(service, "open", form.element("open", form.child("caseId", caseId) + form.child("label", "case-" + caseId)));
        assertTrue(opened.statusCode() / 100 == 2, form + ": " + opened.body());
        Waits.until(form + ": the instance telling the partner it waits", 30,
                () -> received.stream().filter(m -> m.path().equals(path)).count() > before, received::toString);
        HttpResponse<String> r = post(service, "close", form.element("close", form.child("caseId", caseId)));
        assertEquals(200, r.statusCode(), form + ": " + r.body());
        Element response = payload(r.body());
        assertEquals("{" + NS + "}closeResponse", "{" + response.getNamespaceURI() + "}" + response.getLocalName(), r.body());
        assertEquals("case-" + caseId, child(response, NS, "label").getTextContent(), r.body());
        assertEquals(String.valueOf(messages), child(response, NS, "messages").getTextContent(), r.body());
    }

    @Test
    void aRequestCorrelatedThroughAScope() throws Exception {
        openAndClose("ScopeCaseService", Form.DEFAULT_NAMESPACE, 107, 2);
        openAndClose("ScopeCaseService", Form.PREFIXED, 108, 2);
    }

    @Test
    void aRequestTakenByAPick() throws Exception {
        openAndClose("PickCaseService", Form.DEFAULT_NAMESPACE, 117, 2);
        openAndClose("PickCaseService", Form.PREFIXED, 118, 2);
    }
}
