/**
 * The SLA Manager and the Service Manager over SOAP ({@code /manage/sla}, {@code
 * /manage/services}): the WSDLs' operations onto the domain's managers, the caller from HTTP
 * Basic, a refusal as the WSDL's fault with its code and message. The public API is the two
 * endpoints, which the broker publishes.
 */
package io.moses.sla.soap;
