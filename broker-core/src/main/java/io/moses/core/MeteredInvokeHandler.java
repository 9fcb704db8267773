package io.moses.core;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.moses.adaptation.InvokeHandler;
import io.moses.adaptation.InvokeOutcome;
import io.moses.adaptation.Invocation;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/** Times every invoke per task, concrete service and outcome. */
final class MeteredInvokeHandler implements InvokeHandler {
    private final InvokeHandler delegate;
    private final MeterRegistry registry;

    MeteredInvokeHandler(InvokeHandler delegate, MeterRegistry registry) {
        this.delegate = delegate;
        this.registry = registry;
    }

    @Override
    public CompletionStage<InvokeOutcome> invoke(Invocation invocation) {
        long start = System.nanoTime();
        return delegate.invoke(invocation).whenComplete((outcome, error) -> {
            String service = outcome == null || outcome.answeredBy() == null ? "none" : outcome.answeredBy();
            String kind = error != null ? "error" : outcome instanceof InvokeOutcome.Reply ? "ok"
                    : outcome instanceof InvokeOutcome.Fault ? "fault" : "failure";
            Timer.builder("moses.concrete.invokes")
                    .description("calls of concrete services, per task, service and outcome")
                    .tags("composite", invocation.task().composite(), "task", invocation.task().name(),
                            "service", service, "outcome", kind)
                    .publishPercentileHistogram()
                    .register(registry)
                    .record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        });
    }
}
