/**
 * Patches of ODE's engine package that come first on the class path: a request whose process
 * instance failed gets its reply waiter woken instead of waiting for ever.
 */
package org.apache.ode.bpel.engine;
