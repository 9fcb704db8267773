package io.moses.core.engine;

import io.moses.model.TaskRef;
import java.util.Map;

/**
 * A composite request that ended: its caller's class, whether it succeeded, and how many
 * times it invoked each task (for the Execution Path Analyzer).
 */
public record CompletedRequest(String composite, String serviceClass, boolean succeeded, long nanos, Map<TaskRef, Integer> invokes) {}
