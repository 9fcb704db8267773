package io.moses.mdal;

/**
 * The replica that holds the process instance a correlation value belongs to.
 *
 * @param process        the process type (its QName as text)
 * @param correlationKey the correlation set and its values, in ODE's canonical form
 * @param instanceId     the instance's id on its replica
 * @param replica        the owner replica's name
 * @param address        where other replicas reach the owner (base URL of its HTTP front-end)
 * @param user           the user whose message started the instance, the only one whose messages
 *                       reach it; null for an anonymous starter (anyone's do)
 */
public record ConversationOwner(String process, String correlationKey, long instanceId, String replica, String address, String user) {
    /** An instance an anonymous caller started. */
    public ConversationOwner(String process, String correlationKey, long instanceId, String replica, String address) {
        this(process, correlationKey, instanceId, replica, address, null);
    }
}
