package io.moses.core.frontend;

import jakarta.xml.ws.handler.MessageContext;

/**
 * Tells who is calling: the service class of the request's user, or null for an anonymous
 * caller when the broker admits those. Throws a SOAP fault for unknown users and wrong
 * passwords, before any invoke.
 */
@FunctionalInterface
public interface Authenticator {
    String serviceClassOf(MessageContext request);

    /** Everybody is anonymous: the broker runs without users. */
    Authenticator ANONYMOUS = request -> null;
}
