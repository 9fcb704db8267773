/**
 * Classes of ours in ODE's scheduler package, because the scheduler's job type is
 * package-private; they replace none of ODE's classes (the order of the class path does not
 * matter): ODE's scheduler kept in memory, with the jobs of one process instance run one after
 * the other instead of rolled back and retried when the instance's lock is taken.
 */
package org.apache.ode.scheduler.simple;
