package io.moses.core.frontend;

import io.moses.model.User;
import jakarta.xml.ws.handler.MessageContext;

/**
 * Tells who is calling: the service class of the request's user, or null for an anonymous
 * caller when the broker accepts those. Throws a SOAP fault for unknown users and wrong
 * passwords, before any invoke.
 */
@FunctionalInterface
public interface Authenticator {
    String serviceClassOf(MessageContext request);

    /**
     * The user an HTTP {@code Authorization} header names, null for an anonymous caller (no
     * header) when the broker accepts those; throws {@link AuthenticationException} for unknown
     * users, wrong passwords and, where someone is required, no credentials.
     */
    default User userOf(String authorizationHeader) {
        return null;
    }

    /** The user a composite request's credentials name, null for an anonymous caller; throws as {@link #userOf}. */
    default User callerOf(MessageContext request) {
        return null;
    }

    /**
     * The user whose conversation made the asynchronous call {@code call} names (its callback's
     * credential), for a message to one of {@code composite}'s services; null if it names none.
     */
    default User userOfCall(String composite, String call) {
        return null;
    }

    /** Everybody is anonymous: the broker runs without users. */
    Authenticator ANONYMOUS = request -> null;
}
