/**
 * Benchmarks run by hand (loadtest/*.sh): throughput by binding, and how the broker keeps every
 * class's SLA through an outage and a slowdown. They print numbers and ratios for the benchmark journal, docs/benchmarks/ (docs/performance.md).
 */
package io.moses.loadtest.bench;
