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
}
