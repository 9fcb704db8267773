/**
 * The BPEL engine: Apache ODE 1.3.7 embedded in memory, its deployment units, the SOAP binding of
 * the services a process provides, and the partner invoker that hands every {@code <invoke>} to
 * the Adaptation Manager.
 */
package io.moses.core.engine;
