/**
 * The broker's in-memory store of BPEL variables, in place of ODE's class of the same name (first
 * on the class path; {@code BpelEngine} checks so at start); ODE's in-memory store of processes
 * with the look-up of instances by correlation key, and correlators that keep a message routed
 * while its instance's job runs.
 */
package org.apache.ode.bpel.memdao;
