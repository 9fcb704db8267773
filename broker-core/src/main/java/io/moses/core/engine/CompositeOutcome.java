package io.moses.core.engine;

import javax.xml.namespace.QName;
import org.w3c.dom.Element;

/**
 * How one request to a composite service ended: what the front-end answers its caller. Each
 * partner {@code <invoke>} the process ran for it ended with an
 * {@link io.moses.adaptation.InvokeOutcome}.
 */
public sealed interface CompositeOutcome {

    /** The process replied; {@code body} is the SOAP body payload (null for one-way operations). */
    record CompositeReply(Element body) implements CompositeOutcome {}

    /** The process replied with a fault declared in its WSDL. */
    record CompositeFault(QName name, Element detail, String reason) implements CompositeOutcome {}

    /** The request could not be served; {@code clientError} when it was the caller's fault. */
    record CompositeFailure(String reason, boolean clientError) implements CompositeOutcome {}
}
