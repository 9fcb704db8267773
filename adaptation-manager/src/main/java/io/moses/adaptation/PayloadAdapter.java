package io.moses.adaptation;

import io.moses.adaptation.CallOutcome.CallFailure;
import io.moses.adaptation.CallOutcome.CallFault;
import io.moses.adaptation.CallOutcome.CallReply;
import io.moses.adaptation.InvokeOutcome.InvokeFailure;
import io.moses.adaptation.InvokeOutcome.InvokeFault;
import io.moses.adaptation.InvokeOutcome.InvokeReply;
import io.moses.model.PayloadMapping;
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
 * them). A request is renamed as it is written ({@link DomWriter#write(Element, Map, StringBuilder)}:
 * the engine's message is not ours to change); a reply in place ({@link #answer}: the parsed
 * reply belongs to its call). Neither copies the payload.
 */
final class PayloadAdapter {
    private PayloadAdapter() {}

    /** An element's name after renaming. */
    record Name(String namespace, String local) {}

    /** What the element {ns}local is called under {@code names}; null if it keeps its name. */
    static Name renamed(String ns, String local, Map<String, String> names) {
        if (names.isEmpty()) return null;
        String target = names.get("{" + ns + "}" + local);
        if (target != null) return new Name(namespaceOf(target), localOf(target));
        String wildcard = names.get("{" + ns + "}*");
        return wildcard == null ? null : new Name(namespaceOf(wildcard), local);
    }

    /** The namespace {@code ns} moves to by a {@code {ns}*} mapping, else itself. */
    static String moved(String ns, Map<String, String> names) {
        String wildcard = ns.isEmpty() || names.isEmpty() ? null : names.get("{" + ns + "}*");
        return wildcard == null ? ns : namespaceOf(wildcard);
    }

    /**
     * Renames {@code source} and its descendants in place (the declarations in scope from its
     * ancestors are declared on it, moved as the names are, so it stands on its own); returns
     * the element that now stands where {@code source} stood.
     */
    static Element renameInPlace(Element source, Map<String, String> names) {
        if (names.isEmpty() || source == null) return source;
        List<String> inherited = DomWriter.inherited(source);
        Element renamed = rename(source, names);
        for (int i = 0; i + 1 < inherited.size(); i += 2)
            Xml.declareIfUnbound(renamed, inherited.get(i), moved(inherited.get(i + 1), names));
        return renamed;
    }

    private static Element rename(Element e, Map<String, String> names) {
        NamedNodeMap attrs = e.getAttributes();
        for (int i = 0; i < attrs.getLength(); i++) {
            Attr a = (Attr) attrs.item(i);
            if (XMLNS.equals(a.getNamespaceURI())) {
                String ns = moved(a.getValue(), names);
                if (!ns.equals(a.getValue())) a.setValue(ns);
            }
        }
        for (Node c = e.getFirstChild(); c != null; ) {
            Node next = c.getNextSibling(); // a renamed child may be a new node in its place
            if (c instanceof Element child) rename(child, names);
            c = next;
        }
        String local = e.getLocalName();
        Name to = local == null ? null : renamed(e.getNamespaceURI() == null ? "" : e.getNamespaceURI(), local, names);
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
    static InvokeOutcome answer(Invocation invocation, String service, PayloadMapping mapping, CallOutcome result) {
        if (result instanceof CallReply r)
            return new InvokeReply(renameInPlace(r.body(), mapping.replyNames()), service);
        if (result instanceof CallFault f)
            return new InvokeFault(f.code(), f.reason(),
                    f.detail() == null ? null : renameInPlace(f.detail(), mapping.replyNames()), service);
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
