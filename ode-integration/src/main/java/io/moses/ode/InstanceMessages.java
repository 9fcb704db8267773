package io.moses.ode;

/**
 * Told of each message a running instance takes on one of its own operations (a receive, a
 * pick's onMessage, an event handler): the broker times an asynchronous task's callback by it.
 * Called on the engine's thread, in its transaction: keep it cheap, and never throw.
 */
@FunctionalInterface
public interface InstanceMessages {
    InstanceMessages NONE = (instance, process, partnerLink, operation, call) -> {};

    /**
     * @param process     the process's type, local part (the composite service's name)
     * @param partnerLink the partner link whose role the message came in on
     * @param call        the call of the broker's its address named ({@link #CALL}), or null
     */
    void received(long instance, String process, String partnerLink, String operation, String call);

    /** The message exchange property that holds the call a message's address named. */
    String CALL = "moses.call";
}
