/**
 * What the broker's management surface and its clients (the command line, tests) share: the
 * admin API's plan JSON ({@link io.moses.management.PlanFormat}) and the set-up of a JVM that
 * calls the SOAP managers ({@link io.moses.management.ManagementClients}). The SOAP contracts
 * themselves are this module's WSDLs ({@code io/moses/sla/*.wsdl}) and their generated types in
 * {@code io.moses.sla.wsdl.sla} and {@code io.moses.sla.wsdl.services}.
 */
package io.moses.management;
