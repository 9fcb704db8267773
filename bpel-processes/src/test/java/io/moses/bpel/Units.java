package io.moses.bpel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/** The deployment units shipped in this module and small DOM helpers to read them. */
final class Units {
    static final String BPEL = "http://docs.oasis-open.org/wsbpel/2.0/process/executable";
    static final String WSDL = "http://schemas.xmlsoap.org/wsdl/";
    static final String SOAP = "http://schemas.xmlsoap.org/wsdl/soap/";
    static final String DD = "http://www.apache.org/ode/schemas/dd/2007/03";

    private Units() {}

    /** The module's directory: surefire runs tests there and also passes it as "basedir". */
    static Path moduleDir() {
        return Path.of(System.getProperty("basedir", ".")).toAbsolutePath().normalize();
    }

    /** Every top-level directory of the module holding a deploy.xml. */
    static List<Path> shipped() throws IOException {
        try (Stream<Path> dirs = Files.list(moduleDir())) {
            return dirs.filter(d -> Files.isRegularFile(d.resolve("deploy.xml"))).sorted().toList();
        }
    }

    static Document parse(Path file) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        // ODE puts Xerces 2.11 on the class path: it knows this feature, not the JAXP 1.5 properties
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        f.setExpandEntityReferences(false);
        return f.newDocumentBuilder().parse(file.toFile());
    }

    /** All descendant elements of {@code root} (itself excluded) named {@code {ns}local}. */
    static List<Element> all(Element root, String ns, String local) {
        NodeList nodes = root.getElementsByTagNameNS(ns, local);
        List<Element> out = new ArrayList<>(nodes.getLength());
        for (int i = 0; i < nodes.getLength(); i++) out.add((Element) nodes.item(i));
        return out;
    }

    /** Direct child elements of {@code parent} named {@code {ns}local}. */
    static List<Element> children(Element parent, String ns, String local) {
        List<Element> out = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling())
            if (n instanceof Element e && ns.equals(e.getNamespaceURI()) && local.equals(e.getLocalName())) out.add(e);
        return out;
    }
}
