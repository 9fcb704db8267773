package io.moses.core.composition;

import io.moses.adaptation.Xml;
import java.io.IOException;
import java.io.InputStream;
import org.w3c.dom.Document;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;

/**
 * Reads a process definition with the broker's one hardened parser ({@link Xml}: no DOCTYPE,
 * no external entities or DTDs, no XInclude; a process definition needs none of these) and
 * words its errors for the author of the process.
 */
final class SecureXml {
    private SecureXml() {}

    static Document parse(InputStream in, String source) {
        try {
            return Xml.parse(in);
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
}
