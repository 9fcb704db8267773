/**
 * The feedback loop of one replica (MAPE-K): the monitors observe, the event-condition-action
 * rules decide that the plan no longer fits, the optimizer solves a new one and the knowledge
 * base publishes it ({@link io.moses.core.loop.FeedbackLoop}); what the replica knows in memory
 * ({@link io.moses.core.loop.KnowledgeCache}); the switches and thresholds of the adaptation
 * ({@link io.moses.core.loop.Adaptation}); and what the loop needs of a cluster
 * ({@link io.moses.core.loop.Replicas}, implemented in {@code io.moses.core.cluster}). Nothing
 * here runs on the request path. Its API for the other packages: those four, the monitors the
 * wiring chooses ({@link io.moses.core.loop.Monitors}) and what the metrics and the admin API read
 * of the live state ({@link io.moses.core.loop.LiveView}); the rest is package-private.
 */
package io.moses.core.loop;
