package io.moses.core.loop;

import io.moses.monitor.ClassMonitor;
import io.moses.monitor.PathAnalyzer;
import io.moses.monitor.QosMonitor;
import io.moses.monitor.WsMonitor;
import java.util.Objects;

/**
 * What the feedback loop observes with: the QoS Monitor (concrete services, on the broker's
 * clock), the class monitor, the Execution Path Analyzer and the WS Monitor. The broker's wiring
 * builds them; a unit test gives its own. The loop registers its reaction to the WS Monitor's
 * changes when it is built.
 */
public record Monitors(QosMonitor qos, ClassMonitor classes, PathAnalyzer paths, WsMonitor ws) {
    public Monitors {
        Objects.requireNonNull(qos, "qos");
        Objects.requireNonNull(classes, "classes");
        Objects.requireNonNull(paths, "paths");
        Objects.requireNonNull(ws, "ws");
    }
}
