package io.moses.core.engine;

/** An instance operation the engine refused, with why: the admin API's 404, 409, 400 or 503. */
public final class InstanceRefusal extends RuntimeException {
    public enum Reason { NO_SUCH_INSTANCE, NOT_IN_THIS_STATE, BAD_INPUT, UNAVAILABLE }

    public final Reason reason;

    InstanceRefusal(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }
}
