/**
 * The closed-loop SOAP load driver ({@code moses load}, the demo, benchmarks and tests): N clients
 * posting back to back, bounded in count and time, with latency percentiles and errors by kind.
 */
package io.moses.loadtest.driver;
