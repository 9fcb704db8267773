package io.moses.adaptation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Attr;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.Node;

/**
 * Namespace fixup of the partner request writer: whatever prefixes and declarations the DOM
 * holds, what is written parses (with the JDK's namespace-aware parser, which refuses two
 * declarations of one prefix on an element) into elements and attributes of the same
 * namespaces, and the prefixes of xsi:type values stay declared. The same for the DOM fixed
 * in place ({@link Xml#fixNamespaces}) and written as it is, prefixes and declarations unchanged,
 * as CXF writes replies.
 */
class DomWriterNamespacesTest {
    static final String XMLNS = "http://www.w3.org/2000/xmlns/";
    static final String XSI = "http://www.w3.org/2001/XMLSchema-instance";

    /**
     * Writes {@code e}, parses it back and checks every element's and attribute's namespace
     * against {@code e}'s; then the same for {@code e} fixed in place and written as it is.
     * Returns both elements read back.
     */
    static List<Element> writeAndRead(Element e) throws Exception {
        StringBuilder out = new StringBuilder();
        DomWriter.write(e, out);
        Element written = read(out.toString(), e);
        Xml.fixNamespaces(e);
        StringBuilder asIs = new StringBuilder();
        writeAsIs(e, asIs);
        return List.of(written, read(asIs.toString(), e));
    }

    static Element read(String text, Element expected) throws Exception {
        Element back;
        try {
            back = Xml.parse(text.getBytes(StandardCharsets.UTF_8)).getDocumentElement();
        } catch (org.xml.sax.SAXException ex) {
            throw new AssertionError("not well-formed: " + text + " (" + ex.getMessage() + ")", ex);
        }
        assertSameNames(expected, back, text);
        return back;
    }

    /** A writer with no namespace fixup: qualified names and declaration attributes as the DOM holds them. */
    static void writeAsIs(Element e, StringBuilder out) {
        out.append('<').append(e.getNodeName());
        NamedNodeMap attrs = e.getAttributes();
        for (int i = 0; i < attrs.getLength(); i++)
            out.append(' ').append(attrs.item(i).getNodeName()).append("=\"").append(escape(attrs.item(i).getNodeValue())).append('"');
        out.append('>');
        for (Node c = e.getFirstChild(); c != null; c = c.getNextSibling()) {
            if (c instanceof Element x) writeAsIs(x, out);
            else if (c.getNodeType() == Node.TEXT_NODE) out.append(escape(c.getNodeValue()));
        }
        out.append("</").append(e.getNodeName()).append('>');
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace("\"", "&quot;");
    }

    static void assertSameNames(Element expected, Element actual, String text) {
        assertEquals(name(expected.getNamespaceURI(), expected.getLocalName()), name(actual.getNamespaceURI(), actual.getLocalName()), text);
        assertEquals(attributes(expected), attributes(actual), "attributes of " + expected.getLocalName() + " in " + text);
        Node c = expected.getFirstChild(), d = actual.getFirstChild();
        for (; c != null && d != null; c = c.getNextSibling(), d = d.getNextSibling()) {
            assertEquals(c.getNodeType(), d.getNodeType(), text);
            if (c instanceof Element x) assertSameNames(x, (Element) d, text);
            else assertEquals(c.getNodeValue(), d.getNodeValue(), text);
        }
        assertTrue(c == null && d == null, "same children of " + expected.getLocalName() + " in " + text);
    }

    static String name(String ns, String local) {
        return "{" + (ns == null ? "" : ns) + "}" + local;
    }

    static java.util.Map<String, String> attributes(Element e) {
        java.util.Map<String, String> m = new java.util.TreeMap<>();
        NamedNodeMap attrs = e.getAttributes();
        for (int i = 0; i < attrs.getLength(); i++) {
            Attr a = (Attr) attrs.item(i);
            if (!XMLNS.equals(a.getNamespaceURI())) m.put(name(a.getNamespaceURI(), a.getLocalName()), a.getValue());
        }
        return m;
    }

    static Element parse(String xml) throws Exception {
        return Xml.parse(xml.getBytes(StandardCharsets.UTF_8)).getDocumentElement();
    }

    /** What ODE's assign does to copy an element into a part of another element type: a new element with the source's attributes (its declarations too) and children. */
    static Element moved(Element source, String ns, String qualifiedName) {
        Document doc = source.getOwnerDocument();
        Element target = doc.createElementNS(ns, qualifiedName);
        NamedNodeMap attrs = source.getAttributes();
        for (int i = 0; i < attrs.getLength(); i++) target.setAttributeNodeNS((Attr) attrs.item(i).cloneNode(true));
        while (source.getFirstChild() != null) target.appendChild(source.getFirstChild());
        Element holder = doc.createElementNS(null, "part");
        holder.appendChild(target);
        doc.replaceChild(holder, source);
        return target;
    }

    static Element child(Element parent, String local) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling())
            if (n instanceof Element e && local.equals(e.getLocalName())) return e;
        throw new AssertionError("no " + local + " under " + parent.getLocalName());
    }

    /** The namespace the prefix of a QName-valued attribute resolves to where it is. */
    static String qnameNamespace(Element e, String ns, String local) {
        String value = e.getAttributeNS(ns, local);
        int colon = value.indexOf(':');
        return e.lookupNamespaceURI(colon < 0 ? null : value.substring(0, colon));
    }

    @Test
    void anElementMovedOutOfTheCallersDefaultNamespaceIsWrittenInItsOwn() throws Exception {
        // found in the conformance suite: <testElementSyncRequest xmlns="urn:a"> copied into a part of urn:b was written with two xmlns
        Element moved = moved(parse("<testElementSyncRequest xmlns='urn:a'>1</testElementSyncRequest>"), "urn:b", "testElementSyncRequest");
        for (Element back : writeAndRead(moved)) {
            assertEquals("urn:b", back.getNamespaceURI());
            assertEquals("1", back.getTextContent());
        }
    }

    @Test
    void anElementMovedWithPrefixedOrNestedContentKeepsTheContentsNamespaces() throws Exception {
        Element source = parse("<order xmlns='urn:a' xmlns:xsi='" + XSI + "' xmlns:t='urn:types' id='7'>"
                + "<item xsi:type='t:Flight'>Rome</item><note xmlns=''>plain</note><a:x xmlns:a='urn:a'/></order>");
        for (Element back : writeAndRead(moved(source, "urn:b", "order"))) {
            assertEquals("urn:b", back.getNamespaceURI());
            assertEquals("urn:a", child(back, "item").getNamespaceURI());
            assertNull(child(back, "note").getNamespaceURI());
            assertEquals("urn:types", qnameNamespace(child(back, "item"), XSI, "type"));
        }

        // the target element named with the prefix the source declares for another namespace
        Element prefixed = parse("<a:order xmlns:a='urn:a'><a:item/></a:order>");
        for (Element back : writeAndRead(moved(prefixed, "urn:b", "a:order"))) {
            assertEquals("urn:b", back.getNamespaceURI());
            assertEquals("urn:a", child(back, "item").getNamespaceURI());
        }
    }

    @Test
    void nestedDefaultNamespacesAndAnUndeclaredDefault() throws Exception {
        Element parsed = parse("<r xmlns='urn:1'><c xmlns='urn:2'><d xmlns=''><e/></d><f/></c><g/></r>");
        for (Element back : writeAndRead(parsed))
            assertNull(child(child(child(back, "c"), "d"), "e").getNamespaceURI());

        // built without declarations: a child in no namespace under a default one needs xmlns=""
        Document doc = Xml.newDocument();
        Element r = doc.createElementNS("urn:1", "r");
        Element u = doc.createElementNS(null, "u");
        Element v = doc.createElementNS("urn:1", "v");
        Element w = doc.createElementNS("urn:2", "w");
        doc.appendChild(r).appendChild(u).appendChild(v).appendChild(w);
        // a default declaration carried by an element in no namespace cannot apply to it
        u.setAttributeNS(XMLNS, "xmlns", "urn:stale");
        for (Element back : writeAndRead(r))
            assertNull(child(back, "u").getNamespaceURI());
    }

    @Test
    void attributesInANamespace() throws Exception {
        Document doc = Xml.newDocument();
        Element root = doc.createElementNS("urn:1", "p:root");
        root.setAttributeNS("urn:2", "p:clash", "element and attribute share a prefix, not a namespace");
        root.setAttributeNS("urn:3", "bare", "a namespaced attribute with no prefix");
        root.setAttributeNS("urn:1", "p:same", "the element's own namespace");
        root.setAttributeNS("http://www.w3.org/XML/1998/namespace", "xml:lang", "en");
        Element inner = doc.createElementNS("urn:4", "inner"); // in a default namespace
        inner.setAttributeNS("urn:4", "own", "an attribute in the default namespace still needs a prefix");
        inner.setAttributeNS("urn:5", "p:deep", "a prefix bound higher up to another namespace");
        doc.appendChild(root).appendChild(inner);
        for (Element back : writeAndRead(root)) {
            assertEquals("en", back.getAttributeNS("http://www.w3.org/XML/1998/namespace", "lang"));
            assertEquals("urn:1", back.getNamespaceURI());
        }

        writeAndRead(parse("<a xmlns='urn:d' xmlns:q='urn:q'><b q:k='1' xmlns:q='urn:other' k='2'/><c q:k='3'/></a>"));
    }

    @Test
    void xsiTypePrefixesStayDeclared() throws Exception {
        // declared on an ancestor that is not written, on the element, and on a prefix the name needs otherwise
        Element env = parse("<env xmlns:xsi='" + XSI + "' xmlns:t='urn:types' xmlns:u='urn:u'>"
                + "<req xmlns='urn:a'><item xsi:type='t:Flight'/><other xmlns:t='urn:types2' xsi:type='t:Car'/>"
                + "<u:x xsi:type='u:Hotel'/></req></env>");
        for (Element back : writeAndRead(child(env, "req"))) {
            assertEquals("urn:types", qnameNamespace(child(back, "item"), XSI, "type"));
            assertEquals("urn:types2", qnameNamespace(child(back, "other"), XSI, "type"));
            assertEquals("urn:u", qnameNamespace(child(back, "x"), XSI, "type"));
        }

        // the element is moved into another namespace whose name takes the prefix of the xsi:type value
        Element source = parse("<t:thing xmlns:t='urn:types' xmlns:xsi='" + XSI + "' xsi:type='t:Car'/>");
        for (Element back : writeAndRead(moved(source, "urn:b", "t:thing"))) {
            assertEquals("urn:b", back.getNamespaceURI());
            assertEquals("urn:types", qnameNamespace(back, XSI, "type"));
        }

        // a QName in text content
        Element text = parse("<q:r xmlns:q='urn:q' xmlns:s='urn:s'><q:code>s:Server</q:code></q:r>");
        for (Element back : writeAndRead(child(text, "code")))
            assertEquals("urn:s", back.lookupNamespaceURI("s"));
    }

    @Test
    void prefixesRedeclaredDeeperWithAnotherNamespace() throws Exception {
        writeAndRead(parse("<p:a xmlns:p='urn:1'><p:b xmlns:p='urn:2'><p:c/></p:b><p:d/></p:a>"));

        // built without declarations: the same prefix for two namespaces, nested both ways
        Document doc = Xml.newDocument();
        Element a = doc.createElementNS("urn:1", "p:a");
        Element b = doc.createElementNS("urn:2", "p:b");
        Element c = doc.createElementNS("urn:1", "p:c");
        Element d = doc.createElementNS("urn:1", "p:d");
        doc.appendChild(a).appendChild(b).appendChild(c);
        a.appendChild(d);
        // a declaration the element carries that contradicts its own name
        b.setAttributeNS(XMLNS, "xmlns:p", "urn:3");
        b.appendChild(doc.createElementNS("urn:3", "p:e"));
        for (Element back : writeAndRead(a)) {
            assertEquals("urn:2", child(back, "b").getNamespaceURI());
            assertEquals("urn:3", child(child(back, "b"), "e").getNamespaceURI());
        }
    }

    static final java.util.Map<String, String> TO_B = java.util.Map.of("{urn:task}find", "{urn:b}search", "{urn:task}*", "{urn:b}*");
    static final String FIND = "<env xmlns:xsi='" + XSI + "' xmlns:t='urn:types'><f:find xmlns:f='urn:task'>"
            + "<f:to xsi:type='t:City'>Rome</f:to><f:cabin xsi:type='f:Cabin'>economy</f:cabin><x:note xmlns:x='urn:other'/></f:find></env>";

    @Test
    void aRequestMappedToAConcreteInterfaceIsWrittenRenamedAndKeepsItsXsiTypePrefixes() throws Exception {
        Element source = child(parse(FIND), "find");
        StringBuilder out = new StringBuilder();
        DomWriter.write(source, PayloadAdapter.Names.of(TO_B), out);
        // read back with the names the reply side's in-place renaming gives the same payload
        Element back = read(out.toString(), PayloadAdapter.renameInPlace(child(parse(FIND), "find"), PayloadAdapter.Names.of(TO_B)));
        assertEquals("{urn:b}search", name(back.getNamespaceURI(), back.getLocalName()));
        assertEquals("urn:b", child(back, "to").getNamespaceURI(), "{urn:task}* moves the other elements");
        assertEquals("urn:other", child(back, "note").getNamespaceURI(), "another namespace stays");
        assertEquals("urn:types", qnameNamespace(child(back, "to"), XSI, "type"), "a prefix declared outside the payload");
        // a type in the moved namespace moves with it, as the elements do
        assertEquals("urn:b", qnameNamespace(child(back, "cabin"), XSI, "type"));
        assertEquals("{urn:task}find", name(source.getNamespaceURI(), source.getLocalName()), "the engine's message is left as it was");
        assertEquals("urn:task", source.getAttributeNS(XMLNS, "f"));
    }

    @Test
    void aNamesTableRenamesByTheExactNameFirstThenMovesTheNamespace() {
        PayloadAdapter.Names names = PayloadAdapter.Names.of(java.util.Map.of("{urn:task}find", "{urn:b}search",
                "{urn:task}*", "{urn:b}*", "{}plain", "{urn:c}fancy", "nobraces", "{urn:d}x"));
        assertEquals(new PayloadAdapter.Name("urn:b", "search"), names.renamed("urn:task", "find"));
        assertEquals(new PayloadAdapter.Name("urn:b", "to"), names.renamed("urn:task", "to"), "{urn:task}* keeps the local name");
        assertNull(names.renamed("urn:other", "find"), "another namespace keeps its names");
        assertEquals(new PayloadAdapter.Name("urn:c", "fancy"), names.renamed("", "plain"), "{}local names an element of no namespace");
        assertNull(names.renamed("", "nobraces"), "a key not written {ns}local names no element");
        assertEquals("urn:b", names.moved("urn:task"));
        assertEquals("urn:other", names.moved("urn:other"));
        assertEquals("", names.moved(""));
        assertTrue(PayloadAdapter.Names.of(java.util.Map.of()).isEmpty());
        assertFalse(names.isEmpty());
    }

    @Test
    void aReplyIsRenamedInPlaceAndStandsOnItsOwn() throws Exception {
        Element envelope = parse(FIND);
        Element reply = child(envelope, "find");
        Element renamed = PayloadAdapter.renameInPlace(reply, PayloadAdapter.Names.of(TO_B));
        assertSame(envelope, renamed.getParentNode(), "the parsed reply itself, where it stood: no copy");
        assertEquals("{urn:b}search", name(renamed.getNamespaceURI(), renamed.getLocalName()));
        assertEquals("urn:b", child(renamed, "cabin").getNamespaceURI());
        assertEquals("urn:other", child(renamed, "note").getNamespaceURI());
        // the declarations it relied on from the envelope are its own now (moved ones moved)
        assertEquals("urn:types", renamed.getAttributeNS(XMLNS, "t"));
        assertEquals("urn:b", renamed.getAttributeNS(XMLNS, "f"));
        envelope.removeChild(renamed);
        for (Element back : writeAndRead(renamed)) {
            assertEquals("urn:types", qnameNamespace(child(back, "to"), XSI, "type"));
            assertEquals("urn:b", qnameNamespace(child(back, "cabin"), XSI, "type"));
        }
        assertSame(reply, PayloadAdapter.renameInPlace(reply, PayloadAdapter.Names.of(java.util.Map.of())), "no names: nothing to do");
    }

    @Test
    void noDeclarationIsWrittenWhereTheNamespaceBindingInScopeIsTheSame() throws Exception {
        Element parsed = parse("<a:r xmlns:a='urn:a' xmlns='urn:d'><a:x xmlns:a='urn:a'><y xmlns='urn:d'/></a:x></a:r>");
        StringBuilder out = new StringBuilder();
        DomWriter.write(parsed, out);
        String text = out.toString();
        assertTrue(text.endsWith("><a:x><y/></a:x></a:r>"), text);
        assertEquals(2, text.split("xmlns").length - 1, text);
    }
}
