/**
 * Command-line clients of the management services ({@code moses sla}, {@code moses services}),
 * over SOAP.
 */
package io.moses.sla.cli;
