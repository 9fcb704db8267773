package io.moses.core.engine;

/** A deployment unit the engine cannot accept; the message says why, for the operator. */
public final class DeploymentException extends RuntimeException {
    public DeploymentException(String message) {
        super(message);
    }
}
