package io.moses.adaptation;

import java.util.ArrayList;
import java.util.List;
import org.w3c.dom.Attr;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.Node;

/**
 * Writes a DOM element as XML text in one pass (the JDK's identity transformer costs several
 * times more per partner request). Namespaces are declared where the output needs them: the
 * element's and its attributes' own, the declarations it carries, and for the top element the
 * declarations in scope from its ancestors (prefixes used in content, such as xsi:type values).
 */
final class DomWriter {
    private static final String XMLNS = "http://www.w3.org/2000/xmlns/";
    private static final String XML = "http://www.w3.org/XML/1998/namespace";

    private final StringBuilder out;
    /** Declared prefixes and their namespaces, innermost last; "" is the default namespace. */
    private final List<String> scope = new ArrayList<>();

    private DomWriter(StringBuilder out) {
        this.out = out;
    }

    static void write(Element root, StringBuilder out) {
        DomWriter w = new DomWriter(out);
        List<String> inherited = new ArrayList<>();
        for (Node n = root.getParentNode(); n instanceof Element e; n = n.getParentNode()) {
            NamedNodeMap attrs = e.getAttributes();
            for (int i = 0; i < attrs.getLength(); i++) {
                Attr a = (Attr) attrs.item(i);
                if (!XMLNS.equals(a.getNamespaceURI())) continue;
                String prefix = "xmlns".equals(a.getPrefix()) ? a.getLocalName() : "";
                if (!inherited.contains(prefix)) {
                    inherited.add(prefix);
                    inherited.add(a.getValue());
                }
            }
        }
        w.element(root, inherited);
    }

    private String lookup(String prefix) {
        for (int i = scope.size() - 2; i >= 0; i -= 2)
            if (scope.get(i).equals(prefix)) return scope.get(i + 1);
        return "".equals(prefix) ? "" : null;
    }

    private void declare(String prefix, String ns) {
        scope.add(prefix);
        scope.add(ns);
        out.append(prefix.isEmpty() ? " xmlns" : " xmlns:").append(prefix).append("=\"");
        escape(ns, true);
        out.append('"');
    }

    private void element(Element e, List<String> inherited) {
        int mark = scope.size();
        String ns = e.getNamespaceURI() == null ? "" : e.getNamespaceURI();
        String prefix = e.getPrefix() == null ? "" : e.getPrefix();
        String local = e.getLocalName() != null ? e.getLocalName() : e.getNodeName();
        out.append('<');
        if (!prefix.isEmpty()) out.append(prefix).append(':');
        out.append(local);
        NamedNodeMap attrs = e.getAttributes();
        int n = attrs.getLength();
        // the declarations the element carries, then those its name and attributes need
        for (int i = 0; i < n; i++) {
            Attr a = (Attr) attrs.item(i);
            if (!XMLNS.equals(a.getNamespaceURI())) continue;
            String p = "xmlns".equals(a.getPrefix()) ? a.getLocalName() : "";
            if (!a.getValue().equals(lookup(p))) declare(p, a.getValue());
        }
        for (int i = 0; i + 1 < inherited.size(); i += 2)
            if (!inherited.get(i + 1).equals(lookup(inherited.get(i)))) declare(inherited.get(i), inherited.get(i + 1));
        if (e.getLocalName() != null && !ns.equals(lookup(prefix))) declare(prefix, ns);
        for (int i = 0; i < n; i++) {
            Attr a = (Attr) attrs.item(i);
            String ans = a.getNamespaceURI();
            if (XMLNS.equals(ans)) continue;
            String ap = a.getPrefix();
            if (ans != null && !ans.isEmpty() && !XML.equals(ans)) {
                if (ap == null || ap.isEmpty() || !ans.equals(lookup(ap))) {
                    if (ap == null || ap.isEmpty() || lookup(ap) != null) ap = freePrefix();
                    declare(ap, ans);
                }
            }
            out.append(' ');
            if (ap != null && !ap.isEmpty()) out.append(ap).append(':');
            out.append(a.getLocalName() != null ? a.getLocalName() : a.getNodeName()).append("=\"");
            escape(a.getValue(), true);
            out.append('"');
        }
        Node child = e.getFirstChild();
        if (child == null) {
            out.append("/>");
        } else {
            out.append('>');
            for (; child != null; child = child.getNextSibling()) node(child);
            out.append("</");
            if (!prefix.isEmpty()) out.append(prefix).append(':');
            out.append(local).append('>');
        }
        scope.subList(mark, scope.size()).clear();
    }

    private String freePrefix() {
        for (int i = 0; ; i++)
            if (lookup("ns" + i) == null) return "ns" + i;
    }

    private void node(Node c) {
        switch (c.getNodeType()) {
            case Node.ELEMENT_NODE -> element((Element) c, List.of());
            case Node.TEXT_NODE -> escape(c.getNodeValue(), false);
            case Node.CDATA_SECTION_NODE -> out.append("<![CDATA[").append(c.getNodeValue().replace("]]>", "]]]]><![CDATA[>")).append("]]>");
            case Node.COMMENT_NODE -> out.append("<!--").append(c.getNodeValue()).append("-->");
            case Node.PROCESSING_INSTRUCTION_NODE -> out.append("<?").append(c.getNodeName()).append(' ').append(c.getNodeValue()).append("?>");
            case Node.ENTITY_REFERENCE_NODE -> {
                for (Node g = c.getFirstChild(); g != null; g = g.getNextSibling()) node(g);
            }
            default -> { }
        }
    }

    private void escape(String s, boolean attribute) {
        int start = 0;
        for (int i = 0, len = s.length(); i < len; i++) {
            char ch = s.charAt(i);
            String rep = switch (ch) {
                case '&' -> "&amp;";
                case '<' -> "&lt;";
                case '>' -> attribute ? null : "&gt;";
                case '"' -> attribute ? "&quot;" : null;
                case '\t' -> attribute ? "&#9;" : null;
                case '\n' -> attribute ? "&#10;" : null;
                case '\r' -> "&#13;";
                default -> null;
            };
            if (rep != null) {
                out.append(s, start, i).append(rep);
                start = i + 1;
            }
        }
        out.append(s, start, s.length());
    }
}
