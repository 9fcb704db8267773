package io.moses.core.engine;

import io.moses.model.TaskRef;
import java.util.Map;

/**
 * A composite request that ended: its caller's class, whether it succeeded, how many times it
 * invoked each task (for the Execution Path Analyzer), and whether it was its user's excess
 * above the agreed rate served best-effort (which the class's SLA figures leave out).
 */
public record CompletedRequest(String composite, String serviceClass, boolean succeeded, long nanos, Map<TaskRef, Integer> invokes,
                               boolean bestEffort) {}
