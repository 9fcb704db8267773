package io.moses.ode;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.lang.reflect.Field;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.validation.Schema;
import org.apache.ode.bpel.o.OAssign;
import org.apache.ode.bpel.o.OBase;
import org.apache.ode.bpel.o.OProcess;
import org.apache.ode.utils.DOMUtils;
import org.w3c.dom.DOMImplementation;
import org.w3c.dom.Document;
import org.xml.sax.EntityResolver;
import org.xml.sax.ErrorHandler;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;

/**
 * How ODE parses the XML it parses at run time: chiefly every {@code <from><literal>} of an
 * {@code <assign>}, which ODE's {@code ASSIGN} parses again from its text each time it runs
 * ({@code DOMUtils.stringToDOM}), several times per request in a typical process.
 *
 * <p>Two changes, both to ODE's parser factory ({@code DOMUtils.__documentBuilderFactory}, Xerces;
 * ODE has no setting for either, so the factory is reached by reflection, once, before the
 * engine's threads make their parsers: ODE keeps one parser per thread, made on first use):
 * <ul>
 * <li>no deferred nodes: Xerces' deferred DOM first records a document in large arrays and
 *     expands nodes on first touch; for a literal of a few elements, which ASSIGN then copies
 *     node by node, the arrays cost more than the parse (measured: 2.8 % of a broker's CPU in
 *     allocating them). Turned off, the parser builds the same document directly.</li>
 * <li>each literal parsed once: the literals of the deployed processes ({@link #remember}) are
 *     parsed when first deployed, and a parse of the same text gets a copy of that document
 *     (a copy: ASSIGN normalizes what it gets and takes nodes from it). Any other text is parsed
 *     as before.</li>
 * </ul>
 */
public final class LiteralParsing {
    static final String DEFER_NODE_EXPANSION = "http://apache.org/xml/features/dom/defer-node-expansion";
    /** Bounds on what is kept: the literals of deployed processes are few and small. */
    static final int MAX_LITERALS = 10_000, MAX_LENGTH = 64 * 1024;

    /** Each remembered literal's text and its document, which is never handed out, only copied. */
    private static final Map<String, Document> PARSED = new ConcurrentHashMap<>();
    /** The longest text remembered: a longer input is no literal and is parsed as it comes. */
    private static volatile int longest;
    private static volatile DocumentBuilderFactory xerces;

    private LiteralParsing() {}

    /**
     * Makes ODE's parser factory build documents without deferred nodes, and parse each
     * remembered literal once, for the parsers made from now on. Idempotent.
     *
     * @throws IllegalStateException when ODE's factory is not where ODE 1.3.7 keeps it
     */
    public static synchronized void install() {
        try {
            Field f = DOMUtils.class.getDeclaredField("__documentBuilderFactory");
            f.setAccessible(true);
            if (f.get(null) instanceof OncePerLiteral) return;
            DocumentBuilderFactory odes = (DocumentBuilderFactory) f.get(null);
            odes.setFeature(DEFER_NODE_EXPANSION, false);
            xerces = odes;
            f.set(null, new OncePerLiteral(odes));
        } catch (ReflectiveOperationException | ParserConfigurationException | ClassCastException e) {
            throw new IllegalStateException("ODE's DOMUtils has no Xerces parser factory where ODE 1.3.7 keeps it: " + e, e);
        }
    }

    /** Parses the literals of {@code process} that are not known yet (after {@link #install()}). */
    public static synchronized void remember(OProcess process) { // rare: one at a time keeps longest the longest
        DocumentBuilderFactory factory = xerces;
        if (factory == null) return;
        DocumentBuilder parser = null;
        for (OBase o : process.getChildren()) {
            if (!(o instanceof OAssign.Literal literal)) continue;
            String text = literal.getXmlLiteral();
            if (text == null || text.length() > MAX_LENGTH || PARSED.containsKey(text) || PARSED.size() >= MAX_LITERALS)
                continue;
            try {
                if (parser == null) {
                    synchronized (factory) {
                        parser = factory.newDocumentBuilder();
                    }
                }
                PARSED.put(text, parser.parse(new InputSource(new StringReader(text))));
                if (text.length() > longest) longest = text.length();
            } catch (ParserConfigurationException | SAXException | IOException e) {
                // ASSIGN parses it when it runs, and reports what is wrong with it
            }
        }
    }

    /** How many literals are known (for tests). */
    static int remembered() {
        return PARSED.size();
    }

    /** A copy of the document of {@code text} if it is a remembered literal, else null. */
    static Document copyOf(String text) {
        Document parsed = PARSED.get(text);
        if (parsed == null) return null;
        synchronized (parsed) { // a Xerces document is not safe to read from two threads at once
            return (Document) parsed.cloneNode(true);
        }
    }

    /** ODE's factory, whose parsers answer a remembered literal with a copy of its document. */
    private static final class OncePerLiteral extends DocumentBuilderFactory {
        private final DocumentBuilderFactory delegate;

        OncePerLiteral(DocumentBuilderFactory delegate) {
            this.delegate = delegate;
            setNamespaceAware(delegate.isNamespaceAware());
            setValidating(delegate.isValidating());
        }

        @Override
        public DocumentBuilder newDocumentBuilder() throws ParserConfigurationException {
            return new Parser(delegate.newDocumentBuilder());
        }

        @Override public void setAttribute(String name, Object value) { delegate.setAttribute(name, value); }
        @Override public Object getAttribute(String name) { return delegate.getAttribute(name); }
        @Override public void setFeature(String name, boolean value) throws ParserConfigurationException { delegate.setFeature(name, value); }
        @Override public boolean getFeature(String name) throws ParserConfigurationException { return delegate.getFeature(name); }
    }

    private static final class Parser extends DocumentBuilder {
        private final DocumentBuilder delegate;

        Parser(DocumentBuilder delegate) {
            this.delegate = delegate;
        }

        @Override
        public Document parse(InputSource in) throws SAXException, IOException {
            Reader reader = in.getCharacterStream();
            int limit = longest;
            if (reader == null || limit == 0 || in.getByteStream() != null || in.getSystemId() != null) return delegate.parse(in);
            char[] head = new char[limit + 1];
            int n = 0;
            for (int r; n < head.length && (r = reader.read(head, n, head.length - n)) > 0; ) n += r;
            if (n == head.length) return delegate.parse(new InputSource(new HeadThenRest(head, reader))); // longer than any literal
            String text = new String(head, 0, n);
            Document copy = copyOf(text);
            return copy != null ? copy : delegate.parse(new InputSource(new StringReader(text)));
        }

        @Override public boolean isNamespaceAware() { return delegate.isNamespaceAware(); }
        @Override public boolean isValidating() { return delegate.isValidating(); }
        @Override public void setEntityResolver(EntityResolver er) { delegate.setEntityResolver(er); }
        @Override public void setErrorHandler(ErrorHandler eh) { delegate.setErrorHandler(eh); }
        @Override public Document newDocument() { return delegate.newDocument(); }
        @Override public DOMImplementation getDOMImplementation() { return delegate.getDOMImplementation(); }
        @Override public void reset() { delegate.reset(); }
        @Override public Schema getSchema() { return delegate.getSchema(); }
        @Override public boolean isXIncludeAware() { return delegate.isXIncludeAware(); }
    }

    /** The characters already read, then the rest of the reader. */
    private static final class HeadThenRest extends Reader {
        private final char[] head;
        private final Reader rest;
        private int next;

        HeadThenRest(char[] head, Reader rest) {
            this.head = head;
            this.rest = rest;
        }

        @Override
        public int read(char[] buf, int off, int len) throws IOException {
            if (len == 0) return 0;
            if (next < head.length) {
                int n = Math.min(len, head.length - next);
                System.arraycopy(head, next, buf, off, n);
                next += n;
                return n;
            }
            return rest.read(buf, off, len);
        }

        @Override
        public void close() throws IOException {
            rest.close();
        }
    }
}
