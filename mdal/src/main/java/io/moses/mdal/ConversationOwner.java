package io.moses.mdal;

/**
 * The replica that holds the process instance a correlation value belongs to.
 *
 * @param process        the process type (its QName as text)
 * @param correlationKey the correlation set and its values, in ODE's canonical form
 * @param instanceId     the instance's id on its replica
 * @param replica        the owner replica's name
 * @param address        where other replicas reach the owner (base URL of its HTTP front-end)
 */
public record ConversationOwner(String process, String correlationKey, long instanceId, String replica, String address) {}
