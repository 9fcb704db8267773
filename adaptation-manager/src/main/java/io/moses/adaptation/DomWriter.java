package io.moses.adaptation;

import java.util.ArrayList;
import java.util.List;
import org.w3c.dom.Attr;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.Node;

/**
 * Writes a DOM element as XML text in one pass (the JDK's identity transformer costs several
 * times more per partner request), with namespace fixup: whatever prefixes and declarations the
 * DOM holds, each element and attribute is written in its own namespace, and no element gets
 * two declarations of one prefix.
 *
 * <p>The declarations an element carries (and, for the top element, those in scope from its
 * ancestors) are kept as they are: QName-valued content such as {@code xsi:type="t:T"} may
 * use them. A name is written with its own prefix where that prefix is bound to its namespace
 * or still free on the element; otherwise (a process that moved an element into another
 * namespace keeps the source's {@code xmlns="urn:a"} on it) with a prefix already bound to
 * the namespace, or a new one. A declaration is written only where the namespace binding in scope differs.
 *
 * <p>{@link #fix} applies the same fixup to the DOM itself, for writers that write a DOM's
 * prefixes and declarations as they are (CXF's, for replies and faults to the composite's caller).
 */
final class DomWriter {
    private static final String XMLNS = "http://www.w3.org/2000/xmlns/";
    private static final String XML = "http://www.w3.org/XML/1998/namespace";
    private static final Attr[] NO_ATTRIBUTES = {};

    /** Where the text goes; null when fixing the DOM in place instead. */
    private final StringBuilder out;
    /** A {@link PayloadAdapter} renaming applied as the names are written (empty: none). */
    private final PayloadAdapter.Names names;
    /**
     * The declarations in scope as prefix, namespace pairs, innermost last; "" is the default
     * namespace, and "" as namespace undeclares it.
     */
    private final List<String> scope = new ArrayList<>();

    private DomWriter(StringBuilder out, PayloadAdapter.Names names) {
        this.out = out;
        this.names = names;
    }

    static void write(Element root, StringBuilder out) {
        write(root, PayloadAdapter.Names.NONE, out);
    }

    /**
     * Writes {@code root} renamed by a {@link io.moses.model.PayloadMapping}'s names
     * ({@link PayloadAdapter}): what writing its renamed copy would write, without the copy (the
     * engine's message is not the adapter's to change).
     */
    static void write(Element root, PayloadAdapter.Names names, StringBuilder out) {
        new DomWriter(out, names).element(root, inherited(root));
    }

    /**
     * Makes the DOM under {@code root} what {@link #write} would write: prefixes changed where
     * a name's prefix is declared on its element for another namespace, the declarations each
     * name needs added, and those in scope from {@code root}'s ancestors copied onto it (so a
     * copy of {@code root} elsewhere keeps them). Changes {@code root}'s subtree in place.
     */
    static void fix(Element root) {
        new DomWriter(null, PayloadAdapter.Names.NONE).element(root, inherited(root));
    }

    /** The declarations in scope from {@code root}'s ancestors, innermost first, as prefix, namespace pairs. */
    static List<String> inherited(Element root) {
        List<String> inherited = new ArrayList<>();
        for (Node n = root.getParentNode(); n instanceof Element e; n = n.getParentNode()) {
            NamedNodeMap attrs = e.getAttributes();
            for (int i = 0; i < attrs.getLength(); i++) {
                Attr a = (Attr) attrs.item(i);
                if (!XMLNS.equals(a.getNamespaceURI())) continue;
                String prefix = declaredPrefix(a);
                if (!inherited.contains(prefix)) { // the innermost declaration of a prefix wins
                    inherited.add(prefix);
                    inherited.add(a.getValue());
                }
            }
        }
        return inherited;
    }

    /** The prefix an {@code xmlns} or {@code xmlns:p} attribute declares: "" or p. */
    private static String declaredPrefix(Attr a) {
        return "xmlns".equals(a.getPrefix()) ? a.getLocalName() : "";
    }

    /** The namespace {@code prefix} is bound to in scope; null if unbound. */
    private String lookup(String prefix) {
        for (int i = scope.size() - 2; i >= 0; i -= 2)
            if (scope.get(i).equals(prefix)) return scope.get(i + 1);
        if (prefix.isEmpty()) return "";
        return "xml".equals(prefix) ? XML : null;
    }

    /** Where the element whose declarations start at {@code mark} declares {@code prefix}; -1 if it does not. */
    private int declaredAt(String prefix, int mark) {
        for (int i = mark; i < scope.size(); i += 2)
            if (scope.get(i).equals(prefix)) return i;
        return -1;
    }

    /** A prefix bound to {@code ns} in scope (not shadowed by a deeper declaration); null if none. */
    private String boundPrefix(String ns, boolean defaultToo) {
        for (int i = scope.size() - 2; i >= 0; i -= 2) {
            String p = scope.get(i);
            if (scope.get(i + 1).equals(ns) && (defaultToo || !p.isEmpty()) && ns.equals(lookup(p))) return p;
        }
        return null;
    }

    private String freePrefix() {
        for (int i = 0; ; i++)
            if (lookup("ns" + i) == null) return "ns" + i;
    }

    /** A declaration the DOM holds: kept unless it is in scope already or cannot be written. */
    private void carry(String prefix, String ns, int mark) {
        if (!prefix.isEmpty() && (ns.isEmpty() || "xml".equals(prefix) || "xmlns".equals(prefix))) return;
        if (ns.equals(lookup(prefix)) || declaredAt(prefix, mark) >= 0) return;
        scope.add(prefix);
        scope.add(ns);
    }

    /** The prefix the element's name is written with, declared in scope. */
    private String bindElement(String ns, String prefix, int mark) {
        if (ns.isEmpty()) { // no namespace: unprefixed, with no default namespace in scope
            if (!lookup("").isEmpty()) {
                int at = declaredAt("", mark);
                if (at >= 0) scope.set(at + 1, ""); // a default the element carries cannot apply to its own name
                else {
                    scope.add("");
                    scope.add("");
                }
            }
            return "";
        }
        if (ns.equals(lookup(prefix))) return prefix;
        if (!"xml".equals(prefix) && !"xmlns".equals(prefix) && declaredAt(prefix, mark) < 0) {
            scope.add(prefix);
            scope.add(ns);
            return prefix;
        }
        String bound = boundPrefix(ns, true);
        if (bound != null) return bound;
        String fresh = freePrefix();
        scope.add(fresh);
        scope.add(ns);
        return fresh;
    }

    /** The prefix a namespaced attribute is written with (never the default namespace); declared if new. */
    private String bindAttribute(String ns, String prefix) {
        if (XML.equals(ns)) return "xml";
        if (!prefix.isEmpty() && ns.equals(lookup(prefix))) return prefix;
        // a prefix unbound everywhere in scope is used by neither this element's name nor its other attributes
        if (!prefix.isEmpty() && !"xmlns".equals(prefix) && lookup(prefix) == null) {
            declare(prefix, ns);
            return prefix;
        }
        String bound = boundPrefix(ns, false);
        if (bound != null) return bound;
        String fresh = freePrefix();
        declare(fresh, ns);
        return fresh;
    }

    private void declare(String prefix, String ns) {
        scope.add(prefix);
        scope.add(ns);
        if (out != null) writeDeclaration(prefix, ns); // fixing: added to the element after its attributes
    }

    private void writeDeclaration(String prefix, String ns) {
        out.append(prefix.isEmpty() ? " xmlns" : " xmlns:").append(prefix).append("=\"");
        escape(ns, true);
        out.append('"');
    }

    private void element(Element e, List<String> inherited) {
        int mark = scope.size();
        NamedNodeMap attrs = e.getAttributes();
        int n = attrs.getLength();
        // the declarations the element carries, then those its ancestors made (top element only)
        for (int i = 0; i < n; i++) {
            Attr a = (Attr) attrs.item(i);
            if (XMLNS.equals(a.getNamespaceURI())) carry(declaredPrefix(a), names.moved(a.getValue()), mark);
        }
        for (int i = 0; i + 1 < inherited.size(); i += 2) carry(inherited.get(i), names.moved(inherited.get(i + 1)), mark);
        String local = e.getLocalName();
        String prefix;
        if (local == null) { // a DOM level 1 node: no namespace to fix
            local = e.getNodeName();
            prefix = "";
        } else {
            String ns = e.getNamespaceURI() == null ? "" : e.getNamespaceURI();
            PayloadAdapter.Name renamed = names.renamed(ns, local);
            if (renamed != null) {
                ns = renamed.namespace();
                local = renamed.local();
            }
            prefix = bindElement(ns, e.getPrefix() == null ? "" : e.getPrefix(), mark);
        }
        if (out == null) {
            fixElement(e, prefix, mark);
            return;
        }
        out.append('<');
        if (!prefix.isEmpty()) out.append(prefix).append(':');
        out.append(local);
        for (int i = mark; i < scope.size(); i += 2) writeDeclaration(scope.get(i), scope.get(i + 1));
        for (int i = 0; i < n; i++) {
            Attr a = (Attr) attrs.item(i);
            String ans = a.getNamespaceURI();
            if (XMLNS.equals(ans)) continue;
            if (ans != null && !ans.isEmpty() && a.getLocalName() != null) {
                String ap = bindAttribute(ans, a.getPrefix() == null ? "" : a.getPrefix()); // may write a declaration
                out.append(' ').append(ap).append(':').append(a.getLocalName());
            } else {
                out.append(' ').append(a.getLocalName() != null ? a.getLocalName() : a.getNodeName());
            }
            out.append("=\"");
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

    /** {@link #element} for {@link #fix}: the element's name, attributes and declarations set as they would be written. */
    private void fixElement(Element e, String prefix, int mark) {
        if (e.getLocalName() != null && !prefix.equals(e.getPrefix() == null ? "" : e.getPrefix()))
            e.setPrefix(prefix.isEmpty() ? null : prefix);
        NamedNodeMap attrs = e.getAttributes();
        Attr[] named = attrs.getLength() == 0 ? NO_ATTRIBUTES : new Attr[attrs.getLength()]; // renaming may reorder the map
        for (int i = 0; i < named.length; i++) named[i] = (Attr) attrs.item(i);
        for (Attr a : named) {
            String ans = a.getNamespaceURI();
            if (ans == null || ans.isEmpty() || XMLNS.equals(ans) || a.getLocalName() == null) continue;
            String ap = bindAttribute(ans, a.getPrefix() == null ? "" : a.getPrefix());
            if (!ap.equals(a.getPrefix())) a.setPrefix(ap);
        }
        for (int i = mark; i < scope.size(); i += 2) {
            String p = scope.get(i);
            Attr held = e.getAttributeNodeNS(XMLNS, p.isEmpty() ? "xmlns" : p);
            if (held == null || !held.getValue().equals(scope.get(i + 1)))
                e.setAttributeNS(XMLNS, p.isEmpty() ? "xmlns" : "xmlns:" + p, scope.get(i + 1));
        }
        for (Node child = e.getFirstChild(); child != null; child = child.getNextSibling())
            if (child instanceof Element c) element(c, List.of());
        scope.subList(mark, scope.size()).clear();
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
