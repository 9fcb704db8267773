package io.moses.adaptation;

import java.util.concurrent.CompletionStage;

/**
 * Where every partner {@code <invoke>} of a running composite service goes. The BPEL engine's
 * integration layer calls it; the Adaptation Manager implements it. No engine type crosses
 * this interface: requests and replies are SOAP body payloads.
 *
 * <p>Implementations must not block the calling thread on I/O: the returned stage completes
 * when the invoke has an outcome.
 */
public interface InvokeHandler {

    CompletionStage<InvokeOutcome> invoke(Invocation invocation);

    /**
     * Whether the provider of {@code task} keeps conversation state: within one process instance,
     * every call on the stateful tasks of its partner link goes to the provider the first went to
     * ({@link Invocation#provider()}). None is, unless the handler says so.
     */
    default boolean stateful(io.moses.model.TaskRef task) {
        return false;
    }

    /**
     * The provider (a concrete service's endpoint) a stateful partner's first call in a process
     * instance goes to, chosen now; null if the handler has none to choose (the call then goes
     * where an unpinned one would).
     */
    default java.net.URI provider(Invocation first) {
        return null;
    }

    /**
     * A one-way invoke of process instance {@code instance} ended with {@code outcome}: for an
     * asynchronous task, its callback is awaited from now (docs/model.md, "Asynchronous tasks").
     */
    default void sent(long instance, Invocation invocation, InvokeOutcome outcome) {}

    /**
     * Whether {@code task} is asynchronous: its answer is a callback. Its invocations then carry
     * a reply address ({@link Invocation#replyTo()}). None is, unless the handler says so.
     */
    default boolean answersLater(io.moses.model.TaskRef task) {
        return false;
    }

    /**
     * A message on {@code partnerLink.operation} of {@code composite} reached {@code instance}:
     * the callback of an asynchronous task, perhaps.
     *
     * @param call the call its address named ({@link ReplyTo#PARAMETER}), or null
     */
    default void received(long instance, String composite, String partnerLink, String operation, String call) {}

    /**
     * Whether a message whose address names {@code call} is to be discarded, not delivered: the
     * callback of a call that was late and went to another provider.
     */
    default boolean superseded(String call) {
        return false;
    }
}
