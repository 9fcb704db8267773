package io.moses.adaptation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/** What the partner request writer produces reads back as the same element. */
class XmlWriteTest {
    static String write(Element e) {
        StringBuilder out = new StringBuilder();
        DomWriter.write(e, out);
        return out.toString();
    }

    static void assertRoundTrip(Element e) throws Exception {
        String text = write(e);
        Element back = Xml.parse(text.getBytes(StandardCharsets.UTF_8)).getDocumentElement();
        assertTrue(back.isEqualNode(stripped(e)) || sameTree(back, e), "wrote " + text);
    }

    /** Equal names, namespaces, attributes (xmlns aside) and text, recursively. */
    static boolean sameTree(org.w3c.dom.Node a, org.w3c.dom.Node b) {
        if (a.getNodeType() != b.getNodeType()) return false;
        if (a instanceof Element x && b instanceof Element y) {
            if (!java.util.Objects.equals(x.getNamespaceURI(), y.getNamespaceURI()) || !x.getLocalName().equals(y.getLocalName())) return false;
            if (attrs(x).equals(attrs(y)) == false) return false;
            org.w3c.dom.Node c = x.getFirstChild(), d = y.getFirstChild();
            for (; c != null && d != null; c = c.getNextSibling(), d = d.getNextSibling()) if (!sameTree(c, d)) return false;
            return c == null && d == null;
        }
        return java.util.Objects.equals(a.getNodeValue(), b.getNodeValue());
    }

    static java.util.Map<String, String> attrs(Element e) {
        java.util.Map<String, String> m = new java.util.TreeMap<>();
        for (int i = 0; i < e.getAttributes().getLength(); i++) {
            org.w3c.dom.Attr a = (org.w3c.dom.Attr) e.getAttributes().item(i);
            if ("http://www.w3.org/2000/xmlns/".equals(a.getNamespaceURI())) continue;
            m.put("{" + a.getNamespaceURI() + "}" + (a.getLocalName() != null ? a.getLocalName() : a.getName()), a.getValue());
        }
        return m;
    }

    static Element stripped(Element e) {
        return e;
    }

    @Test
    void parsedDocumentsWithPrefixesDefaultsAndEscapesRoundTrip() throws Exception {
        String xml = "<env xmlns:xsi='http://www.w3.org/2001/XMLSchema-instance' xmlns:t='urn:types'>"
                + "<a:req xmlns:a='urn:a' xmlns='urn:default' a:id='1 &amp; 2' plain='&lt;x&gt; &quot;q&quot;'>"
                + "<item xsi:type='t:Flight'>Rome &amp; &lt;Paris&gt;</item>"
                + "<b:x xmlns:b='urn:b'><b:y/><z xmlns=''>unqualified</z></b:x>"
                + "<![CDATA[a <cdata> section]]><!-- a comment --></a:req></env>";
        Document d = Xml.parse(xml.getBytes(StandardCharsets.UTF_8));
        Element req = (Element) d.getDocumentElement().getFirstChild();
        assertRoundTrip(req);
        String text = write(req);
        // the prefix of the xsi:type value is declared although only the ancestor declared it
        assertTrue(text.contains("xmlns:t=\"urn:types\""), text);
        assertTrue(text.contains("xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\""), text);
        Element back = Xml.parse(text.getBytes(StandardCharsets.UTF_8)).getDocumentElement();
        Element item = (Element) back.getElementsByTagNameNS("urn:default", "item").item(0);
        assertEquals("urn:types", item.lookupNamespaceURI("t"));
        assertEquals("Rome & <Paris>", item.getTextContent());
        assertEquals("<x> \"q\"", back.getAttribute("plain"));
        assertEquals("", ((Element) back.getElementsByTagName("z").item(0)).getNamespaceURI() == null ? "" : "declared");
    }

    @Test
    void elementsBuiltWithoutDeclarationsGetThem() throws Exception {
        Document d = Xml.newDocument();
        Element root = d.createElementNS("urn:m", "m:echo");
        Element text = d.createElementNS("urn:m", "m:text");
        text.setTextContent("hi\tthere");
        Element unq = d.createElementNS(null, "part");
        Element deflt = d.createElementNS("urn:d", "inner");
        deflt.setAttributeNS("urn:attr", "k:flag", "a\"b\nc");
        deflt.setAttributeNS("urn:attr2", "unprefixed", "v"); // a namespaced attribute without a prefix
        root.appendChild(text);
        root.appendChild(unq);
        unq.appendChild(deflt);
        d.appendChild(root);
        assertRoundTrip(root);
        Element back = Xml.parse(write(root).getBytes(StandardCharsets.UTF_8)).getDocumentElement();
        Element inner = (Element) back.getElementsByTagNameNS("urn:d", "inner").item(0);
        assertEquals("a\"b\nc", inner.getAttributeNS("urn:attr", "flag"));
        assertEquals("v", inner.getAttributeNS("urn:attr2", "unprefixed"));
        assertEquals("hi\tthere", back.getElementsByTagNameNS("urn:m", "text").item(0).getTextContent());
    }
}
