/**
 * The broker's integration with Apache ODE 1.3.7's internals: the broker's own variable store
 * ({@link io.moses.ode.VariableStore}), reads of variables without a copy, how ODE parses
 * literals ({@link io.moses.ode.LiteralParsing}) and the expressions evaluated without Jaxen
 * ({@link io.moses.ode.PathExpressions}). The classes of ours that must sit in ODE's packages,
 * because what they reach is package-private, are in this module too; none has the name of a
 * class of ODE's, so nothing is replaced and the class path's order does not matter.
 *
 * <p>Every ODE internal relied on, and why, is listed in docs/ode-internals.md: an upgrade of ODE
 * checks each one there.
 */
package io.moses.ode;
