/**
 * Patches of ODE's engine package that come first on the class path: a request whose process
 * instance failed gets its reply waiter woken instead of waiting for ever; a conversation's next
 * message on an instance-creating operation is kept for the instance holding its key.
 */
package org.apache.ode.bpel.engine;
