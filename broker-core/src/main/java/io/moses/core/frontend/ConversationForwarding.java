package io.moses.core.frontend;

import io.moses.core.engine.ProvidedService;
import java.util.List;
import java.util.Map;
import org.w3c.dom.Element;

/**
 * Where a message of a conversation whose instance lives on another replica goes: to that
 * replica, and its answer back to the caller; and whether its caller may send it at all (a
 * conversation belongs to the user who started it). A broker on its own forwards nothing.
 */
public interface ConversationForwarding {
    /** The HTTP header a forwarded request carries (this replica's name): it is never forwarded again. */
    String HOP_HEADER = "X-Moses-Forwarded-By";
    /** The HTTP header a forwarded callback carries: the call its address named ({@code moses-call}). */
    String CALL_HEADER = "X-Moses-Call";

    ConversationForwarding NONE = (service, operation, body, headers, caller, hop) -> null;

    /**
     * The owner's answer when the message belongs to an instance of another replica; a client
     * fault when it belongs to a conversation another user started; null to handle it here (a new
     * instance, a local one, or one nobody registered).
     *
     * @param headers the request's HTTP headers (credentials, SOAPAction), passed on as they came
     * @param caller  the authenticated user who sent it, null for an anonymous caller
     * @param hop     the message was forwarded here by another replica: checked, never forwarded again
     */
    Relayed forward(ProvidedService service, String operation, Element body, Map<String, List<String>> headers, String caller, boolean hop);

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

        /** A fault that blames the caller. */
        public static Relayed refused(String reason) {
            return new Relayed(null, reason, true);
        }
    }
}
