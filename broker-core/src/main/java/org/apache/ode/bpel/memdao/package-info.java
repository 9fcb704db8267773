/**
 * The broker's in-memory store of BPEL variables, in place of ODE's class of the same name (first
 * on the class path; {@code BpelEngine} checks so at start).
 */
package org.apache.ode.bpel.memdao;
