/**
 * The SLA Manager's domain: admission of subscriptions with counter-offers ({@link
 * io.moses.sla.SlaManager}), the operators' Service and Class Managers ({@link
 * io.moses.sla.ServiceManager}, {@link io.moses.sla.ClassManager}) and who may call them ({@link
 * io.moses.sla.ManagementAuthenticator}). Every change is re-planned through {@link
 * io.moses.sla.Planning} before the reply and undone if the re-plan fails; a refusal is a
 * {@link io.moses.sla.SlaException} with a code. The protocols are outside: SOAP in {@code
 * io.moses.sla.soap}, the admin API's JSON in {@code io.moses.sla.http}.
 */
package io.moses.sla;
