/**
 * Classes of ours in ODE's engine package, because what they reach is package-private; they
 * replace none of ODE's classes (the order of the class path does not matter): a request whose
 * process instance failed gets its reply waiter woken instead of waiting for ever; a
 * conversation's next message on an instance-creating operation is kept for the instance holding
 * its key; a message's correlation keys are computed before the engine routes it; variables are
 * read without a copy where the engine only looks at them, and changed in place where an assign
 * changes them and nothing else holds them ({@code BrokerBpelServer}); events the configuration
 * leaves out are dropped before ODE fills them in. The ODE internals they use are listed in
 * docs/ode-internals.md.
 */
package org.apache.ode.bpel.engine;
