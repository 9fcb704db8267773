package io.moses.core.engine;

import io.moses.adaptation.Xml;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;

/**
 * Every XML file of a deployment unit read with the broker's hardened parser ({@link Xml}) before
 * any other library sees it: XMLBeans (deploy.xml), WSDL4J and ODE's compiler (.bpel, .wsdl,
 * .xsd) would resolve a DOCTYPE's external entities, read local files and fetch URLs. A unit
 * needs no DOCTYPE, so one is refused outright, and so is an import or include that points
 * outside the unit (a URL, an absolute path, a path up out of it): the unit is all a process
 * may read. Refusals name files by their place in the unit, never by the server's directories.
 */
final class UnitXml {
    private UnitXml() {}

    /** What ODE reads as XML: descriptors, processes, WSDLs, schemas, stylesheets. */
    static final Set<String> SUFFIXES = Set.of(".xml", ".bpel", ".wsdl", ".xsd", ".xsl", ".xslt");
    /** The attributes that make WSDL4J, ODE or a schema reader open another document. */
    private static final List<String> LOCATIONS = List.of("location", "schemaLocation", "importLocation");

    /**
     * Checks every XML file under {@code unit}.
     *
     * @throws DeploymentException naming the file and what is wrong with it
     */
    static void check(Path unit) {
        List<Path> files;
        try (Stream<Path> all = Files.walk(unit)) {
            files = all.filter(Files::isRegularFile).filter(UnitXml::isXml).sorted().toList();
        } catch (IOException e) {
            throw new DeploymentException("cannot read the unit's files: " + e.getMessage());
        }
        for (Path f : files) checkFile(unit, f);
    }

    private static boolean isXml(Path f) {
        String n = f.getFileName().toString().toLowerCase(java.util.Locale.ROOT);
        return SUFFIXES.stream().anyMatch(n::endsWith);
    }

    private static void checkFile(Path unit, Path file) {
        String name = unit.relativize(file).toString().replace('\\', '/');
        Element root;
        try (InputStream in = Files.newInputStream(file)) {
            root = Xml.parse(in).getDocumentElement();
        } catch (SAXParseException e) {
            String msg = e.getMessage() == null ? "" : e.getMessage();
            if (msg.contains("DOCTYPE"))
                throw new DeploymentException(name + ": a DOCTYPE is not allowed in a deployment unit (line " + e.getLineNumber()
                        + "): its files are read without DTDs or entities");
            throw new DeploymentException(name + ": not well-formed XML at line " + e.getLineNumber() + ", column "
                    + e.getColumnNumber() + ": " + msg);
        } catch (SAXException e) {
            throw new DeploymentException(name + ": not well-formed XML: " + e.getMessage());
        } catch (IOException e) {
            throw new DeploymentException(name + ": cannot read: " + e.getMessage());
        }
        Path dir = file.getParent();
        NodeList all = root.getOwnerDocument().getElementsByTagNameNS("*", "*");
        for (int i = 0; i < all.getLength(); i++) {
            Element e = (Element) all.item(i);
            String local = e.getLocalName();
            if (!"import".equals(local) && !"include".equals(local) && !"redefine".equals(local)) continue;
            for (String attribute : LOCATIONS) {
                String location = e.getAttribute(attribute);
                if (!location.isEmpty() && !inside(unit, dir, location))
                    throw new DeploymentException(name + ": <" + local + " " + attribute + "=\"" + location
                            + "\"> points outside the unit: imports name files of the unit by relative paths");
            }
        }
    }

    /** A relative reference that stays within the unit. */
    static boolean inside(Path unit, Path from, String location) {
        URI uri;
        try {
            uri = new URI(location);
        } catch (URISyntaxException e) {
            return false;
        }
        if (uri.isAbsolute() || uri.getRawAuthority() != null || uri.getPath() == null || uri.getPath().startsWith("/")) return false;
        Path target = from.resolve(uri.getPath()).normalize();
        return target.startsWith(unit.normalize());
    }
}
