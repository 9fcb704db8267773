package io.moses.adaptation;

import io.moses.adaptation.CallOutcome.CallFailure;
import io.moses.adaptation.CallOutcome.CallFault;
import io.moses.adaptation.CallOutcome.CallReply;
import io.moses.adaptation.InvokeOutcome.InvokeFailure;
import io.moses.adaptation.InvokeOutcome.InvokeFault;
import io.moses.adaptation.InvokeOutcome.InvokeReply;
import io.moses.model.PayloadMapping;
import java.util.Map;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Applies a {@link PayloadMapping}: copies a payload, renaming elements. A key
 * {@code {ns}local} renames one element; a key {@code {ns}*} moves every other element of
 * namespace ns to the value's namespace, keeping its local name. Also turns a concrete
 * service's answer back into the abstract interface's terms ({@link #answer}).
 */
final class PayloadAdapter {
    private PayloadAdapter() {}

    static Element rename(Element source, Map<String, String> names) {
        if (names.isEmpty() || source == null) return source;
        // a document of the source's own implementation (the engine's, for a reply)
        Document doc = source.getOwnerDocument().getImplementation().createDocument(null, null, null);
        Element copy = (Element) copy(doc, source, names);
        java.util.List<String> inherited = DomWriter.inherited(source);
        for (int i = 0; i + 1 < inherited.size(); i += 2)
            Xml.declareIfUnbound(copy, inherited.get(i), mapped(inherited.get(i + 1), names));
        doc.appendChild(copy);
        return copy;
    }

    /**
     * What one call of a concrete service for an invoke means in the abstract interface's terms:
     * a reply or a fault with its payload mapped back, or a failure naming the task and the
     * service. Shared by every binding (static, adaptive, and each pattern's members).
     */
    static InvokeOutcome answer(Invocation invocation, String service, PayloadMapping mapping, CallOutcome result) {
        if (result instanceof CallReply r)
            return new InvokeReply(rename(r.body(), mapping.replyNames()), service);
        if (result instanceof CallFault f)
            return new InvokeFault(f.code(), f.reason(),
                    f.detail() == null ? null : rename(f.detail(), mapping.replyNames()), service);
        CallFailure f = (CallFailure) result;
        return new InvokeFailure(invocation.task() + " failed at " + service + ": " + f.reason(), java.util.List.of(service));
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
        // declarations too, of a namespace moved whole ({ns}*) moved with it: QName-valued
        // content (xsi:type) may use them; where one conflicts with a renamed element's
        // prefix, the writer gives the element another
        var attrs = e.getAttributes();
        for (int i = 0; i < attrs.getLength(); i++) {
            org.w3c.dom.Attr a = (org.w3c.dom.Attr) doc.importNode(attrs.item(i), true);
            if (XMLNS.equals(a.getNamespaceURI())) a.setValue(mapped(a.getValue(), names));
            out.setAttributeNodeNS(a);
        }
        for (Node c = e.getFirstChild(); c != null; c = c.getNextSibling()) out.appendChild(copy(doc, c, names));
        return out;
    }

    private static final String XMLNS = "http://www.w3.org/2000/xmlns/";

    /** The namespace {@code ns} moves to by a {@code {ns}*} mapping, else itself. */
    private static String mapped(String ns, Map<String, String> names) {
        String wildcard = ns.isEmpty() ? null : names.get("{" + ns + "}*");
        return wildcard == null ? ns : namespaceOf(wildcard);
    }

    private static String namespaceOf(String name) {
        return name.startsWith("{") ? name.substring(1, name.indexOf('}')) : "";
    }

    private static String localOf(String name) {
        return name.startsWith("{") ? name.substring(name.indexOf('}') + 1) : name;
    }
}
