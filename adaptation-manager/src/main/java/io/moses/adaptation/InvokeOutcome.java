package io.moses.adaptation;

import java.util.List;
import javax.xml.namespace.QName;
import org.w3c.dom.Element;

/**
 * How one partner {@code <invoke>} ended, after its implementation's pattern (single,
 * 1-out-of-n, alternate, hedge) and the retries between plans: what the process receives. Each
 * call of a concrete service within it ended with a {@link CallOutcome}.
 */
public sealed interface InvokeOutcome {

    /** The concrete service that answered (for replies and faults). */
    String answeredBy();

    /** A reply: the SOAP body payload, already mapped back to the abstract interface; null for an empty body. */
    record InvokeReply(Element body, String answeredBy) implements InvokeOutcome {}

    /**
     * A SOAP fault returned by the service: a business fault of the operation, or a server
     * fault. {@code detail} is the first element of the fault's detail, if any.
     */
    record InvokeFault(QName code, String reason, Element detail, String answeredBy) implements InvokeOutcome {}

    /**
     * No service could answer: connection errors, timeouts, dropped connections, or every
     * member of a pattern failed. {@code reason} names the task and the services tried.
     */
    record InvokeFailure(String reason, List<String> tried) implements InvokeOutcome {
        public InvokeFailure {
            tried = List.copyOf(tried);
        }

        @Override
        public String answeredBy() {
            return null;
        }
    }
}
