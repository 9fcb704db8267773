package io.moses.adaptation;

import javax.xml.namespace.QName;
import org.w3c.dom.Element;

/**
 * How one call of one concrete service ended, as {@link SoapClient} saw it: what the provider
 * answered, or why nothing usable came back. A pattern's members each make one such call; what
 * the {@code <invoke>} as a whole gave is an {@link InvokeOutcome}.
 */
public sealed interface CallOutcome {

    /** How the call ended, in the one classification of partner calls. */
    CallEnd kind();

    /** @param body the body's payload, null for an empty body (a one-way or no-part reply) */
    record CallReply(Element body) implements CallOutcome {
        @Override
        public CallEnd kind() {
            return CallEnd.REPLY;
        }
    }

    /** A SOAP fault the provider answered; {@code detail} is the first element of the fault's detail, if any. */
    record CallFault(QName code, String reason, Element detail) implements CallOutcome {
        @Override
        public CallEnd kind() {
            return CallEnd.FAULT;
        }
    }

    /** No answer: {@code kind} is one of the failed ends (never {@link CallEnd#REPLY} or {@link CallEnd#FAULT}). */
    record CallFailure(CallEnd kind, String reason) implements CallOutcome {
        public CallFailure {
            if (kind.answered()) throw new IllegalArgumentException(kind + " is an answer, not a failed call");
        }
    }
}
