package io.moses.core.frontend;

/** The caller is not who it claims, or claims nobody where someone is required. */
public final class AuthenticationException extends RuntimeException {
    AuthenticationException(String message) {
        super(message);
    }
}
