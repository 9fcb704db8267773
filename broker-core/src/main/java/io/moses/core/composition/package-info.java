/**
 * Reading a deployed WS-BPEL process into the broker's behavioral model of a composite service
 * (its tasks, branches, loops and flows; docs/model.md), with a hardened XML parser. Its API for the
 * other packages is {@link io.moses.core.composition.BehavioralModelBuilder} (read by
 * {@code io.moses.core.processes}); the rest is package-private.
 */
package io.moses.core.composition;
