package io.moses.adaptation;

import io.moses.model.TaskRef;

/**
 * What happened at one concrete service during one invoke, for the monitors.
 *
 * @param service      the concrete service called
 * @param task         the task invoked
 * @param serviceClass the caller's class (null if anonymous)
 * @param nanos        latency of this call
 * @param kind         how it ended; CANCELLED and REFUSED_LOCALLY (never sent) say nothing about the provider
 * @param winner       true if its reply was the one returned (false for cancelled or
 *                     discarded 1-out-of-n members and failed alternates)
 * @param atNanos      when the call ended, on the binding's clock (System.nanoTime in production;
 *                     the QoS Monitor's windows must read the same one)
 */
public record ServiceCall(String service, TaskRef task, String serviceClass, long nanos, CallEnd kind, boolean winner, long atNanos) {}
