package io.moses.adaptation;

import io.moses.model.ConcreteService;
import io.moses.model.TaskRef;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Binds every invoke of a task to one fixed concrete service: the first registered for the
 * task, else the address the deployment's WSDL gives (as ODE would). The baseline the adaptive
 * binding is measured against.
 */
public final class StaticBinding implements InvokeHandler {
    private final Map<TaskRef, Provider> services;
    private final SoapClient client;
    private final Duration timeout;

    /**
     * @param services the concrete service each task is bound to (tasks absent here go to
     *                 their WSDL address)
     */
    public StaticBinding(Map<TaskRef, ConcreteService> services, SoapClient client, Duration timeout) {
        Map<TaskRef, Provider> providers = new java.util.HashMap<>();
        services.forEach((task, s) -> providers.put(task, Provider.of(s)));
        this.services = Map.copyOf(providers);
        this.client = client;
        this.timeout = timeout;
    }

    @Override
    public CompletionStage<InvokeOutcome> invoke(Invocation invocation) {
        Provider provider = services.get(invocation.task());
        if (provider == null) {
            URI target = invocation.defaultEndpoint();
            if (target == null)
                return CompletableFuture.completedFuture(new InvokeOutcome.InvokeFailure(invocation.task()
                        + ": no concrete service registered and no address in the WSDL", List.of()));
            String name = target.toString();
            InvokeTrace.Call trace = invocation.trace().call(name, target, InvokeTrace.Why.PLAN, false);
            return client.send(target, invocation.soapVersion(), invocation.soapAction(), invocation.body(), PayloadAdapter.Names.NONE,
                            timeout, trace.headers()).result()
                    .thenApply(r -> {
                        trace.finished();
                        trace.ended(r.kind(), false);
                        return PayloadAdapter.answer(invocation, name, PayloadAdapter.Names.NONE, r);
                    });
        }
        ConcreteService service = provider.service();
        invocation.trace().bound(io.moses.model.Implementation.single(service.name()), null);
        InvokeTrace.Call trace = invocation.trace().call(service.name(), service.endpoint(), InvokeTrace.Why.PLAN, false);
        return client.send(service.endpoint(), invocation.soapVersion(), provider.soapAction(invocation), invocation.body(),
                        provider.requestNames(), timeout, trace.headers())
                .result().thenApply(r -> {
                    trace.finished();
                    trace.ended(r.kind(), false);
                    return PayloadAdapter.answer(invocation, service.name(), provider.replyNames(), r);
                });
    }
}
