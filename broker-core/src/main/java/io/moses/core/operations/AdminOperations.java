package io.moses.core.operations;

import io.moses.core.loop.LiveView;
import java.util.Map;

/**
 * What the admin API may ask of the running broker beyond the knowledge base: the monitors'
 * live view, and the operator's actions. Implemented by {@link AdminApi}; the console and
 * {@code moses admin} both go through the admin API, never around it.
 */
interface AdminOperations {
    LiveView live();

    /** The adaptation's state as /health shows it (monitors, optimizer, solves, last change). */
    Map<String, Object> adaptation();

    /** Each monitor route and whether it runs: {@code qos-monitor}, {@code ws-monitor}. */
    Map<String, Boolean> monitors();

    /**
     * Starts or stops a monitor on every replica (stored in the knowledge base); throws
     * IllegalArgumentException for one this broker does not have.
     */
    void monitor(String name, boolean on, String operator);

    /** Has the optimizer leader make a new plan now; its answer. Throws IllegalStateException when the optimizer is off. */
    String replan(String why);

    /** Takes a concrete service out of every replica's plans or puts it back in; false when nothing changed. */
    boolean holdOut(String service, boolean out, String operator);

    /** A class's policy above the agreed rate and its requests by verdict on this replica (conforming, excess, shed, rejected). */
    default Map<String, Object> policing(String serviceClass) {
        return Map.of();
    }

    /**
     * The answer to a what-if (POST /admin/what-if): nothing stored or applied. Throws
     * IllegalArgumentException naming the change's field that does not fit, IllegalStateException
     * when the optimizer is off.
     */
    Map<String, Object> whatIf(java.util.List<WhatIfChange> changes);
}
