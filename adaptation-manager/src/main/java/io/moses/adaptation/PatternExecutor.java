package io.moses.adaptation;

import io.moses.model.ConcreteService;
import io.moses.model.Implementation;
import io.moses.model.PayloadMapping;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Executes one implementation of a task: a single service, 1-out-of-n parallel redundancy
 * (all members at once, first successful reply wins, the others are cancelled) or alternate
 * (members in order, moving on at a fault, a connection error or a timeout). Records every
 * member's outcome.
 */
final class PatternExecutor {
    private final SoapClient client;
    private final OutcomeLog outcomes;
    private final Function<String, Duration> timeouts;
    private final int maxInFlight;
    private final java.util.Map<String, java.util.concurrent.Semaphore> inFlight = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * @param maxInFlight calls one concrete service may have in flight; one more fails at once
     *                    (an alternate then moves on) instead of queueing behind a stalled provider
     */
    PatternExecutor(SoapClient client, OutcomeLog outcomes, Function<String, Duration> timeouts, int maxInFlight) {
        this.client = client;
        this.outcomes = outcomes;
        this.timeouts = timeouts;
        this.maxInFlight = maxInFlight;
    }

    CompletableFuture<InvokeOutcome> execute(Invocation inv, Implementation impl, List<ConcreteService> members) {
        return switch (impl.pattern()) {
            case SINGLE -> callOne(inv, members.get(0)).thenApply(a -> finish(inv, List.of(a), a));
            case PARALLEL -> parallel(inv, members);
            case ALTERNATE -> alternate(inv, members, 0, new ArrayList<>());
        };
    }

    /** One member's attempt. */
    private record Attempt(ConcreteService service, SoapClient.Result result, long nanos) {
        boolean succeeded() {
            return result instanceof SoapClient.Result.Reply;
        }
    }

    private final class Pending {
        final ConcreteService service;
        final SoapClient.Call call;
        final long start = System.nanoTime();

        Pending(Invocation inv, ConcreteService service, boolean cancellable) {
            this.service = service;
            java.util.concurrent.Semaphore permits = inFlight.computeIfAbsent(service.name(), k -> new java.util.concurrent.Semaphore(maxInFlight));
            if (!permits.tryAcquire()) {
                CompletableFuture<SoapClient.Result> busy = CompletableFuture.completedFuture(new SoapClient.Result.Failure(
                        FailureKind.REFUSED_LOCALLY, maxInFlight + " calls already in flight to " + service.name()));
                this.call = new SoapClient.Call(busy, busy);
                return;
            }
            PayloadMapping m = service.mapping();
            String action = m.soapAction() != null ? m.soapAction() : inv.soapAction();
            this.call = client.send(service.endpoint(), action, PayloadAdapter.rename(inv.body(), m.requestNames()),
                    timeouts.apply(service.name()), cancellable);
            call.result().whenComplete((r, e) -> permits.release());
        }

        CompletableFuture<Attempt> attempt() {
            return call.result().thenApply(r -> new Attempt(service, r, System.nanoTime() - start));
        }
    }

    private CompletableFuture<Attempt> callOne(Invocation inv, ConcreteService s) {
        return new Pending(inv, s, false).attempt();
    }

    private CompletableFuture<InvokeOutcome> parallel(Invocation inv, List<ConcreteService> members) {
        CompletableFuture<InvokeOutcome> result = new CompletableFuture<>();
        List<Pending> calls = new ArrayList<>();
        for (ConcreteService s : members) calls.add(new Pending(inv, s, true));
        List<Attempt> failed = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicInteger remaining = new AtomicInteger(calls.size());
        for (Pending p : calls) {
            p.attempt().thenAccept(a -> {
                if (a.succeeded() && !result.isDone()) {
                    InvokeOutcome out = toOutcome(inv, a);
                    if (result.complete(out)) {
                        record(inv, a, true);
                        for (Pending other : calls) if (other != p) other.call.cancel();
                        return;
                    }
                }
                // a loser: a failure, or a late reply that is discarded
                record(inv, a, false);
                if (!a.succeeded()) failed.add(a);
                if (remaining.decrementAndGet() == 0 && !result.isDone())
                    result.complete(allFailed(inv, failed));
            });
        }
        return result;
    }

    private CompletableFuture<InvokeOutcome> alternate(Invocation inv, List<ConcreteService> members, int i, List<Attempt> failed) {
        return callOne(inv, members.get(i)).thenCompose(a -> {
            if (a.succeeded()) {
                record(inv, a, true);
                return CompletableFuture.completedFuture(toOutcome(inv, a));
            }
            record(inv, a, false);
            failed.add(a);
            if (i + 1 < members.size()) return alternate(inv, members, i + 1, failed);
            return CompletableFuture.completedFuture(allFailed(inv, failed));
        });
    }

    private InvokeOutcome finish(Invocation inv, List<Attempt> all, Attempt a) {
        record(inv, a, a.succeeded());
        return a.succeeded() || a.result() instanceof SoapClient.Result.Fault ? toOutcome(inv, a) : allFailed(inv, all);
    }

    private static InvokeOutcome toOutcome(Invocation inv, Attempt a) {
        return StaticBinding.outcome(inv, a.service().name(), a.service().mapping(), a.result());
    }

    private static InvokeOutcome allFailed(Invocation inv, List<Attempt> failed) {
        List<String> tried = new ArrayList<>();
        StringBuilder why = new StringBuilder(inv.task().toString()).append(": every service failed");
        for (Attempt a : failed) {
            tried.add(a.service().name());
            why.append("; ").append(a.service().name()).append(": ").append(describe(a.result()));
        }
        return new InvokeOutcome.Failure(why.toString(), tried);
    }

    private static String describe(SoapClient.Result r) {
        if (r instanceof SoapClient.Result.Fault f) return "SOAP fault " + f.reason();
        if (r instanceof SoapClient.Result.Failure f) return f.reason();
        return "ok";
    }

    private void record(Invocation inv, Attempt a, boolean winner) {
        Outcome.Kind kind;
        if (a.result() instanceof SoapClient.Result.Reply) kind = Outcome.Kind.OK;
        else if (a.result() instanceof SoapClient.Result.Fault) kind = Outcome.Kind.FAULT;
        else kind = switch (((SoapClient.Result.Failure) a.result()).kind()) {
            case CANCELLED -> Outcome.Kind.CANCELLED;
            case REFUSED_LOCALLY -> Outcome.Kind.REFUSED_LOCALLY;
            case TIMEOUT -> Outcome.Kind.TIMEOUT;
            default -> Outcome.Kind.FAILURE;
        };
        outcomes.add(new Outcome(a.service().name(), inv.task(), inv.serviceClass(), a.nanos(), kind, winner, System.nanoTime()));
    }
}
