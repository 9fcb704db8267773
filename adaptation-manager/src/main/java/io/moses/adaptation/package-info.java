/**
 * The Adaptation Manager: binds every {@code <invoke>} of a running process at run time to a
 * concrete service or a redundant group of them (1-out-of-n parallel, alternate), following the
 * plan's fractions per service class, and records each partner call's outcome for the monitors.
 */
package io.moses.adaptation;
