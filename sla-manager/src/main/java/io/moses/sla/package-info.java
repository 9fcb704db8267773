/**
 * The SLA Manager (admission of subscriptions, with counter-offers) and the Service and Class
 * Managers of operators, over SOAP and the JSON admin API; every change is re-planned before the
 * reply and undone if the re-plan fails.
 */
package io.moses.sla;
