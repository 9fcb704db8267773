package io.moses.adaptation;

/**
 * The SOAP version a partner's WSDL binding declares ({@code soap:binding} or
 * {@code soap12:binding}): it decides the envelope's namespace and how the action travels.
 */
public enum SoapVersion {
    /** SOAP 1.1: {@code text/xml}, the action in a {@code SOAPAction} header. */
    SOAP_11("http://schemas.xmlsoap.org/soap/envelope/"),
    /** SOAP 1.2: {@code application/soap+xml}, the action a parameter of the content type. */
    SOAP_12("http://www.w3.org/2003/05/soap-envelope");

    /** The namespace of the envelope, header, body and fault elements. */
    public final String envelopeNamespace;

    SoapVersion(String envelopeNamespace) {
        this.envelopeNamespace = envelopeNamespace;
    }

    /** The request's content type; for SOAP 1.2 it carries the action (RFC 3902). */
    String contentType(String action) {
        if (this == SOAP_11) return "text/xml; charset=utf-8";
        return action == null || action.isEmpty() ? "application/soap+xml; charset=utf-8"
                : "application/soap+xml; charset=utf-8; action=\"" + action.replace("\"", "%22") + "\"";
    }
}
