package io.moses.adaptation;

import io.moses.model.TaskRef;
import java.net.URI;
import java.util.Objects;
import org.w3c.dom.Element;

/**
 * One partner invoke of a composite request, in abstract terms.
 *
 * @param task            the task being invoked
 * @param serviceClass    the caller's class, or null when the caller is anonymous
 * @param soapAction      the SOAPAction of the abstract operation (may be empty)
 * @param body            the SOAP body payload: the document-literal element, or the rpc
 *                        wrapper, or null for an empty body (a message with no part); owned
 *                        by the handler from now on
 * @param defaultEndpoint where the deployment's WSDL says the partner is
 * @param soapVersion     the SOAP version of the partner's WSDL binding: every concrete service
 *                        of the task is sent this version (they implement that WSDL binding)
 * @param provider        for a stateful task, the provider (endpoint) this process instance's
 *                        conversation with the partner is bound to: only that endpoint's service
 *                        of the task is called, and no other provider is tried; null otherwise
 * @param replyTo         for an asynchronous task, the call's reply address ({@link ReplyTo}): the
 *                        broker's own addresses in the body get the call's number; null otherwise
 * @param trace           what a tracer is told of this invoke's binding and calls ({@link InvokeTrace#NONE}: nothing)
 */
public record Invocation(TaskRef task, String serviceClass, String soapAction, Element body, URI defaultEndpoint,
                         SoapVersion soapVersion, URI provider, ReplyTo replyTo, InvokeTrace trace) {
    public Invocation {
        Objects.requireNonNull(task, "task");
        soapAction = soapAction == null ? "" : soapAction;
        soapVersion = soapVersion == null ? SoapVersion.SOAP_11 : soapVersion;
        trace = trace == null ? InvokeTrace.NONE : trace;
    }

    public Invocation(TaskRef task, String serviceClass, String soapAction, Element body, URI defaultEndpoint,
                      SoapVersion soapVersion, URI provider, ReplyTo replyTo) {
        this(task, serviceClass, soapAction, body, defaultEndpoint, soapVersion, provider, replyTo, InvokeTrace.NONE);
    }

    /** The same invoke, traced by {@code trace}. */
    public Invocation withTrace(InvokeTrace trace) {
        return new Invocation(task, serviceClass, soapAction, body, defaultEndpoint, soapVersion, provider, replyTo, trace);
    }

    /** An invoke bound to no provider. */
    public Invocation(TaskRef task, String serviceClass, String soapAction, Element body, URI defaultEndpoint,
                      SoapVersion soapVersion) {
        this(task, serviceClass, soapAction, body, defaultEndpoint, soapVersion, null, null);
    }

    /** The same invoke, bound to the stateful partner's {@code provider}. */
    public Invocation withProvider(URI provider) {
        return new Invocation(task, serviceClass, soapAction, body, defaultEndpoint, soapVersion, provider, replyTo, trace);
    }

    /** The same invoke, whose callback comes to {@code replyTo}. */
    public Invocation withReplyTo(ReplyTo replyTo) {
        return new Invocation(task, serviceClass, soapAction, body, defaultEndpoint, soapVersion, provider, replyTo, trace);
    }

    /** The same invoke with another body (a copy, to send once more). */
    Invocation withBody(Element body) {
        return new Invocation(task, serviceClass, soapAction, body, defaultEndpoint, soapVersion, provider, replyTo, trace);
    }

    /** An invoke of a SOAP 1.1 partner. */
    public Invocation(TaskRef task, String serviceClass, String soapAction, Element body, URI defaultEndpoint) {
        this(task, serviceClass, soapAction, body, defaultEndpoint, SoapVersion.SOAP_11);
    }
}
