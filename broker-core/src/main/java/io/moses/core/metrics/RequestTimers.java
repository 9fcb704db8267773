package io.moses.core.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.moses.core.frontend.RequestMetrics;
import io.moses.model.TaskRef;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The request path's timers, built once per tag combination and then found by a map lookup:
 * building and registering a Micrometer timer on every request (id, sorted tags, registry
 * lookup) costs more than recording into it.
 */
final class RequestTimers implements RequestMetrics {
    private final MeterRegistry registry;
    private final Map<CompositeKey, Timer> composites = new ConcurrentHashMap<>();
    private final Map<InvokeKey, Timer> invokes = new ConcurrentHashMap<>();

    private record CompositeKey(String composite, String outcome) {}

    private record InvokeKey(TaskRef task, String service, String outcome) {}

    RequestTimers(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void composite(String composite, String outcome, long nanos) {
        composites.computeIfAbsent(new CompositeKey(composite, outcome), k -> Timer.builder("moses.composite.requests")
                        .description("composite service requests, per composite and outcome")
                        .tags("composite", k.composite(), "outcome", k.outcome())
                        .publishPercentileHistogram()
                        .register(registry))
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    void invoke(TaskRef task, String service, String outcome, long nanos) {
        invokes.computeIfAbsent(new InvokeKey(task, service, outcome), k -> Timer.builder("moses.concrete.invokes")
                        .description("calls of concrete services, per task, service and outcome")
                        .tags("composite", k.task().composite(), "task", k.task().name(), "service", k.service(),
                                "outcome", k.outcome())
                        .publishPercentileHistogram()
                        .register(registry))
                .record(nanos, TimeUnit.NANOSECONDS);
    }
}
