/**
 * Reading a deployed WS-BPEL process into the broker's behavioral model of a composite service
 * (its tasks, branches, loops and flows; docs/model.md), with a hardened XML parser.
 */
package io.moses.core.composition;
