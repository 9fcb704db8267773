package io.moses.adaptation;

/**
 * Why a call of a concrete service produced no reply, decided where the failure is seen (never
 * read back from a message). The kind tells the monitors whether the provider is to blame and
 * the pattern executors whether the call may be sent again elsewhere.
 */
public enum FailureKind {
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
     * Something came back, but not a usable SOAP reply (garbage, empty body, dropped
     * connection), or the connection failed once the request began to be sent.
     */
    PROTOCOL;

    /** True when the provider provably did not process the request, so another may be asked. */
    boolean neverProcessed() {
        return this == CONNECT || this == UNAVAILABLE || this == REFUSED_LOCALLY;
    }

    /** True when the failure counts against the provider's availability. */
    boolean blamesProvider() {
        return this != CANCELLED && this != REFUSED_LOCALLY;
    }
}
