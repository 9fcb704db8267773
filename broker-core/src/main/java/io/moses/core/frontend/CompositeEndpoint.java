package io.moses.core.frontend;

import io.moses.adaptation.Xml;
import io.moses.core.engine.CompositeInvoker;
import io.moses.core.engine.CompositeOutcome;
import io.moses.core.engine.CompositeOutcome.CompositeFailure;
import io.moses.core.engine.CompositeOutcome.CompositeFault;
import io.moses.core.engine.CompositeOutcome.CompositeReply;
import io.moses.core.engine.ProvidedService;
import jakarta.annotation.Resource;
import jakarta.xml.ws.Provider;
import jakarta.xml.ws.Service;
import jakarta.xml.ws.ServiceMode;
import jakarta.xml.ws.WebServiceContext;
import jakarta.xml.ws.WebServiceProvider;
import jakarta.xml.ws.handler.MessageContext;
import java.time.Duration;
import javax.xml.namespace.QName;
import javax.xml.transform.dom.DOMSource;
import org.apache.cxf.binding.soap.SoapFault;
import org.apache.cxf.binding.soap.Soap11;
import org.apache.cxf.binding.soap.Soap12;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The SOAP front-end of one provided service of a composite: CXF parses and checks the
 * envelope against the deployment's WSDL, this hands the body payload to the BPEL engine and
 * turns the outcome into a reply or a SOAP fault with a reason the caller can act on.
 */
@WebServiceProvider
@ServiceMode(Service.Mode.PAYLOAD)
final class CompositeEndpoint implements Provider<DOMSource> {
    private final CompositeInvoker engine;
    private final ProvidedService service;
    private final Duration timeout;
    private final Authenticator authenticator;
    private final RequestMetrics metrics;
    private final ConversationForwarding conversations;

    @Resource
    private WebServiceContext context;

    CompositeEndpoint(CompositeInvoker engine, ProvidedService service, Duration timeout, Authenticator authenticator,
                      RequestMetrics metrics, ConversationForwarding conversations) {
        this.engine = engine;
        this.service = service;
        this.timeout = timeout;
        this.authenticator = authenticator;
        this.metrics = metrics;
        this.conversations = conversations;
    }

    @Override
    public DOMSource invoke(DOMSource request) {
        long start = System.nanoTime();
        String outcome = "fault";
        MessageContext mc = null;
        QName operation = null;
        String serviceClass = null;
        try {
            mc = context.getMessageContext();
            operation = (QName) mc.get(MessageContext.WSDL_OPERATION);
            if (operation == null) throw clientFault("the request names no operation of " + service.service().getLocalPart());
            io.moses.model.User caller;
            String call = callOf(mc);
            try {
                // checked once per request: by a filter in front when it polices or sheds, else here
                Object found = mc.get(MessageContext.SERVLET_REQUEST) instanceof jakarta.servlet.http.HttpServletRequest http
                        ? http.getAttribute(PolicingFilter.CALLER) : null;
                if (found instanceof AuthenticationException refused) throw refused;
                io.moses.model.User byCall = call == null || found != null || hasCredentials(mc) ? null
                        : authenticator.userOfCall(service.composite(), call);
                if (byCall != null && engine.startsInstances(service.service(), operation.getLocalPart()))
                    throw new AuthenticationException("a reply address's call number only answers a conversation, and "
                            + operation.getLocalPart() + " starts one: send the user's HTTP Basic credentials");
                caller = byCall != null ? byCall : found instanceof io.moses.model.User u ? u : authenticator.callerOf(mc);
                serviceClass = caller != null ? caller.serviceClass() : authenticator.serviceClassOf(mc);
            } catch (AuthenticationException e) {
                outcome = "unauthenticated";
                throw clientFault(e.getMessage());
            }
            // null: an empty SOAP body, what an operation whose input has no part is sent
            Element body = element(request == null ? null : request.getNode());
            if (body != null) keepEnvelopeNamespaces(body, mc);
            // before it is routed: its instance may have ended with the answer of the call that replaced it
            CompositeOutcome dropped = call == null ? null : engine.discarded(service.service(), operation.getLocalPart(), call);
            if (dropped instanceof CompositeReply) {
                outcome = "discarded";
                return null;
            }
            if (dropped instanceof CompositeFailure f) throw clientFault(f.reason());
            if (conversations != ConversationForwarding.NONE) {
                ConversationForwarding.Relayed relayed = forwarded(mc, operation.getLocalPart(), body, caller, call);
                if (relayed != null) {
                    if (relayed.faultReason() != null) throw new SoapFault(relayed.faultReason(), faultCode(relayed.clientFault()));
                    outcome = "ok";
                    return relayed.payload() == null ? null : new DOMSource(relayed.payload());
                }
            }
            CompositeOutcome result = engine.invoke(service.service(), operation.getLocalPart(), body, serviceClass,
                    caller == null ? null : caller.name(), timeout,
                    mc.get(MessageContext.SERVLET_REQUEST) instanceof jakarta.servlet.http.HttpServletRequest http
                            && http.getAttribute(PolicingFilter.BEST_EFFORT) != null, call);
            if (result instanceof CompositeReply r) {
                outcome = "ok";
                return r.body() == null ? null : new DOMSource(r.body());
            }
            if (result instanceof CompositeFault f) {
                SoapFault fault = new SoapFault(f.reason(), faultCode(false));
                if (f.detail() != null) {
                    Element detail = fault.getOrCreateDetail();
                    Element copy = Xml.importElement(detail.getOwnerDocument(), f.detail());
                    Xml.fixNamespaces(copy); // CXF writes it as it is
                    detail.appendChild(copy);
                }
                throw fault;
            }
            CompositeFailure failure = (CompositeFailure) result;
            throw new SoapFault(failure.reason(), faultCode(failure.clientError()));
        } finally {
            metrics.composite(service.composite(), outcome, System.nanoTime() - start);
            if (mc != null)
                io.moses.core.tracing.Tracing.describe(mc.get(MessageContext.SERVLET_REQUEST), service.composite(),
                        service.service().getLocalPart(), operation == null ? null : operation.getLocalPart(), serviceClass, outcome);
        }
    }

    /**
     * CXF's copy of the body payload has only the declarations its names need; those the
     * envelope and the body make (collected with {@link HttpFrontEnd#BODY_NAMESPACES}) may be
     * what an {@code xsi:type} value or other QName-valued content in it refers to.
     */
    @SuppressWarnings("unchecked")
    private static void keepEnvelopeNamespaces(Element body, MessageContext mc) {
        if (mc.get(BODY_NAMESPACE_CONTEXT) instanceof java.util.Map<?, ?> declared)
            for (java.util.Map.Entry<String, String> d : ((java.util.Map<String, String>) declared).entrySet())
                Xml.declareIfUnbound(body, d.getKey(), d.getValue());
    }

    /** Where CXF leaves the declarations in scope at the SOAP body (a map of prefix to namespace). */
    private static final String BODY_NAMESPACE_CONTEXT = "soap.body.ns.context";

    /**
     * The owner replica's answer when the message's instance lives there, a refusal when its
     * conversation is another user's; null to handle it here.
     */
    @SuppressWarnings("unchecked")
    private ConversationForwarding.Relayed forwarded(MessageContext mc, String operation, Element body, io.moses.model.User caller,
                                                     String call) {
        var headers = (java.util.Map<String, java.util.List<String>>) mc.get(MessageContext.HTTP_REQUEST_HEADERS);
        if (headers == null) headers = java.util.Map.of();
        boolean hop = false;
        for (String name : headers.keySet())
            if (ConversationForwarding.HOP_HEADER.equalsIgnoreCase(name)) hop = true; // forwarded once already: never again
        if (call != null && !hop) { // the owner, which awaits the call, is told which one the message answers
            headers = new java.util.HashMap<>(headers);
            headers.put(ConversationForwarding.CALL_HEADER, java.util.List.of(call));
        }
        return conversations.forward(service, operation, body, headers, caller == null ? null : caller.name(), hop);
    }

    @SuppressWarnings("unchecked")
    private static boolean hasCredentials(MessageContext mc) {
        if (mc.get(MessageContext.HTTP_REQUEST_HEADERS) instanceof java.util.Map<?, ?> headers)
            for (var h : ((java.util.Map<String, java.util.List<String>>) headers).entrySet())
                if ("Authorization".equalsIgnoreCase(h.getKey()) && h.getValue() != null && !h.getValue().isEmpty()) return true;
        return false;
    }

    /**
     * The call of the broker's a message answers: named by its address (a reply address the
     * broker gave a partner, {@link io.moses.adaptation.ReplyTo}), or by the replica that
     * forwarded it here.
     */
    @SuppressWarnings("unchecked")
    private static String callOf(MessageContext mc) {
        // from the message, not the servlet request: CXF answers a one-way message 202 and goes on
        // without it, and the servlet request may be recycled by then
        String call = io.moses.adaptation.ReplyTo.callIn((String) mc.get(MessageContext.QUERY_STRING));
        if (call != null) return call;
        if (mc.get(MessageContext.HTTP_REQUEST_HEADERS) instanceof java.util.Map<?, ?> headers)
            for (var h : ((java.util.Map<String, java.util.List<String>>) headers).entrySet())
                if (ConversationForwarding.CALL_HEADER.equalsIgnoreCase(h.getKey()) && h.getValue() != null && !h.getValue().isEmpty())
                    return io.moses.adaptation.ReplyTo.callIn(io.moses.adaptation.ReplyTo.PARAMETER + "=" + h.getValue().get(0));
        return null;
    }

    private SoapFault clientFault(String reason) {
        return new SoapFault(reason, faultCode(true));
    }

    private QName faultCode(boolean client) {
        if (service.soap12()) return client ? Soap12.getInstance().getSender() : Soap12.getInstance().getReceiver();
        return client ? Soap11.getInstance().getSender() : Soap11.getInstance().getReceiver();
    }

    private static Element element(Node node) {
        if (node instanceof Element e) return e;
        if (node instanceof Document d) return d.getDocumentElement();
        return null;
    }
}
