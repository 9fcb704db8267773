package io.moses.adaptation;

import io.moses.adaptation.CallOutcome.CallFailure;
import io.moses.adaptation.CallOutcome.CallFault;
import io.moses.adaptation.CallOutcome.CallReply;
import io.moses.adaptation.InvokeOutcome.InvokeFailure;
import io.moses.adaptation.InvokeOutcome.InvokeFault;
import io.moses.adaptation.InvokeOutcome.InvokeReply;
import io.moses.model.PayloadMapping;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.w3c.dom.Attr;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.Node;

/**
 * Applies a {@link PayloadMapping}'s names: a key {@code {ns}local} renames one element; a key
 * {@code {ns}*} moves every other element of namespace ns to the value's namespace, keeping its
 * local name (and the declarations of ns with it: QName-valued content such as xsi:type may use
 * them). A request is renamed as it is written ({@link DomWriter#write(Element, Names, StringBuilder)}:
 * the engine's message is not ours to change); a reply in place ({@link #answer}: the parsed
 * reply belongs to its call). Neither copies the payload.
 */
final class PayloadAdapter {
    private PayloadAdapter() {}

    /** An element's name after renaming. */
    record Name(String namespace, String local) {}

    /**
     * A mapping's names ({@link PayloadMapping#requestNames()} or {@link PayloadMapping#replyNames()})
     * compiled for the request path: an element's new name is found by the namespace and local
     * name the DOM holds, with no key built per element (building {@code {ns}local} twice per
     * element was most of what renaming cost).
     */
    static final class Names {
        static final Names NONE = new Names(Map.of(), Map.of());

        /** namespace -> local name -> new name, from the keys {@code {ns}local} */
        private final Map<String, Map<String, Name>> exact;
        /** namespace -> the namespace its other elements move to, from the keys {@code {ns}*} */
        private final Map<String, String> moves;

        private Names(Map<String, Map<String, Name>> exact, Map<String, String> moves) {
            this.exact = exact;
            this.moves = moves;
        }

        /** Compiles a names table; a key not written {@code {ns}local} names no element and is left out. */
        static Names of(Map<String, String> table) {
            if (table.isEmpty()) return NONE;
            Map<String, Map<String, Name>> exact = new HashMap<>();
            Map<String, String> moves = new HashMap<>();
            table.forEach((from, to) -> {
                if (!from.startsWith("{") || from.indexOf('}') < 0) return;
                String ns = namespaceOf(from), local = localOf(from);
                if (local.equals("*")) moves.put(ns, namespaceOf(to));
                else exact.computeIfAbsent(ns, k -> new HashMap<>()).put(local, new Name(namespaceOf(to), localOf(to)));
            });
            Map<String, Map<String, Name>> frozen = new HashMap<>();
            exact.forEach((ns, m) -> frozen.put(ns, Map.copyOf(m)));
            return new Names(Map.copyOf(frozen), Map.copyOf(moves));
        }

        boolean isEmpty() {
            return exact.isEmpty() && moves.isEmpty();
        }

        /** What the element {ns}local is called; null if it keeps its name. */
        Name renamed(String ns, String local) {
            Map<String, Name> byLocal = exact.get(ns);
            Name to = byLocal == null ? null : byLocal.get(local);
            if (to != null) return to;
            String moved = moves.get(ns);
            return moved == null ? null : new Name(moved, local);
        }

        /** The namespace {@code ns} moves to by a {@code {ns}*} name, else itself. */
        String moved(String ns) {
            String to = ns.isEmpty() ? null : moves.get(ns);
            return to == null ? ns : to;
        }
    }

    /**
     * Renames {@code source} and its descendants in place (the declarations in scope from its
     * ancestors are declared on it, moved as the names are, so it stands on its own); returns
     * the element that now stands where {@code source} stood.
     */
    static Element renameInPlace(Element source, Names names) {
        if (names.isEmpty() || source == null) return source;
        List<String> inherited = DomWriter.inherited(source);
        Element renamed = rename(source, names);
        for (int i = 0; i + 1 < inherited.size(); i += 2)
            Xml.declareIfUnbound(renamed, inherited.get(i), names.moved(inherited.get(i + 1)));
        return renamed;
    }

    private static Element rename(Element e, Names names) {
        NamedNodeMap attrs = e.getAttributes();
        for (int i = 0; i < attrs.getLength(); i++) {
            Attr a = (Attr) attrs.item(i);
            if (XMLNS.equals(a.getNamespaceURI())) {
                String ns = names.moved(a.getValue());
                if (!ns.equals(a.getValue())) a.setValue(ns);
            }
        }
        for (Node c = e.getFirstChild(); c != null; ) {
            Node next = c.getNextSibling(); // a renamed child may be a new node in its place
            if (c instanceof Element child) rename(child, names);
            c = next;
        }
        String local = e.getLocalName();
        Name to = local == null ? null : names.renamed(e.getNamespaceURI() == null ? "" : e.getNamespaceURI(), local);
        if (to == null) return e;
        String prefix = e.getPrefix();
        return (Element) e.getOwnerDocument().renameNode(e, to.namespace().isEmpty() ? null : to.namespace(),
                to.namespace().isEmpty() || prefix == null || prefix.isEmpty() ? to.local() : prefix + ":" + to.local());
    }

    /**
     * What one call of a concrete service for an invoke means in the abstract interface's terms:
     * a reply or a fault with its payload mapped back, or a failure naming the task and the
     * service. Shared by every binding (static, adaptive, and each pattern's members).
     */
    static InvokeOutcome answer(Invocation invocation, String service, Names replyNames, CallOutcome result) {
        if (result instanceof CallReply r)
            return new InvokeReply(renameInPlace(r.body(), replyNames), service);
        if (result instanceof CallFault f)
            return new InvokeFault(f.code(), f.reason(),
                    f.detail() == null ? null : renameInPlace(f.detail(), replyNames), service);
        CallFailure f = (CallFailure) result;
        return new InvokeFailure(invocation.task() + " failed at " + service + ": " + f.reason(), java.util.List.of(service));
    }

    private static final String XMLNS = "http://www.w3.org/2000/xmlns/";

    private static String namespaceOf(String name) {
        return name.startsWith("{") ? name.substring(1, name.indexOf('}')) : "";
    }

    private static String localOf(String name) {
        return name.startsWith("{") ? name.substring(name.indexOf('}') + 1) : name;
    }
}
