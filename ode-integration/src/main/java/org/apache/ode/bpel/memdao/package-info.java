/**
 * Classes of ours in ODE's in-memory DAO package, because ODE's DAO classes and constructors are
 * package-private; they replace none of ODE's classes (the order of the class path does not
 * matter). ODE's in-memory store of processes ({@link org.apache.ode.bpel.memdao.InMemoryProcesses},
 * the DAO factory the broker hands to ODE) with instances whose variables live in the broker's
 * {@code io.moses.ode.VariableStore}, the look-up of instances by correlation key, and
 * correlators that keep a message routed while its instance's job runs. The ODE internals they
 * use are listed in docs/ode-internals.md.
 */
package org.apache.ode.bpel.memdao;
