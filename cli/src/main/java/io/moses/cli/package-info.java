/**
 * The command-line clients of a running broker: {@code moses plan} and {@code moses admin} over
 * its HTTP admin API, {@code moses sla} and {@code moses services} over the SLA and Service
 * Managers' SOAP. They talk to a broker only over the network, never in-process, and run on this
 * module's class path: the management API's contracts with CXF and Jackson, neither ODE nor Camel.
 * Their public API is their {@code main} methods.
 */
package io.moses.cli;
