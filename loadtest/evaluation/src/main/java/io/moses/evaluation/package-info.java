/**
 * {@code moses bench}: the MOSES paper's evaluation on this broker, a closed model with The Grinder
 * and an open model with httperf against one broker per binding, with CPU per request sampled
 * from /proc and a report with plots.
 */
package io.moses.evaluation;
