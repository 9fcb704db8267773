package io.moses.core;

import io.moses.adaptation.ServiceCallLog;
import io.moses.core.loop.Adaptation;
import io.moses.core.loop.FeedbackLoop;
import io.moses.core.loop.KnowledgeCache;
import io.moses.core.loop.Monitors;
import io.moses.core.loop.Replicas;
import io.moses.mdal.KnowledgeBase;
import io.moses.model.CompositeService;
import io.moses.monitor.ClassMonitor;
import io.moses.monitor.PathAnalyzer;
import io.moses.monitor.QosMonitor;
import io.moses.monitor.Replanner;
import io.moses.monitor.WsMonitor;
import io.moses.optimizer.OptimizationEngine;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A replica's feedback loop, wired: its monitors and its optimizer engines on the broker's one
 * clock, and the Replanner that coalesces its re-plans. The loop takes them through its
 * constructor, so that a unit test gives it its own.
 */
final class LoopWiring {
    /** The shortest wait for a WS Monitor probe's answer before it counts as failed. */
    static final long PROBE_TIMEOUT_MILLIS = 2_000;

    private LoopWiring() {}

    /**
     * @param wall  the broker's wall clock: observations, SLA events and plans are stamped on it
     * @param nanos the broker's monotonic clock, the one the binding stamps its calls on
     */
    static FeedbackLoop loop(BrokerConfig config, KnowledgeBase kb, KnowledgeCache knowledge, ServiceCallLog outcomes, Replicas replicas,
                             Supplier<Collection<CompositeService>> deployed, Clock wall, LongSupplier nanos) {
        Adaptation settings = config.adaptation().withInvokeTimeout(config.invokeTimeout());
        return new FeedbackLoop(kb, knowledge, outcomes, settings, replicas, deployed, settings.optimizer() ? engine(settings, wall) : null,
                () -> engine(settings, wall), monitors(settings, nanos), new Replanner(), wall, nanos);
    }

    static Monitors monitors(Adaptation settings, LongSupplier nanos) {
        // the QoS Monitor's window is short: the plan must follow a service that changes within seconds
        QosMonitor qos = new QosMonitor(500, 5_000, settings.minSamples(), nanos);
        // a probe's timeout is generous: a WSDL slower than that is the QoS Monitor's business, and
        // at half a short period (250 ms) a loaded machine once timed out every probe twice in a row
        // and took every provider down at once; a dead provider refuses, which acts at once
        WsMonitor ws = new WsMonitor(Duration.ofMillis(Math.max(PROBE_TIMEOUT_MILLIS, settings.probeMillis())), 2, 2);
        return new Monitors(qos, new ClassMonitor(500), new PathAnalyzer(500), ws);
    }

    /** An optimization engine on the solver the settings name, its plans stamped on the broker's wall clock. */
    static OptimizationEngine engine(Adaptation settings, Clock wall) {
        return new OptimizationEngine(OptimizationEngine.SolverChoice.parse(settings.solver()), wall);
    }
}
