package io.moses.core.metrics;

import io.moses.adaptation.InvokeHandler;
import io.moses.adaptation.InvokeOutcome;
import io.moses.adaptation.Invocation;
import java.util.concurrent.CompletionStage;

/** Times every invoke per task, concrete service and outcome. */
final class MeteredInvokeHandler implements InvokeHandler {
    private final InvokeHandler delegate;
    private final RequestTimers timers;

    MeteredInvokeHandler(InvokeHandler delegate, RequestTimers timers) {
        this.delegate = delegate;
        this.timers = timers;
    }

    @Override
    public CompletionStage<InvokeOutcome> invoke(Invocation invocation) {
        long start = System.nanoTime();
        return delegate.invoke(invocation).whenComplete((outcome, error) -> {
            String service = outcome == null || outcome.answeredBy() == null ? "none" : outcome.answeredBy();
            String kind = error != null ? "error" : outcome instanceof InvokeOutcome.InvokeReply ? "ok"
                    : outcome instanceof InvokeOutcome.InvokeFault ? "fault" : "failure";
            // on the thread the outcome came on: the invoke's span current, so the latency's exemplar names it
            try (io.moses.adaptation.InvokeTrace.Scope current = invocation.trace().logged()) {
                timers.invoke(invocation.task(), service, kind, System.nanoTime() - start);
            }
        });
    }

    @Override
    public boolean stateful(io.moses.model.TaskRef task) {
        return delegate.stateful(task);
    }

    @Override
    public java.net.URI provider(Invocation first) {
        return delegate.provider(first);
    }

    @Override
    public void sent(long instance, Invocation invocation, InvokeOutcome outcome) {
        delegate.sent(instance, invocation, outcome);
    }

    @Override
    public boolean answersLater(io.moses.model.TaskRef task) {
        return delegate.answersLater(task);
    }

    @Override
    public void received(long instance, String composite, String partnerLink, String operation, String call) {
        delegate.received(instance, composite, partnerLink, operation, call);
    }

    @Override
    public boolean superseded(String call) {
        return delegate.superseded(call);
    }
}
