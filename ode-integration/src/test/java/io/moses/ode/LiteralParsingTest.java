package io.moses.ode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import org.apache.ode.bpel.o.OAssign;
import org.apache.ode.bpel.o.OProcess;
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

        LiteralParsing.install();
        LiteralParsing.install(); // twice: the second does nothing
        Element after = parsedOnANewThread(literal);

        assertFalse(after.getOwnerDocument() instanceof org.apache.xerces.dom.DeferredDocumentImpl,
                after.getOwnerDocument().getClass().getName());
        assertEquals(DOMUtils.domToString(before), DOMUtils.domToString(after));
        assertEquals("2", DOMUtils.getFirstChildElement(after).getNextSibling().getTextContent());
    }

    @Test
    void aRememberedLiteralIsACopyOfItsOneParseAndOtherTextIsParsedAsItComes() throws Exception {
        LiteralParsing.install();
        OProcess process = new OProcess("2.0");
        String xml = "<literal><h:findHotel xmlns:h=\"urn:moses:task:hotel\"><h:nights>3</h:nights><h:city/></h:findHotel></literal>";
        OAssign.Literal literal = new OAssign.Literal(process, DOMUtils.parse(new org.xml.sax.InputSource(new java.io.StringReader(xml))));
        String text = literal.getXmlLiteral();
        Element parsedBefore = parsedOnANewThread(text);

        LiteralParsing.remember(process);
        LiteralParsing.remember(process); // again: nothing new
        assertTrue(LiteralParsing.copyOf(text) != null, "the literal is known");
        Element first = parsedOnANewThread(text), second = parsedOnANewThread(text);

        assertEquals(DOMUtils.domToString(parsedBefore), DOMUtils.domToString(first));
        assertNotSame(first.getOwnerDocument(), second.getOwnerDocument());
        // each is a document of its own: ASSIGN changes what it gets
        Element nights = DOMUtils.getFirstChildElement(DOMUtils.getFirstChildElement(first));
        nights.setTextContent("9");
        assertEquals("3", DOMUtils.getFirstChildElement(DOMUtils.getFirstChildElement(second)).getTextContent());
        assertEquals("3", DOMUtils.getFirstChildElement(DOMUtils.getFirstChildElement(parsedOnANewThread(text))).getTextContent());
        assertEquals("urn:moses:task:hotel", nights.getNamespaceURI());

        // text that is no literal: shorter, and longer than any literal (read in two pieces)
        String shorter = "<a xmlns=\"urn:x\">1</a>";
        assertEquals("1", parsedOnANewThread(shorter).getTextContent());
        StringBuilder longer = new StringBuilder("<list xmlns=\"urn:x\">");
        for (int i = 0; i < 2_000; i++) longer.append("<item>").append(i).append("</item>");
        Element list = parsedOnANewThread(longer.append("</list>").toString());
        assertEquals(2_000, list.getElementsByTagNameNS("urn:x", "item").getLength());
        assertEquals("1999", list.getLastChild().getTextContent());
    }
}
