package io.moses.ode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.concurrent.CompletableFuture;
import org.apache.ode.utils.DOMUtils;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

class LiteralParsingTest {

    /** ODE parses each assign's literal with DOMUtils.stringToDOM, on the engine's job threads. */
    private static Element parsedOnANewThread(String xml) throws Exception {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return DOMUtils.stringToDOM(xml);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, r -> new Thread(r).start()).get();
    }

    @Test
    void odesParserBuildsLiteralsWithoutDeferredNodesAndTheSameContent() throws Exception {
        String literal = "<t:findFlight xmlns:t=\"urn:moses:task:flight\"><t:destination/><t:nights>2</t:nights></t:findFlight>";
        Element before = parsedOnANewThread(literal);

        LiteralParsing.expandEagerly();
        Element after = parsedOnANewThread(literal);

        assertFalse(after.getOwnerDocument() instanceof org.apache.xerces.dom.DeferredDocumentImpl,
                after.getOwnerDocument().getClass().getName());
        assertEquals(DOMUtils.domToString(before), DOMUtils.domToString(after));
        assertEquals("2", DOMUtils.getFirstChildElement(after).getNextSibling().getTextContent());
    }
}
