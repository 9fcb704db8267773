/**
 * {@code moses demo}: the stubs and a broker as child processes, the trip planner with its seed,
 * a short workload, and a report of what happened (optionally a degradation halfway).
 */
package io.moses.loadtest.demo;
