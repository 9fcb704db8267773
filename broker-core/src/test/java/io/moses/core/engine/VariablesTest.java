package io.moses.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.moses.adaptation.InvokeOutcome;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.xml.namespace.QName;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * The engine reads variables without copying them where it only looks at them
 * ({@code org.apache.ode.bpel.engine.BrokerRuntimeContext}) and parses each literal once
 * ({@code io.moses.ode.LiteralParsing}): no variable may see another's change through that. The
 * process (test resources, {@code processes/variables}) copies its request whole to a second
 * variable and changes the copy, sends a variable and changes it after the send, copies that
 * variable (by then changed in place: {@code io.moses.ode.VariableStore#getForChange}) whole to
 * another and changes it again, and assigns a literal in every round of a loop and changes it;
 * its reply reports what each variable holds.
 */
class VariablesTest {
    static final String V = "urn:moses:test:variables", PT = "urn:moses:test:partner";

    @TempDir Path tmp;
    BpelEngine engine;
    /** What the partner was sent: the element itself, as the engine handed it over. */
    final List<Element> sent = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        engine = new BpelEngine(tmp.resolve("work"), invocation -> {
            sent.add(invocation.body());
            String text = invocation.body().getTextContent().trim();
            return CompletableFuture.supplyAsync(
                    () -> new InvokeOutcome.InvokeReply(element(PT, "echoResponse", List.of("result"), List.of("echo:" + text)), "partner"));
        }, 4);
        engine.start();
        engine.deploy(Path.of("src/test/resources/processes/variables"));
    }

    @AfterEach
    void stop() {
        engine.close();
    }

    @Test
    void noVariableSeesAnothersChange() {
        for (String a : List.of("first", "second")) { // a second instance: the literals come from what the first parsed
            CompositeOutcome o = engine.invoke(new QName(V, "VariablesService"), "run",
                    element(V, "run", List.of("a", "b"), List.of(a, "kept")), null, Duration.ofSeconds(10));
            Element reply = assertInstanceOf(CompositeOutcome.CompositeReply.class, o, o.toString()).body();
            assertEquals(a, field(reply, "original"), "the request, after its whole copy was changed");
            assertEquals("changed", field(reply, "fromCopy"));
            assertEquals("kept", field(reply, "sharedB"), "the copy's unchanged part");
            assertEquals("echo:" + a, field(reply, "echoed"));
            assertEquals("again", field(reply, "sentAfter"), "the variable sent, changed twice since");
            assertEquals("after", field(reply, "copyOfSent"), "a whole copy of it, taken before its second change");
            assertEquals("fresh0fresh1fresh2", field(reply, "rounds"), "each round's literal as written, not as the last round left it");
        }
        assertEquals(2, sent.size());
        assertEquals("first", sent.get(0).getTextContent().trim(), "the message sent stays as it was sent");
        assertEquals("second", sent.get(1).getTextContent().trim());
    }

    private static String field(Element reply, String name) {
        return reply.getElementsByTagNameNS(V, name).item(0).getTextContent();
    }

    /** {@code <outer><names[0]>texts[0]</names[0]>...</outer>} in namespace {@code ns}. */
    private static Element element(String ns, String outer, List<String> names, List<String> texts) {
        try {
            Document doc = DocumentBuilderFactory.newDefaultNSInstance().newDocumentBuilder().newDocument();
            Element o = doc.createElementNS(ns, outer);
            for (int i = 0; i < names.size(); i++) {
                Element e = doc.createElementNS(ns, names.get(i));
                e.setTextContent(texts.get(i));
                o.appendChild(e);
            }
            doc.appendChild(o);
            return o;
        } catch (javax.xml.parsers.ParserConfigurationException e) {
            throw new IllegalStateException(e);
        }
    }
}
