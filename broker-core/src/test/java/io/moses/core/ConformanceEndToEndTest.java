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
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * BPEL behaviours the betsy conformance suite found lost between Apache ODE and the broker,
 * each with a process of the same shape deployed on a real broker and called over
 * SOAP: an invoke of operations whose messages have no part (basic/Invoke-Empty), and a
 * request correlated to an instance a one-way message started, the correlation set in a scope
 * (scopes/Scope-CorrelationSets-InitAsync) or the message taken by a pick
 * (structured/Pick-Correlations-InitAsync).
 */
@Tag("e2e")
class ConformanceEndToEndTest {
    static final String ENV = "<s:Envelope xmlns:s='http://schemas.xmlsoap.org/soap/envelope/'><s:Body>";
    static final String END = "</s:Body></s:Envelope>";
    static final String NS = "urn:moses:test:conformance";

    /** The partner of EmptyInvoke: records what it was sent; notify answers 202, ping an empty body. */
    record Received(String path, String soapAction, String body) {}

    static HttpServer signal;
    static final List<Received> received = new CopyOnWriteArrayList<>();
    static Broker broker;
    static final HttpClient http = HttpClient.newHttpClient();
    @TempDir static Path work;

    @BeforeAll
    static void start() throws Exception {
        start(Path.of("src/test/resources/processes/conformance"), "mem:conformance");
    }

    /** Starts the broker with {@code unit} (the conformance unit, or a copy of it) on the knowledge base {@code db}. */
    static void start(Path unit, String db) throws Exception {
        signal = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
        signal.createContext("/", exchange -> {
            String action = exchange.getRequestHeaders().getFirst("SOAPAction");
            received.add(new Received(exchange.getRequestURI().getPath(), action, new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
            if (action != null && action.contains("notify")) {
                exchange.sendResponseHeaders(202, -1);
            } else if (action != null && action.contains("check")) {
                String body = received.get(received.size() - 1).body();
                int value = Integer.parseInt(body.replaceAll("(?s).*<(\\w+:)?level[^>]*>\\s*(-?\\d+)\\s*<.*", "$2"));
                byte[] reply = (ENV + (value < 0
                        ? "<s:Fault><faultcode>s:Server</faultcode><faultstring>level below zero</faultstring></s:Fault>"
                        : "<g:levelResponse xmlns:g='urn:moses:test:signal'>" + 2 * value + "</g:levelResponse>") + END)
                        .getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "text/xml; charset=utf-8");
                exchange.sendResponseHeaders(value < 0 ? 500 : 200, reply.length);
                exchange.getResponseBody().write(reply);
            } else {
                byte[] reply = (ENV + END).getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "text/xml; charset=utf-8");
                exchange.sendResponseHeaders(200, reply.length);
                exchange.getResponseBody().write(reply);
            }
            exchange.close();
        });
        signal.start();
        String partner = "http://127.0.0.1:" + signal.getAddress().getPort();
        java.nio.file.Files.writeString(work.resolve("seed.yaml"), """
                composite: EmptyInvoke
                services:
                  - {name: signal-1, task: signal.notify, endpoint: "${PARTNER}/signal", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 100}
                  - {name: signal-2, task: signal.ping, endpoint: "${PARTNER}/signal", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 100}
                """);
        java.nio.file.Files.writeString(work.resolve("seed-catch.yaml"), """
                composite: CatchAll
                services:
                  - {name: check-1, task: signal.check, endpoint: "${PARTNER}/signal", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 100}
                """);
        for (String composite : List.of("ScopeCase", "PickCase"))
            java.nio.file.Files.writeString(work.resolve("seed-" + composite + ".yaml"), """
                    composite: %s
                    services:
                      - {name: %s-waiting, task: signal.notify, endpoint: "${PARTNER}/%s", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 100}
                    """.formatted(composite, composite, composite));
        BrokerConfig config = BrokerConfig.defaults().withAdaptation(Adaptation.off()).withPort(0).withWorkDir(work).withDb(db)
                .withSeeds(List.of(work.resolve("seed.yaml"), work.resolve("seed-catch.yaml"),
                        work.resolve("seed-ScopeCase.yaml"), work.resolve("seed-PickCase.yaml"))).withVariables(Map.of("PARTNER", partner))
                .withDeployments(List.of(unit));
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
                .POST(HttpRequest.BodyPublishers.ofString(ENV + payload + END)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The text between the SOAP body tags of an envelope the partner received. */
    static String bodyContent(String envelope) {
        int open = envelope.indexOf("Body");
        int start = envelope.indexOf('>', open) + 1;
        int end = envelope.lastIndexOf("</", envelope.lastIndexOf("Body"));
        if (envelope.charAt(start - 2) == '/') return ""; // <Body/>
        return envelope.substring(start, end).trim();
    }

    @Test
    void anInvokeOfAMessageWithNoPartSendsAnEmptyBodyAndAcceptsAnEmptyReply() throws Exception {
        received.clear();
        HttpResponse<String> r = post("EmptyInvokeService", "run", "<c:run xmlns:c='" + NS + "'>41</c:run>");
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(r.body().matches("(?s).*<(\\w+:)?runResponse[^>]*>42</(\\w+:)?runResponse>.*"), r.body());
        List<Received> received = ConformanceEndToEndTest.received.stream().filter(m -> m.path().equals("/signal")).toList();
        assertEquals(2, received.size(), "the partner got the notification and the ping: " + received);
        // a one-way invoke does not wait for its call: the two may reach the partner in either order
        assertEquals(java.util.Set.of("notify", "ping"), received.stream()
                .map(m -> m.soapAction().replaceAll(".*/(\\w+)\"?$", "$1")).collect(java.util.stream.Collectors.toSet()), received.toString());
        for (Received m : received) {
            assertTrue(m.body().contains("Envelope"), m.body());
            assertEquals("", bodyContent(m.body()), "an empty SOAP body: " + m.body());
        }
    }

    static String open(int caseId, String label) {
        return "<c:open xmlns:c='" + NS + "'><c:caseId>" + caseId + "</c:caseId><c:label>" + label + "</c:label></c:open>";
    }

    static String close(int caseId) {
        return "<c:close xmlns:c='" + NS + "'><c:caseId>" + caseId + "</c:caseId></c:close>";
    }

    /** Blocks until the partner has had {@code n} calls on {@code path} (an instance told it waits); bounded. */
    static void awaitCalls(String path, long n) {
        Waits.until(n + " calls on " + path, 30, () -> received.stream().filter(m -> m.path().equals(path)).count() >= n, received::toString);
    }

    /**
     * Two cases opened by one-way messages, closed in the other order once both instances wait
     * for their close: each close reaches its own instance.
     */
    static void closesReachTheirOwnInstance(String service, int first, int second, int messages) throws Exception {
        String path = "/" + service.replace("Service", "");
        long before = received.stream().filter(m -> m.path().equals(path)).count();
        HttpResponse<String> o1 = post(service, "open", open(first, "case-" + first));
        HttpResponse<String> o2 = post(service, "open", open(second, "case-" + second));
        assertTrue(o1.statusCode() / 100 == 2 && o2.statusCode() / 100 == 2, o1.statusCode() + " " + o1.body() + " / " + o2.body());
        awaitCalls(path, before + 2);
        for (int id : new int[] {second, first}) {
            HttpResponse<String> r = post(service, "close", close(id));
            assertEquals(200, r.statusCode(), r.body());
            assertTrue(r.body().contains(">case-" + id + "<"), "the label of case " + id + ": " + r.body());
            assertTrue(r.body().matches("(?s).*<(\\w+:)?messages>" + messages + "</(\\w+:)?messages>.*"), r.body());
        }
    }

    @Test
    void aRequestCorrelatedThroughAScopeReachesTheInstanceAOneWayMessageStarted() throws Exception {
        closesReachTheirOwnInstance("ScopeCaseService", 7, 8, 2);
    }

    @Test
    void aRequestTakenByAPickReachesTheInstanceAOneWayMessageStarted() throws Exception {
        closesReachTheirOwnInstance("PickCaseService", 17, 18, 2);
    }

    /**
     * A close sent before its case is opened cannot be routed when it arrives: the engine keeps
     * it (looking for an active instance with its key, then for a future one) until the open
     * creates the instance, which takes it at its receive or pick.
     */
    @Test
    void aRequestThatArrivesBeforeItsInstanceIsKeptForIt() throws Exception {
        for (String service : List.of("ScopeCaseService", "PickCaseService")) {
            int id = service.startsWith("Scope") ? 27 : 28;
            var early = http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + broker.port() + "/services/" + service))
                    .header("Content-Type", "text/xml; charset=utf-8").header("SOAPAction", "\"" + NS + "/close\"")
                    .POST(HttpRequest.BodyPublishers.ofString(ENV + close(id) + END)).build(), HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> opened = post(service, "open", open(id, "case-" + id));
            assertTrue(opened.statusCode() / 100 == 2, opened.body());
            HttpResponse<String> r = early.get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals(200, r.statusCode(), service + ": " + r.body());
            assertTrue(r.body().contains(">case-" + id + "<"), r.body());
        }
    }

    static String run(int value) {
        return "<c:run xmlns:c='" + NS + "'>" + value + "</c:run>";
    }

    static int runResponse(HttpResponse<String> r) {
        assertEquals(200, r.statusCode(), r.body());
        return Integer.parseInt(r.body().replaceAll("(?s).*<(\\w+:)?runResponse[^>]*>\\s*(-?\\d+)\\s*<.*", "$2"));
    }

    /** Kept from before the fixes (the broker passed Invoke-CatchAll-UndeclaredFault, ODE alone did not). */
    @Test
    void aCatchAllCatchesAFaultThePartnersWsdlDoesNotDeclare() throws Exception {
        assertEquals(42, runResponse(post("CatchAllService", "run", run(21))), "the partner's reply, when it answers");
        assertEquals(0, runResponse(post("CatchAllService", "run", run(-1))), "the catchAll's reply, when it faults");
    }

    /** Kept from before the fixes (the broker passed Assign-PartnerLink-UnsupportedReference, ODE alone did not). */
    @Test
    void aPartnerReferenceOfAnUnknownKindFaultsWithUnsupportedReference() throws Exception {
        long checksBefore = received.stream().filter(m -> m.soapAction().contains("check")).count();
        HttpResponse<String> r = post("BadReferenceService", "run", run(5));
        assertEquals(500, r.statusCode(), r.body());
        assertTrue(r.body().contains("unsupportedReference"), r.body());
        assertEquals(checksBefore, received.stream().filter(m -> m.soapAction().contains("check")).count(), "nothing was called");
    }

    @Test
    void anEmptyBodyIsRefusedWhereTheOperationNeedsAnElement() throws Exception {
        HttpResponse<String> r = post("ScopeCaseService", "close", "");
        assertEquals(500, r.statusCode(), r.body());
        assertTrue(r.body().contains("empty SOAP body: close needs a request element"), r.body());
    }
}
