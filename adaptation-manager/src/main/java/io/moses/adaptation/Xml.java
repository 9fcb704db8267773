package io.moses.adaptation;

import java.io.ByteArrayInputStream;
import java.io.StringWriter;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.Transformer;
import javax.xml.transform.TransformerException;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.w3c.dom.Document;
import org.w3c.dom.Node;
import org.xml.sax.SAXException;

/**
 * XML parsing and writing with the JDK's own implementations (ODE puts Xerces and Xalan on the
 * class path; we do not rely on what they install), hardened: the broker's one XML parser, for
 * SOAP payloads and process definitions alike. It reads nothing but its input: no DOCTYPE at
 * all (so no internal or external entities, no entity bombs), no external DTD or schema, no
 * XInclude, secure processing on (the JDK's entity-expansion and size limits) and an entity
 * expansion limit of its own should a DOCTYPE ever get through. A {@link Parser} may also
 * produce another implementation's documents (ODE's Xerces) with the same settings.
 */
public final class Xml {
    private Xml() {}

    private static final Parser JDK = new Parser(DocumentBuilderFactory.newDefaultInstance());
    private static final ThreadLocal<Transformer> WRITER = ThreadLocal.withInitial(Xml::newWriter);

    /**
     * A hardened parser producing the documents of one DOM implementation (the JDK's, or the
     * one a caller keeps its documents in: ODE's Xerces), one builder per thread. Parsing
     * straight into the caller's implementation spares a deep copy of every reply.
     */
    public static final class Parser {
        private final DocumentBuilderFactory factory;
        private final ThreadLocal<DocumentBuilder> builders = ThreadLocal.withInitial(this::newBuilder);

        public Parser(DocumentBuilderFactory factory) {
            this.factory = harden(factory);
        }

        private DocumentBuilder newBuilder() {
            synchronized (factory) { // a factory is not guaranteed to be thread-safe
                try {
                    DocumentBuilder b = factory.newDocumentBuilder();
                    quiet(b);
                    return b;
                } catch (ParserConfigurationException e) {
                    throw new IllegalStateException(e);
                }
            }
        }

        /** Parses a document; refuses DTDs and entities. */
        public Document parse(java.io.InputStream in) throws SAXException {
            try {
                return read(in);
            } catch (java.io.IOException e) {
                throw new SAXException(e);
            }
        }

        Document read(java.io.InputStream in) throws SAXException, java.io.IOException {
            DocumentBuilder b = builders.get();
            try {
                return b.parse(in);
            } finally {
                b.reset();
                quiet(b);
            }
        }

        public Document newDocument() {
            return builders.get().newDocument();
        }
    }

    private static DocumentBuilderFactory harden(DocumentBuilderFactory f) {
        try {
            f.setNamespaceAware(true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            f.setFeature("http://xml.org/sax/features/external-general-entities", false);
            f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setXIncludeAware(false);
            f.setExpandEntityReferences(false);
            f.setValidating(false);
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("cannot harden " + f.getClass().getName() + ": " + e.getMessage(), e);
        }
        try {
            // Xerces: build the whole tree at once (a reply is read in full anyway, and a
            // deferred tree expands lazily, which is not safe to read from two threads)
            f.setFeature("http://apache.org/xml/features/dom/defer-node-expansion", false);
        } catch (ParserConfigurationException e) {
            // not a Xerces-derived factory: nothing deferred
        }
        try {
            // JAXP 1.5 properties: the JDK's parser has them, an older Xerces may not (it then
            // still refuses every DOCTYPE, above)
            f.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            f.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            f.setAttribute("http://www.oracle.com/xml/jaxp/properties/entityExpansionLimit", "100");
        } catch (IllegalArgumentException e) {
            // not supported by this implementation
        }
        return f;
    }

    /**
     * Should anything still try to resolve an entity it gets nothing; errors are thrown, not
     * printed (the JDK's default handler writes "[Fatal Error]" to stderr).
     */
    private static void quiet(DocumentBuilder b) {
        b.setEntityResolver(NO_ENTITIES);
        b.setErrorHandler(THROW_ERRORS);
    }

    private static final org.xml.sax.EntityResolver NO_ENTITIES =
            (publicId, systemId) -> new org.xml.sax.InputSource(new java.io.StringReader(""));

    private static final org.xml.sax.ErrorHandler THROW_ERRORS = new org.xml.sax.ErrorHandler() {
        @Override public void warning(org.xml.sax.SAXParseException e) { }
        @Override public void error(org.xml.sax.SAXParseException e) throws SAXException { throw e; }
        @Override public void fatalError(org.xml.sax.SAXParseException e) throws SAXException { throw e; }
    };

    /** The JDK's parser. */
    public static Parser jdk() {
        return JDK;
    }

    private static Transformer newWriter() {
        try {
            TransformerFactory f = TransformerFactory.newDefaultInstance();
            f.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            f.setAttribute(XMLConstants.ACCESS_EXTERNAL_STYLESHEET, "");
            Transformer t = f.newTransformer();
            t.setOutputProperty(OutputKeys.OMIT_XML_DECLARATION, "yes");
            t.setOutputProperty(OutputKeys.ENCODING, "UTF-8");
            return t;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Parses a document read from {@code in} (not closed here); refuses DTDs and entities. */
    public static Document parse(java.io.InputStream in) throws SAXException, java.io.IOException {
        return JDK.read(in);
    }

    /** Parses a document; refuses DTDs and entities. */
    public static Document parse(byte[] bytes) throws SAXException {
        return JDK.parse(new ByteArrayInputStream(bytes));
    }

    public static Document newDocument() {
        return JDK.newDocument();
    }

    /**
     * Makes the declarations under {@code root} agree with its elements' and attributes'
     * namespaces, in place, the way the partner request writer writes them (prefixes changed
     * where one is declared on its element for another namespace, the declarations each name
     * needs added, those in scope from {@code root}'s ancestors copied onto it). For a DOM that
     * another writer writes with its prefixes and declarations as they are (CXF's): a process
     * that moves an element into another namespace keeps the source's {@code xmlns} on it.
     */
    public static void fixNamespaces(org.w3c.dom.Element root) {
        DomWriter.fix(root);
    }

    /**
     * A deep copy of {@code source} in {@code doc} that keeps the namespace declarations
     * {@code source}'s ancestors make (QName-valued content such as an {@code xsi:type} value
     * may use their prefixes; {@code importNode} alone loses them).
     */
    public static org.w3c.dom.Element importElement(Document doc, org.w3c.dom.Element source) {
        org.w3c.dom.Element copy = (org.w3c.dom.Element) doc.importNode(source, true);
        inheritNamespaces(source, copy);
        return copy;
    }

    /**
     * Declares on {@code e} the namespaces its ancestors declare and it does not, so that it
     * keeps them when it is moved out of its document (a reply body out of its SOAP envelope).
     */
    public static void keepInheritedNamespaces(org.w3c.dom.Element e) {
        inheritNamespaces(e, e);
    }

    /**
     * Declares {@code prefix} as {@code namespace} on {@code e} unless {@code e} itself binds it
     * (by a declaration or by its name's prefix). The default namespace and the SOAP
     * envelope's namespaces are left out: neither is what QName-valued content refers to.
     */
    public static void declareIfUnbound(org.w3c.dom.Element e, String prefix, String namespace) {
        if (prefix == null || prefix.isEmpty() || namespace == null || namespace.isEmpty()
                || "xml".equals(prefix) || "xmlns".equals(prefix)
                || SoapVersion.SOAP_11.envelopeNamespace.equals(namespace) || SoapVersion.SOAP_12.envelopeNamespace.equals(namespace))
            return;
        if (!prefix.equals(e.getPrefix()) && !e.hasAttributeNS(XMLNS, prefix)) e.setAttributeNS(XMLNS, "xmlns:" + prefix, namespace);
    }

    /** Declares on {@code to} what {@code from}'s ancestors declare ({@link #declareIfUnbound}). */
    static void inheritNamespaces(org.w3c.dom.Element from, org.w3c.dom.Element to) {
        java.util.List<String> inherited = DomWriter.inherited(from);
        for (int i = 0; i + 1 < inherited.size(); i += 2)
            declareIfUnbound(to, inherited.get(i), inherited.get(i + 1));
    }

    private static final String XMLNS = "http://www.w3.org/2000/xmlns/";

    /** Writes a node as text, without XML declaration. */
    public static String write(Node node) {
        StringWriter out = new StringWriter();
        try {
            WRITER.get().transform(new DOMSource(node), new StreamResult(out));
        } catch (TransformerException e) {
            throw new IllegalStateException("cannot write XML: " + e.getMessage(), e);
        }
        return out.toString();
    }
}
