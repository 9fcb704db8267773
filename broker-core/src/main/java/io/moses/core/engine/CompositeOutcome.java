package io.moses.core.engine;

import javax.xml.namespace.QName;
import org.w3c.dom.Element;

/** How a composite request ended. */
public sealed interface CompositeOutcome {

    /** The process replied; {@code body} is the SOAP body payload (null for one-way operations). */
    record Reply(Element body) implements CompositeOutcome {}

    /** The process replied with a fault declared in its WSDL. */
    record Fault(QName name, Element detail, String reason) implements CompositeOutcome {}

    /** The request could not be served; {@code clientError} when it was the caller's fault. */
    record Failure(String reason, boolean clientError) implements CompositeOutcome {}
}
