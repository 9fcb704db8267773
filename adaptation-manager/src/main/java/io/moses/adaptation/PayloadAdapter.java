package io.moses.adaptation;

import io.moses.model.PayloadMapping;
import java.util.Map;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Applies a {@link PayloadMapping}: copies a payload, renaming elements. A key
 * {@code {ns}local} renames one element; a key {@code {ns}*} moves every other element of
 * namespace ns to the value's namespace, keeping its local name.
 */
final class PayloadAdapter {
    private PayloadAdapter() {}

    static Element rename(Element source, Map<String, String> names) {
        if (names.isEmpty() || source == null) return source;
        Document doc = Xml.newDocument();
        Element copy = (Element) copy(doc, source, names);
        doc.appendChild(copy);
        return copy;
    }

    private static Node copy(Document doc, Node node, Map<String, String> names) {
        if (!(node instanceof Element e)) return doc.importNode(node, false);
        String ns = e.getNamespaceURI() == null ? "" : e.getNamespaceURI();
        String local = e.getLocalName();
        String target = names.get("{" + ns + "}" + local);
        String newNs = ns;
        String newLocal = local;
        if (target != null) {
            newNs = namespaceOf(target);
            newLocal = localOf(target);
        } else {
            String wildcard = names.get("{" + ns + "}*");
            if (wildcard != null) newNs = namespaceOf(wildcard);
        }
        String prefix = e.getPrefix();
        Element out = newNs.isEmpty() ? doc.createElementNS(null, newLocal)
                : doc.createElementNS(newNs, (prefix == null || prefix.isEmpty() ? "" : prefix + ":") + newLocal);
        var attrs = e.getAttributes();
        for (int i = 0; i < attrs.getLength(); i++) {
            Node a = attrs.item(i);
            if ("http://www.w3.org/2000/xmlns/".equals(a.getNamespaceURI())) continue;
            out.setAttributeNodeNS((org.w3c.dom.Attr) doc.importNode(a, true));
        }
        for (Node c = e.getFirstChild(); c != null; c = c.getNextSibling()) out.appendChild(copy(doc, c, names));
        return out;
    }

    private static String namespaceOf(String name) {
        return name.startsWith("{") ? name.substring(1, name.indexOf('}')) : "";
    }

    private static String localOf(String name) {
        return name.startsWith("{") ? name.substring(name.indexOf('}') + 1) : name;
    }
}
