package io.moses.model;

import java.util.Map;

/**
 * A declarative rename between the abstract interface of a task and one concrete service's
 * interface: element names are rewritten (namespace and local name, keys and values written
 * as {@code {namespace}local}); the operation name is the concrete one used for SOAPAction.
 *
 * @param operation     the concrete operation name, or null for the task's own
 * @param soapAction    the SOAPAction to send, or null for none
 * @param requestNames  abstract name -&gt; concrete name, applied to the request
 * @param replyNames    concrete name -&gt; abstract name, applied to the reply
 */
public record PayloadMapping(String operation, String soapAction, Map<String, String> requestNames,
                             Map<String, String> replyNames) {
    public static final PayloadMapping IDENTITY = new PayloadMapping(null, null, Map.of(), Map.of());

    public PayloadMapping {
        requestNames = Map.copyOf(requestNames == null ? Map.of() : requestNames);
        replyNames = Map.copyOf(replyNames == null ? Map.of() : replyNames);
    }

    public boolean isIdentity() {
        return operation == null && soapAction == null && requestNames.isEmpty() && replyNames.isEmpty();
    }
}
