package io.moses.core.engine;

import io.moses.adaptation.Xml;
import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.wsdl.Binding;
import javax.wsdl.BindingOperation;
import javax.wsdl.Definition;
import javax.wsdl.Operation;
import javax.wsdl.Part;
import javax.wsdl.Port;
import javax.wsdl.Service;
import javax.wsdl.extensions.soap.SOAPAddress;
import javax.wsdl.extensions.soap.SOAPBinding;
import javax.wsdl.extensions.soap.SOAPBody;
import javax.wsdl.extensions.soap.SOAPOperation;
import javax.wsdl.extensions.soap12.SOAP12Address;
import javax.wsdl.extensions.soap12.SOAP12Binding;
import javax.wsdl.extensions.soap12.SOAP12Body;
import javax.wsdl.extensions.soap12.SOAP12Operation;
import javax.xml.namespace.QName;
import org.apache.ode.utils.DOMUtils;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The SOAP binding of one WSDL port: how an ODE message (a {@code <message>} element with one
 * child per part) becomes a SOAP body payload and back. Document/literal and rpc/literal,
 * SOAP 1.1 and 1.2 bindings.
 */
final class SoapBinding {
    final QName service;
    final String port;
    final String address;
    /** {@link #address} parsed once, at deployment (null where absent or not a URI). */
    private final URI target;
    final boolean soap12;
    private final Map<String, OperationBinding> operations = new HashMap<>();

    /** One operation of the binding. */
    record OperationBinding(Operation operation, boolean rpc, String soapAction, String rpcNamespace) {
        String name() {
            return operation.getName();
        }
    }

    private SoapBinding(QName service, String port, String address, boolean soap12) {
        this.service = service;
        this.port = port;
        this.address = address;
        this.target = parsedOrNull(address);
        this.soap12 = soap12;
    }

    private static URI parsedOrNull(String address) {
        if (address == null || address.isBlank()) return null;
        try {
            return URI.create(address);
        } catch (IllegalArgumentException e) {
            return null; // an invoke through it fails where it is parsed, as any bad address does
        }
    }

    /**
     * Where a call to the address {@code url} goes (null when there is none): the port's own
     * address was parsed at deployment; another (a partner reference the process assigned) is
     * parsed now.
     */
    URI targetOf(String url) {
        if (url == null || url.isBlank()) return null;
        return target != null && url.equals(address) ? target : URI.create(url);
    }

    static SoapBinding of(Definition def, QName serviceName, String portName) {
        if (def == null) throw new DeploymentException("no WSDL in the deployment defines service " + serviceName);
        Service service = def.getService(serviceName);
        if (service == null) throw new DeploymentException("no WSDL in the deployment defines service " + serviceName);
        Port port = service.getPort(portName);
        if (port == null) throw new DeploymentException("service " + serviceName + " has no port " + portName);
        Binding binding = port.getBinding();
        if (binding == null || binding.isUndefined())
            throw new DeploymentException("port " + portName + " of " + serviceName + " has no binding");
        String address = null;
        boolean soap12 = false;
        String defaultStyle = "document";
        for (Object ext : port.getExtensibilityElements()) {
            if (ext instanceof SOAPAddress a) address = a.getLocationURI();
            if (ext instanceof SOAP12Address a) { address = a.getLocationURI(); soap12 = true; }
        }
        boolean isSoap = false;
        for (Object ext : binding.getExtensibilityElements()) {
            if (ext instanceof SOAPBinding b) { isSoap = true; if (b.getStyle() != null) defaultStyle = b.getStyle(); }
            if (ext instanceof SOAP12Binding b) { isSoap = true; soap12 = true; if (b.getStyle() != null) defaultStyle = b.getStyle(); }
        }
        if (!isSoap)
            throw new DeploymentException("port " + portName + " of " + serviceName + " is not a SOAP binding (only SOAP 1.1/1.2 over HTTP is supported)");
        SoapBinding result = new SoapBinding(serviceName, portName, address, soap12);
        for (Object o : binding.getBindingOperations()) {
            BindingOperation bop = (BindingOperation) o;
            String style = defaultStyle;
            String action = "";
            String ns = null;
            for (Object ext : bop.getExtensibilityElements()) {
                if (ext instanceof SOAPOperation so) {
                    if (so.getStyle() != null) style = so.getStyle();
                    if (so.getSoapActionURI() != null) action = so.getSoapActionURI();
                }
                if (ext instanceof SOAP12Operation so) {
                    if (so.getStyle() != null) style = so.getStyle();
                    if (so.getSoapActionURI() != null) action = so.getSoapActionURI();
                }
            }
            if (bop.getBindingInput() != null) {
                for (Object ext : bop.getBindingInput().getExtensibilityElements()) {
                    if (ext instanceof SOAPBody b) ns = b.getNamespaceURI();
                    if (ext instanceof SOAP12Body b) ns = b.getNamespaceURI();
                }
            }
            Operation op = bop.getOperation();
            boolean rpc = "rpc".equals(style);
            result.operations.put(op.getName(), new OperationBinding(op, rpc, action,
                    ns != null ? ns : def.getTargetNamespace()));
        }
        return result;
    }

    OperationBinding operation(String name) {
        return operations.get(name);
    }

    Map<String, OperationBinding> operations() {
        return Map.copyOf(operations);
    }

    /**
     * The SOAP body payload for an ODE message of {@code op}: for document style the single
     * element part, for rpc style the {@code operation} (request) or {@code operationResponse}
     * (reply) wrapper with one child per part; null (an empty SOAP body) for a document-style
     * message with no part.
     *
     * <p>The payload is a copy that keeps the namespaces declared around it in the message
     * (QName-valued content may use them). A reply's is fixed for CXF, which writes a DOM's
     * prefixes and declarations as they are: a process that copied an element into another
     * namespace leaves the source's {@code xmlns} on it ({@link Xml#fixNamespaces}). A partner
     * request's is fixed as it is written.
     */
    Element toBody(OperationBinding op, Element odeMessage, boolean request) {
        Element body = payload(op, odeMessage, request);
        if (body != null && !request) Xml.fixNamespaces(body);
        return body;
    }

    private Element payload(OperationBinding op, Element odeMessage, boolean request) {
        List<Part> parts = parts(op, request);
        if (!op.rpc() && parts.isEmpty()) return null;
        Document doc = DOMUtils.newDocument();
        if (op.rpc()) {
            String wrapper = request ? op.name() : op.name() + "Response";
            Element root = doc.createElementNS(op.rpcNamespace(), "m:" + wrapper);
            for (Part part : parts) {
                Element partEl = doc.createElementNS(null, part.getName());
                Element src = child(odeMessage, part.getName());
                if (src != null)
                    for (Node n = src.getFirstChild(); n != null; n = n.getNextSibling())
                        partEl.appendChild(n instanceof Element e ? Xml.importElement(doc, e) : doc.importNode(n, true));
                root.appendChild(partEl);
            }
            doc.appendChild(root);
            return root;
        }
        if (parts.size() != 1)
            throw new IllegalStateException("document-literal operation " + op.name() + " must have exactly one body part, has " + parts.size());
        Element src = child(odeMessage, parts.get(0).getName());
        Element payload = src == null ? null : DOMUtils.getFirstChildElement(src);
        if (payload == null)
            throw new IllegalStateException("message of " + op.name() + " has no content for part " + parts.get(0).getName());
        Element copy = Xml.importElement(doc, payload);
        doc.appendChild(copy);
        return copy;
    }

    /**
     * The ODE message for a SOAP body payload of {@code op}; {@code body} is null for an empty
     * SOAP body, what a document-style message with no part has.
     *
     * @throws IllegalArgumentException if the payload is not what the operation expects
     */
    Element toOdeMessage(OperationBinding op, Element body, boolean request) {
        List<Part> parts = parts(op, request);
        // A reply the SOAP client parsed into the engine's own DOM (Xerces) is moved into the
        // message inside its own document; anything else is copied into a new one.
        boolean move = body != null && body.getOwnerDocument() instanceof org.apache.xerces.dom.CoreDocumentImpl;
        if (move) Xml.keepInheritedNamespaces(body); // what the envelope declares, before leaving it
        Document doc = move ? body.getOwnerDocument() : DOMUtils.newDocument();
        Element message = doc.createElementNS(null, "message");
        if (!op.rpc() && parts.isEmpty()) {
            if (body != null)
                throw new IllegalArgumentException(op.name() + " expects an empty SOAP body but got {"
                        + nullToEmpty(body.getNamespaceURI()) + "}" + body.getLocalName());
            return root(doc, message);
        }
        if (body == null)
            throw new IllegalArgumentException("empty SOAP body: " + op.name() + " needs "
                    + (op.rpc() ? "its <" + op.name() + (request ? "" : "Response") + "> wrapper"
                       : request ? "a request element" : "a reply element"));
        if (op.rpc()) {
            for (Part part : parts) {
                Element partEl = doc.createElementNS(null, part.getName());
                Element src = child(body, part.getName());
                if (src == null)
                    throw new IllegalArgumentException(op.name() + ": missing part <" + part.getName() + ">");
                for (Node n = src.getFirstChild(), next; n != null; n = next) {
                    next = n.getNextSibling();
                    partEl.appendChild(move ? n : n instanceof Element e ? Xml.importElement(doc, e) : doc.importNode(n, true));
                }
                message.appendChild(partEl);
            }
            return root(doc, message);
        }
        if (parts.size() != 1)
            throw new IllegalStateException("document-literal operation " + op.name() + " must have exactly one body part");
        Part part = parts.get(0);
        QName expected = part.getElementName();
        if (expected != null && !(expected.getLocalPart().equals(body.getLocalName())
                && expected.getNamespaceURI().equals(nullToEmpty(body.getNamespaceURI()))))
            throw new IllegalArgumentException(op.name() + " expects element " + expected + " but got {"
                    + nullToEmpty(body.getNamespaceURI()) + "}" + body.getLocalName());
        Element partEl = doc.createElementNS(null, part.getName());
        partEl.appendChild(move ? body : Xml.importElement(doc, body));
        message.appendChild(partEl);
        return root(doc, message);
    }

    /** Makes {@code message} its document's element (replacing the SOAP envelope it was moved out of). */
    private static Element root(Document doc, Element message) {
        Element old = doc.getDocumentElement();
        if (old == null) doc.appendChild(message);
        else doc.replaceChild(message, old);
        return message;
    }

    /** The element of a WSDL fault whose single part's element is {@code detail}'s name, if any. */
    String faultNameFor(OperationBinding op, Element detail) {
        if (detail == null) return null;
        for (Object o : op.operation().getFaults().values()) {
            javax.wsdl.Fault f = (javax.wsdl.Fault) o;
            if (f.getMessage() == null) continue;
            for (Object p : f.getMessage().getParts().values()) {
                QName el = ((Part) p).getElementName();
                if (el != null && el.getLocalPart().equals(detail.getLocalName())
                        && el.getNamespaceURI().equals(nullToEmpty(detail.getNamespaceURI())))
                    return f.getName();
            }
        }
        return null;
    }

    @SuppressWarnings("unchecked")
    private static List<Part> parts(OperationBinding op, boolean request) {
        javax.wsdl.Message m = request
                ? (op.operation().getInput() == null ? null : op.operation().getInput().getMessage())
                : (op.operation().getOutput() == null ? null : op.operation().getOutput().getMessage());
        if (m == null) return List.of();
        return (List<Part>) m.getOrderedParts(null);
    }

    private static Element child(Element parent, String localName) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling())
            if (n instanceof Element e && localName.equals(e.getLocalName() != null ? e.getLocalName() : e.getNodeName()))
                return e;
        return null;
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }
}
