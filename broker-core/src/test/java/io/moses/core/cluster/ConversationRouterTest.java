package io.moses.core.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.moses.core.engine.BpelEngine;
import io.moses.core.engine.Conversations;
import io.moses.core.engine.ProvidedService;
import io.moses.core.frontend.ConversationForwarding.Relayed;
import io.moses.core.frontend.HopSeal;
import io.moses.mdal.ConversationOwner;
import io.moses.mdal.Credentials;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.Mdal;
import java.io.ByteArrayInputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;

/**
 * A message that can only go to an existing instance, whose correlation value nobody has
 * registered yet (a one-way start whose instance has not run), waits for its owner up to the
 * grace period (5 s in the broker), then goes to it; with no owner by then it is handled here,
 * where the engine keeps it for a future instance. A message that may start an instance waits
 * for nobody.
 */
class ConversationRouterTest {
    static final String NS = "urn:moses:test:conformance";
    static final Path UNIT = Path.of("src/test/resources/processes/conformance");

    @TempDir Path tmp;
    BpelEngine engine;
    KnowledgeBase kb;
    HttpServer owner;
    ProvidedService scopeCase;
    ConversationRouter router;
    /** Look-ups of a conversation's owner, counted as the router makes them. */
    final AtomicInteger lookups = new AtomicInteger();
    final CountDownLatch looked = new CountDownLatch(1);
    /** The router's wall clock, stopped: the time its seals carry. */
    static final java.time.Instant WALL = java.time.Instant.parse("2026-01-01T00:00:00Z");
    /** The seal of the last message the owner received. */
    final java.util.concurrent.atomic.AtomicReference<String> sealReceived = new java.util.concurrent.atomic.AtomicReference<>();
    /** The traceparent of the last message the owner received ("" for none). */
    final java.util.concurrent.atomic.AtomicReference<String> traceparentReceived = new java.util.concurrent.atomic.AtomicReference<>();

    @BeforeEach
    void start() throws Exception {
        engine = new BpelEngine(tmp.resolve("work"), invocation -> CompletableFuture.failedFuture(new IllegalStateException("no partner")), 2);
        engine.start();
        scopeCase = engine.deploy(UNIT).services().stream().filter(s -> s.service().getLocalPart().equals("ScopeCaseService"))
                .findFirst().orElseThrow();
        kb = Mdal.open("mem:", Credentials.NONE);
        // the other replica, which holds the instance: it answers the close with the case's label
        owner = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 10);
        owner.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            sealReceived.set(exchange.getRequestHeaders().getFirst(HopSeal.HEADER));
            String traceparent = exchange.getRequestHeaders().getFirst("traceparent");
            traceparentReceived.set(traceparent == null ? "" : traceparent);
            byte[] answer = ("<s:Envelope xmlns:s='http://schemas.xmlsoap.org/soap/envelope/'><s:Body><c:closeResponse xmlns:c='" + NS
                    + "'><c:label>case-1</c:label></c:closeResponse></s:Body></s:Envelope>").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "text/xml; charset=UTF-8");
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        owner.start();
    }

    @AfterEach
    void stop() {
        if (router != null) router.close();
        if (owner != null) owner.stop(0);
        if (kb != null) kb.close();
        if (engine != null) engine.close();
    }

    /** The knowledge base, telling when the router looks up an owner. */
    KnowledgeBase watched() {
        return (KnowledgeBase) Proxy.newProxyInstance(KnowledgeBase.class.getClassLoader(), new Class<?>[] {KnowledgeBase.class},
                (proxy, method, args) -> {
                    try {
                        return method.invoke(kb, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    } finally {
                        if (method.getName().equals("conversationOwner")) { // after the look-up answered
                            lookups.incrementAndGet();
                            looked.countDown();
                        }
                    }
                });
    }

    ConversationRouter router(Duration grace) {
        router = new ConversationRouter(engine, watched(), "r1", () -> "http://127.0.0.1:9", grace, new HopSeal("00112233445566778899aabbccddeeff", "r1"),
                java.time.Clock.fixed(WALL, java.time.ZoneOffset.UTC));
        return router;
    }

    static Element payload(String xml) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        return f.newDocumentBuilder().parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8))).getDocumentElement();
    }

    static Element close(int caseId) throws Exception {
        return payload("<c:close xmlns:c='" + NS + "'><c:caseId>" + caseId + "</c:caseId></c:close>");
    }

    @Test
    void aMessageForAnInstanceNotYetRegisteredWaitsForItsOwnerAndGoesThere() throws Exception {
        Element close = close(1);
        Conversations.Keys keys = engine.correlationOf(scopeCase.service(), "close", close);
        assertNotNull(keys);
        assertTrue(keys.mustMatch(), "a close only goes to an existing instance: " + keys);
        ConversationRouter router = router(Duration.ofMinutes(1)); // a bound on a hang only: the owner comes first
        CompletableFuture<Relayed> forwarded = CompletableFuture.supplyAsync(() -> router.forward(scopeCase, "close", close, Map.of(), null, false));
        assertTrue(looked.await(60, TimeUnit.SECONDS), "the router looked for the owner");
        // registered only after the router first found nobody: without the wait, the close was handled here
        kb.registerConversation(new ConversationOwner(keys.process(), keys.keys().get(0), 7, "r2",
                "http://127.0.0.1:" + owner.getAddress().getPort()));
        Relayed r = forwarded.get(60, TimeUnit.SECONDS);
        assertNotNull(r, "forwarded to the owner, not handled here");
        assertNull(r.faultReason(), r.faultReason());
        assertEquals("closeResponse", r.payload().getLocalName());
        assertTrue(r.payload().getTextContent().contains("case-1"), r.payload().getTextContent());
        assertEquals(1, router.forwarded());
        assertTrue(sealReceived.get().startsWith(WALL.toEpochMilli() + "."), "sealed at the time of the router's clock: " + sealReceived.get());
    }

    @Test
    void aForwardedMessageCarriesTheTraceContextOfTheRequestThatForwardsIt() throws Exception {
        Element close = close(3);
        Conversations.Keys keys = engine.correlationOf(scopeCase.service(), "close", close);
        kb.registerConversation(new ConversationOwner(keys.process(), keys.keys().get(0), 7, "r2",
                "http://127.0.0.1:" + owner.getAddress().getPort()));
        ConversationRouter router = router(Duration.ofSeconds(5));
        assertNotNull(router.forward(scopeCase, "close", close, Map.of(), null, false));
        assertEquals("", traceparentReceived.get(), "an untraced request forwards no trace context");
        String traceId = "4bf92f3577b34da6a3ce929d0e0e4736", spanId = "00f067aa0ba902b7";
        // the request's server span, current on its thread as the tracing filter makes it
        io.opentelemetry.api.trace.Span span = io.opentelemetry.api.trace.Span.wrap(io.opentelemetry.api.trace.SpanContext.create(
                traceId, spanId, io.opentelemetry.api.trace.TraceFlags.getSampled(), io.opentelemetry.api.trace.TraceState.getDefault()));
        try (io.opentelemetry.context.Scope ignored = span.makeCurrent()) {
            assertNotNull(router.forward(scopeCase, "close", close(3), Map.of(), null, false));
        }
        assertEquals("00-" + traceId + "-" + spanId + "-01", traceparentReceived.get(), "the owner's spans join the request's trace");
    }

    @Test
    void withNoOwnerByTheEndOfTheGraceTheMessageGetsAClientFaultAtOnce() throws Exception {
        ConversationRouter router = router(Duration.ofMillis(300));
        var relayed = router.forward(scopeCase, "close", close(2), Map.of(), null, false);
        assertTrue(relayed != null && relayed.clientFault() && relayed.faultReason().contains("no instance of ScopeCaseService"),
                "no instance holds its values: " + relayed);
        assertTrue(lookups.get() >= 1, "looked for an owner");
        assertEquals(0, router.forwarded());
        assertEquals(1, router.noInstance());
    }

    @Test
    void aMessageThatMayStartAnInstanceWaitsForNobody() throws Exception {
        Element open = payload("<c:open xmlns:c='" + NS + "'><c:caseId>3</c:caseId><c:label>case-3</c:label></c:open>");
        Conversations.Keys keys = engine.correlationOf(scopeCase.service(), "open", open);
        if (keys != null) assertTrue(!keys.mustMatch(), "an open may start an instance: " + keys);
        ConversationRouter router = router(Duration.ofMinutes(1));
        assertNull(router.forward(scopeCase, "open", open, Map.of(), null, false), "handled here");
        assertEquals(keys == null ? 0 : keys.keys().size(), lookups.get(), "each value looked up once, no wait");
    }
}
