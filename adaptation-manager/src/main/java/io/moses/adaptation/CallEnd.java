package io.moses.adaptation;

/**
 * How one call of a concrete service ended: the one classification of partner calls, decided
 * where the call ends (never read back from a message). It tells the pattern executors whether
 * a failed call may be sent again elsewhere ({@link #neverProcessed()}), the Adaptation Manager
 * whether the provider is to blame ({@link #blamesProvider()}), and the monitors what to count.
 */
public enum CallEnd {
    /** The provider replied. */
    REPLY,
    /** The provider answered with a SOAP fault: an answer too (often a business fault), and it may have processed the request. */
    FAULT,
    /** No reply within the call's timeout: the provider may have processed the request. */
    TIMEOUT,
    /**
     * The request never got a connection (refused, unreachable, none within the timeout), so
     * not a byte of it left. Any failure once it began to be sent is PROTOCOL or TIMEOUT.
     */
    CONNECT,
    /** HTTP 503 without a SOAP fault in its body: the provider declined before processing. */
    UNAVAILABLE,
    /** Cancelled by the broker (a 1-out-of-n loser): says nothing about the provider. */
    CANCELLED,
    /** Refused by the broker itself (too many calls in flight to that provider): never sent. */
    REFUSED_LOCALLY,
    /**
     * Not ended: the broker stopped waiting because its provider stalled ({@link StallWatch}), and
     * the invocation went on without it. The call runs on, and its own end is what is recorded.
     */
    STALLED,
    /**
     * Something came back, but not a usable SOAP reply (garbage, empty body, dropped
     * connection), or the connection failed once the request began to be sent.
     */
    PROTOCOL;

    /** True when the provider answered (a reply or a SOAP fault); every other end is a failed call. */
    boolean answered() {
        return this == REPLY || this == FAULT;
    }

    /** True when the provider provably did not process the request, so another may be asked. */
    boolean neverProcessed() {
        return this == CONNECT || this == UNAVAILABLE || this == REFUSED_LOCALLY;
    }

    /**
     * True for a failed call the provider is to blame for (it counts toward ejecting it): not
     * one the broker cancelled or refused itself.
     */
    boolean blamesProvider() {
        return !answered() && this != CANCELLED && this != REFUSED_LOCALLY && this != STALLED;
    }
}
