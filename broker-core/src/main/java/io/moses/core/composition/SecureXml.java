package io.moses.core.composition;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.xml.sax.ErrorHandler;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;

/**
 * A namespace-aware DOM parser that reads nothing but its input: no DOCTYPE at all (so no
 * external or internal entities, no entity bombs), no external DTD or schema, no XInclude.
 * A process definition needs none of these. The JDK's own parser is used on purpose
 * ({@code newDefaultInstance}), not whatever Xerces the engine's jars put on the classpath, so
 * the features set here are the ones that apply.
 */
final class SecureXml {
    private SecureXml() {}

    static Document parse(InputStream in, String source) {
        DocumentBuilder builder = builder();
        try {
            return builder.parse(new InputSource(in));
        } catch (SAXParseException e) {
            String msg = e.getMessage() == null ? "" : e.getMessage();
            if (msg.contains("DOCTYPE"))
                throw new IllegalArgumentException(source + ": a DOCTYPE is not allowed in a BPEL process (line "
                        + e.getLineNumber() + ")");
            throw new IllegalArgumentException(source + ": not well-formed XML at line " + e.getLineNumber()
                    + ", column " + e.getColumnNumber() + ": " + msg);
        } catch (SAXException e) {
            throw new IllegalArgumentException(source + ": not well-formed XML: " + e.getMessage());
        } catch (IOException e) {
            throw new IllegalArgumentException(source + ": cannot read: " + e.getMessage());
        }
    }

    private static DocumentBuilder builder() {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newDefaultInstance();
            f.setNamespaceAware(true);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            f.setFeature("http://xml.org/sax/features/external-general-entities", false);
            f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
            f.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            f.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            f.setXIncludeAware(false);
            f.setExpandEntityReferences(false);
            f.setValidating(false);
            f.setIgnoringComments(true);
            DocumentBuilder b = f.newDocumentBuilder();
            // Belt and braces: should anything still try to resolve an entity, it gets nothing.
            b.setEntityResolver((publicId, systemId) -> new InputSource(new StringReader("")));
            // The default handler prints "[Fatal Error]" to stderr; the exception says it all.
            b.setErrorHandler(new ErrorHandler() {
                @Override public void warning(SAXParseException e) { }
                @Override public void error(SAXParseException e) throws SAXException { throw e; }
                @Override public void fatalError(SAXParseException e) throws SAXException { throw e; }
            });
            return b;
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("the JDK XML parser lacks a security feature: " + e.getMessage(), e);
        }
    }
}
