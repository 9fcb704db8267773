/**
 * ODE's scheduler kept in memory, with the jobs of one process instance run one after the other
 * instead of rolled back and retried when the instance's lock is taken.
 */
package org.apache.ode.scheduler.simple;
