package io.moses.core.frontend;

import io.moses.core.engine.ProvidedService;
import java.util.List;
import java.util.Map;
import org.w3c.dom.Element;

/**
 * Where a message of a conversation whose instance lives on another replica goes: to that
 * replica, and its answer back to the caller. A broker on its own forwards nothing.
 */
public interface ConversationForwarding {
    /** The HTTP header a forwarded request carries (this replica's name): it is never forwarded again. */
    String HOP_HEADER = "X-Moses-Forwarded-By";

    ConversationForwarding NONE = (service, operation, body, headers) -> null;

    /**
     * The owner's answer when the message belongs to an instance of another replica; null to
     * handle it here (a new instance, a local one, or one nobody registered).
     *
     * @param headers the request's HTTP headers (credentials, SOAPAction), passed on as they came
     */
    Relayed forward(ProvidedService service, String operation, Element body, Map<String, List<String>> headers);

    /**
     * What the owner answered: a reply payload (null for an empty body), or a fault.
     *
     * @param faultReason  null for a reply; the fault's reason otherwise
     * @param clientFault  whether the fault blames the caller (Client/Sender)
     */
    record Relayed(Element payload, String faultReason, boolean clientFault) {
        public static Relayed fault(String reason) {
            return new Relayed(null, reason, false);
        }
    }
}
