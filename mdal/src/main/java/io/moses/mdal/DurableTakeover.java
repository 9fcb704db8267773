package io.moses.mdal;

/**
 * What a takeover moved from a replica that is gone to the one that took over: its durable
 * instances (V14), their jobs (ODE_JOB: timers, messages and replies not yet taken) and the
 * correlation values of durable processes it owned (V8).
 */
public record DurableTakeover(String from, String to, int instances, int jobs, int conversations) {
    public boolean movedAny() {
        return instances + jobs + conversations > 0;
    }
}
