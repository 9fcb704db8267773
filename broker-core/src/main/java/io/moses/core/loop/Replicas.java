package io.moses.core.loop;

import io.moses.monitor.QosMonitor;
import java.util.Map;

/**
 * What the feedback loop needs to know about the other replicas of a cluster: whether this one
 * leads the optimizer (only the leader re-plans), and the QoS Monitor windows of all of them
 * (each publishes its own; the leader decides on their merge).
 */
public interface Replicas {
    /** A broker on its own: it leads, and its window is the whole picture. */
    Replicas ALONE = new Replicas() {
        @Override
        public boolean leads() {
            return true;
        }

        @Override
        public void publish(Map<String, QosMonitor.ServiceStats> local) {}

        @Override
        public Map<String, QosMonitor.ServiceStats> merged(Map<String, QosMonitor.ServiceStats> local) {
            return local;
        }
    };

    /** True while this replica holds the optimizer lease. */
    boolean leads();

    /** This replica's current windows, for the leader (once per monitor period, off the request path). */
    void publish(Map<String, QosMonitor.ServiceStats> local);

    /** On the leader, the local windows merged with the other replicas' recent ones; elsewhere the local ones. */
    Map<String, QosMonitor.ServiceStats> merged(Map<String, QosMonitor.ServiceStats> local);
}
