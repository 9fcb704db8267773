package io.moses.core.engine;

import io.moses.model.TaskRef;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.wsdl.PortType;
import javax.xml.namespace.QName;
import org.apache.ode.bpel.iapi.BindingContext;
import org.apache.ode.bpel.iapi.Endpoint;
import org.apache.ode.bpel.iapi.EndpointReference;
import org.apache.ode.bpel.iapi.EndpointReferenceContext;
import org.apache.ode.bpel.iapi.PartnerRoleChannel;
import org.apache.ode.utils.DOMUtils;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * ODE's BindingContext (endpoint activation) and endpoint-reference context: my-role endpoints are served by the broker's
 * front-end (nothing to activate here), at the public URL's {@code /services/<service>}, the
 * address of the reference a process hands out (its partner calls back there); a partner role's
 * endpoint is the SOAP address its deployment's WSDL gives, unless the process assigns another
 * one at run time.
 */
final class Endpoints implements BindingContext, EndpointReferenceContext {
    static final String WSA = "http://www.w3.org/2005/08/addressing";
    static final String SERVICE_REF = "http://docs.oasis-open.org/wsbpel/2.0/serviceref";
    /** The standard fault of an invoke whose partner reference is of a kind the engine does not know. */
    static final QName UNSUPPORTED_REFERENCE = new QName("http://docs.oasis-open.org/wsbpel/2.0/process/executable", "unsupportedReference");

    /** (process id, partner endpoint) -> SOAP binding of the partner port. */
    private final Map<QName, ProcessConfiguration> processes = new ConcurrentHashMap<>();
    private final java.util.function.Supplier<String> publicUrl;

    /** @param publicUrl where partners reach the broker ({@code http://host:port}); null: a process's own references hold no address */
    Endpoints(java.util.function.Supplier<String> publicUrl) {
        this.publicUrl = publicUrl;
    }

    void add(ProcessConfiguration conf) {
        processes.put(conf.getProcessId(), conf);
    }

    /** An endpoint reference that is just a SOAP address. */
    record Address(String url) implements EndpointReference {
        @Override
        public Document toXML() {
            Document doc = DOMUtils.newDocument();
            Element ref = doc.createElementNS(SERVICE_REF, "service-ref");
            Element epr = doc.createElementNS(WSA, "wsa:EndpointReference");
            Element address = doc.createElementNS(WSA, "wsa:Address");
            address.setTextContent(url == null ? "" : url);
            epr.appendChild(address);
            ref.appendChild(epr);
            doc.appendChild(ref);
            return doc;
        }
    }

    /**
     * A partner reference the broker cannot call (not an address, an EPR or a URL): an invoke
     * through it faults with {@link #UNSUPPORTED_REFERENCE} instead of calling anything.
     */
    record Unsupported(Element reference, String reason) implements EndpointReference {
        @Override
        public Document toXML() {
            Document doc = DOMUtils.newDocument();
            doc.appendChild(doc.importNode(reference, true));
            return doc;
        }
    }

    /**
     * The channel of one partner link of one process: knows the SOAP binding of the partner's
     * port, and the task each invoke through it is.
     */
    static final class Channel implements PartnerRoleChannel {
        final SoapBinding binding;
        private final String composite;
        /** By partner link and operation: the task of an invoke, made once (see {@link #task}). */
        private final Map<String, Map<String, TaskRef>> tasks = new ConcurrentHashMap<>();

        private final java.util.function.Supplier<String> publicUrl;

        /**
         * @param composite the process's type (local part), the composite service its tasks belong to
         * @param publicUrl where partners reach the broker, or null
         */
        Channel(SoapBinding binding, String composite, java.util.function.Supplier<String> publicUrl) {
            this.binding = binding;
            this.composite = composite;
            this.publicUrl = publicUrl;
        }

        /** Where the broker's services are, as the process's own references give them; null if they hold no address. */
        String replyBase() {
            String base = publicUrl.get();
            return base == null ? null : base + "/services/";
        }

        /**
         * The task an invoke of {@code operation} on {@code partnerLink} is, the same object for
         * every invoke: a new one per invoke built its name, hashed it again in every map it was
         * looked up in, and, kept by the monitors for a second, was promoted with its name by the
         * thousand a second.
         */
        TaskRef task(String partnerLink, String operation) {
            return tasks.computeIfAbsent(partnerLink, k -> new ConcurrentHashMap<>())
                    .computeIfAbsent(operation, op -> TaskRef.of(composite, partnerLink, op));
        }

        @Override
        public EndpointReference getInitialEndpointReference() {
            return new Address(binding.address);
        }

        @Override
        public void close() {}
    }

    @Override
    public EndpointReference activateMyRoleEndpoint(QName processId, Endpoint myRoleEndpoint) {
        String base = publicUrl.get();
        return new Address(base == null ? null : base + "/services/" + myRoleEndpoint.serviceName.getLocalPart());
    }

    @Override
    public void deactivateMyRoleEndpoint(Endpoint myRoleEndpoint) {}

    @Override
    public PartnerRoleChannel createPartnerRoleChannel(QName processId, PortType portType, Endpoint initialPartnerEndpoint) {
        ProcessConfiguration conf = processes.get(processId);
        if (conf == null || initialPartnerEndpoint == null)
            throw new DeploymentException("process " + processId + ": partner of port type " + portType.getQName()
                    + " has no <invoke> endpoint in deploy.xml");
        return new Channel(SoapBinding.of(conf.getDefinitionForService(initialPartnerEndpoint.serviceName),
                initialPartnerEndpoint.serviceName, initialPartnerEndpoint.portName), conf.getType().getLocalPart(), publicUrl);
    }

    @Override
    public long calculateSizeofService(EndpointReference epr) {
        return 0;
    }

    /**
     * Accepts a service-ref, a WS-Addressing EPR, a soap:address, or a bare absolute URL; any
     * other reference is {@link Unsupported}.
     */
    @Override
    public EndpointReference resolveEndpointReference(Element epr) {
        if (epr == null) return null;
        NodeList addresses = epr.getElementsByTagNameNS(WSA, "Address");
        if (addresses.getLength() > 0) return new Address(addresses.item(0).getTextContent().trim());
        if ("address".equals(epr.getLocalName()) && epr.hasAttribute("location"))
            return new Address(epr.getAttribute("location"));
        for (Node n = epr.getFirstChild(); n != null; n = n.getNextSibling())
            if (n instanceof Element e && e.hasAttribute("location")) return new Address(e.getAttribute("location"));
        for (Node n = epr.getFirstChild(); n != null; n = n.getNextSibling())
            if (n instanceof Element e)
                return new Unsupported(epr, "a reference of kind {" + (e.getNamespaceURI() == null ? "" : e.getNamespaceURI())
                        + "}" + e.getLocalName());
        String text = epr.getTextContent() == null ? "" : epr.getTextContent().trim();
        if (text.isEmpty()) return null;
        try {
            if (java.net.URI.create(text).isAbsolute()) return new Address(text);
        } catch (IllegalArgumentException e) {
            // not a URL: unsupported below
        }
        return new Unsupported(epr, "'" + text + "' is not an address");
    }

    @Override
    public EndpointReference convertEndpoint(QName targetType, Element sourceEndpoint) {
        return resolveEndpointReference(sourceEndpoint);
    }

    @Override
    @SuppressWarnings("rawtypes")
    public Map getConfigLookup(EndpointReference epr) {
        return Map.of();
    }
}
