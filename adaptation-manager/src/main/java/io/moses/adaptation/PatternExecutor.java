package io.moses.adaptation;

import io.moses.adaptation.CallOutcome.CallFailure;
import io.moses.adaptation.CallOutcome.CallFault;
import io.moses.adaptation.CallOutcome.CallReply;
import io.moses.adaptation.InvokeOutcome.InvokeFailure;
import io.moses.model.ConcreteService;
import io.moses.model.Implementation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Executes one implementation of a task: a single service, 1-out-of-n parallel redundancy
 * (all members at once, first successful reply wins, the others' replies are discarded), alternate
 * (members in order, moving on at a fault, a connection error or a timeout) or a hedged pair
 * (the second member only when the first has not answered after the plan's delay; the slower
 * reply is discarded). Records every
 * member's outcome, and tells the caller whether the whole implementation failed without any
 * member processing the request (so it may be sent to another provider).
 *
 * <p>A task that is not idempotent is never sent twice for one invoke (docs/model.md,
 * "Idempotent tasks"): its alternate moves on only when the member provably did not process the
 * request, and a 1-out-of-n set or a hedged pair (which a plan made before the task was declared
 * so may still name) runs as such an alternate.
 */
final class PatternExecutor {
    private final SoapClient client;
    private final ServiceCallLog outcomes;
    private final Function<String, Duration> timeouts;
    private final ProviderHealth health;
    private final HedgeTimer hedges;
    /** Whether a task answers by a callback: its send is observed when the callback comes ({@link Callbacks}), not here. */
    private final java.util.function.Predicate<io.moses.model.TaskRef> answersLater;

    private static final java.lang.invoke.VarHandle DECIDED;

    static {
        try {
            DECIDED = java.lang.invoke.MethodHandles.lookup().findVarHandle(Pending.class, "decided", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Calls abandoned because their provider stalled ({@link StallWatch}). */
    private final java.util.concurrent.atomic.AtomicLong abandoned = new java.util.concurrent.atomic.AtomicLong();

    /** What executing one implementation gave. */
    record Executed(InvokeOutcome outcome, boolean neverProcessed, List<String> tried) {}

    PatternExecutor(SoapClient client, ServiceCallLog outcomes, Function<String, Duration> timeouts, ProviderHealth health) {
        this(client, outcomes, timeouts, health, task -> false);
    }

    PatternExecutor(SoapClient client, ServiceCallLog outcomes, Function<String, Duration> timeouts, ProviderHealth health,
                    java.util.function.Predicate<io.moses.model.TaskRef> answersLater) {
        this.answersLater = answersLater;
        this.client = client;
        this.outcomes = outcomes;
        this.timeouts = timeouts;
        this.health = health;
        // the client is reached at the call, not here: a binding made without one (the loop's tests) never calls
        this.hedges = new HedgeTimer((task, delay) -> client.schedule(task, delay), task -> client.executor().execute(task),
                health::now);
    }

    /** @param idempotent whether a second call of the invocation's task is safe */
    CompletableFuture<Executed> execute(Invocation inv, Implementation impl, List<Provider> members, boolean idempotent) {
        return execute(inv, impl, members, idempotent, InvokeTrace.Why.PLAN, false);
    }

    /**
     * @param why       why these calls are sent, for the invocation's trace
     * @param elsewhere whether the invocation goes on elsewhere if this implementation fails, so
     *                  that a call to a provider that stalls may be abandoned ({@link StallWatch})
     *                  even where no other member of the implementation would take it; only an
     *                  idempotent task's calls are, and never an asynchronous one's
     */
    CompletableFuture<Executed> execute(Invocation inv, Implementation impl, List<Provider> members, boolean idempotent,
                                        InvokeTrace.Why why, boolean elsewhere) {
        // an asynchronous call is answered by its callback: its providers are tried in turn, as an
        // alternate, the next when the callback is late (AdaptiveBinding), never several at once
        boolean fanOut = idempotent && !answersLater.test(inv.task());
        Calls calls = new Calls(inv, why, fanOut, elsewhere);
        return switch (impl.pattern()) {
            case SINGLE -> new Pending(calls, members.get(0), false, calls.abandonable(false)).attempt().thenApply(a -> single(inv, a));
            case PARALLEL -> fanOut ? parallel(calls, members) : alternate(calls, members, 0, new ArrayList<>(), idempotent);
            case ALTERNATE -> alternate(calls, members, 0, new ArrayList<>(), idempotent);
            // a hedge in a plan made before the task was declared not idempotent runs as such an alternate
            case HEDGED -> fanOut ? hedged(calls, members, impl.hedgeDelay()) : alternate(calls, members, 0, new ArrayList<>(), idempotent);
        };
    }

    /** The calls of one execution: the invocation, why they are sent, whether they may be sent to several providers, whether it goes on elsewhere. */
    private record Calls(Invocation inv, InvokeTrace.Why why, boolean fanOut, boolean elsewhere) {
        /**
         * Whether a call may be abandoned when its provider stalls: an idempotent task's, whose
         * invocation then goes on to another member ({@code more}) or elsewhere.
         */
        boolean abandonable(boolean more) {
            return fanOut && (more || elsewhere);
        }
    }

    /** One member's attempt. */
    private record Attempt(Provider provider, CallOutcome result, long nanos, InvokeTrace.Call trace) {
        boolean succeeded() {
            return result instanceof CallReply;
        }

        boolean neverProcessed() {
            return result.kind().neverProcessed();
        }
    }

    private final class Pending implements CallsInFlight.Abandonable {
        final Provider provider;
        final SoapClient.Call call;
        final long start = health.now();
        private final Invocation inv;
        private final InvokeTrace.Call trace;
        /**
         * The call's end as an attempt, or its abandonment ({@link #abandon}), whichever comes
         * first. Completed by the one stage on the call's result, made with the call: it gives
         * back the call's slot in flight before anyone sees the result, exactly once, whether or
         * not anybody asks for the attempt.
         */
        private final CompletableFuture<Attempt> attempt = new CompletableFuture<>();
        /** Whether the attempt is decided (ended or abandoned): the trace is told once. */
        private volatile boolean decided;

        Pending(Calls sent, Provider provider, boolean hedge, boolean abandonable) {
            this.inv = sent.inv();
            this.provider = provider;
            ConcreteService service = provider.service();
            this.trace = inv.trace().call(service.name(), service.endpoint(), sent.why(), hedge);
            ProviderHealth.State state = health.state(service.name());
            CallsInFlight inFlight = state.inFlight;
            int slot = inFlight.enter(start);
            if (slot < 0) {
                CallFailure busy = new CallFailure(CallEnd.REFUSED_LOCALLY,
                        "too many calls in flight to " + service.name() + " (at most " + inFlight.capacity() + ")");
                this.call = new SoapClient.Call(CompletableFuture.completedFuture(busy), () -> {});
                attempt.complete(new Attempt(provider, busy, health.now() - start, trace));
                return;
            }
            this.call = client.send(service.endpoint(), inv.soapVersion(), provider.soapAction(inv), inv.body(), provider.requestNames(),
                    timeouts.apply(service.name()), trace.headers());
            if (abandonable) inFlight.abandonable(slot, this);
            health.entered(state, start);
            call.result().whenComplete((r, e) -> {
                inFlight.exit(slot);
                if (e != null) { // never, by SoapClient's contract
                    attempt.completeExceptionally(e instanceof CompletionException c ? c : new CompletionException(e));
                    return;
                }
                long now = health.now();
                if (decide()) {
                    trace.finished();
                    attempt.complete(new Attempt(provider, r, now - start, trace));
                } else {
                    outcome(inv, provider, trace, r.kind(), now - start, false); // abandoned: its own end, used by nobody
                }
            });
        }

        CompletableFuture<Attempt> attempt() {
            return attempt;
        }

        /** True for the first caller only: the call's end or its abandonment. */
        private boolean decide() {
            return DECIDED.compareAndSet(this, false, true);
        }

        @Override
        public long start() {
            return start;
        }

        /** Its provider stalled: the invocation goes on as if the call had failed; the call runs on. */
        @Override
        public void abandon() {
            if (!decide()) return;
            abandoned.incrementAndGet();
            trace.finished();
            long waited = health.now() - start;
            attempt.complete(new Attempt(provider, new CallFailure(CallEnd.STALLED, provider.name() + " stalled: no answer in "
                    + java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(waited) + " ms, the call was left to run on"), waited, trace));
        }
    }

    long abandoned() {
        return abandoned.get();
    }

    private Executed single(Invocation inv, Attempt a) {
        record(inv, a, a.succeeded());
        InvokeOutcome out = a.succeeded() || a.result() instanceof CallFault ? toOutcome(inv, a) : allFailed(inv, List.of(a));
        return new Executed(out, a.neverProcessed(), List.of(a.provider().name()));
    }

    private CompletableFuture<Executed> parallel(Calls sent, List<Provider> members) {
        Invocation inv = sent.inv();
        CompletableFuture<Executed> result = new CompletableFuture<>();
        List<Pending> calls = new ArrayList<>();
        for (Provider s : members) calls.add(new Pending(sent, s, false, sent.abandonable(members.size() > 1)));
        List<Attempt> failed = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger remaining = new AtomicInteger(calls.size());
        List<String> tried = members.stream().map(Provider::name).toList();
        for (Pending p : calls) {
            p.attempt().thenAccept(a -> {
                if (a.succeeded() && !result.isDone()) {
                    if (result.complete(new Executed(toOutcome(inv, a), false, tried))) {
                        record(inv, a, true);
                        // losers on the wire run to their reply (discarded) or timeout, as in a
                        // hedge: a member that hangs must time out to be ejected, and a loser's
                        // latency is its own, not the winner's
                        for (Pending other : calls) if (other != p) other.call.withdraw();
                        return;
                    }
                }
                // a loser: a failure, a late reply that is discarded, or a call withdrawn before it
                // was sent, whose time (the winner's) is a lower bound of its own: a censored sample
                record(inv, a, false, result.isDone());
                if (!a.succeeded()) failed.add(a);
                if (remaining.decrementAndGet() == 0 && !result.isDone()) {
                    List<Attempt> all;
                    synchronized (failed) {
                        all = List.copyOf(failed);
                    }
                    result.complete(new Executed(allFailed(inv, all), all.stream().allMatch(Attempt::neverProcessed), tried));
                }
            });
        }
        return result;
    }

    /**
     * hedge(a,b) (docs/model.md, "Hedged requests"): a at once; b when a has not answered after
     * {@code delaySeconds}, or at once when a fails before; the first successful reply wins. So b
     * is called only for a's slow or failed calls. The other call is not cancelled: it is paid
     * already, and its own reply, or its timeout, is a true observation of its provider (a's
     * latencies keep their tail, from which the next d is taken; a hung a times out and is
     * ejected as a single would be); its reply is discarded.
     */
    private CompletableFuture<Executed> hedged(Calls sent, List<Provider> members, double delaySeconds) {
        Invocation inv = sent.inv();
        CompletableFuture<Executed> result = new CompletableFuture<>();
        List<Attempt> failed = Collections.synchronizedList(new ArrayList<>());
        List<String> tried = Collections.synchronizedList(new ArrayList<>());
        java.util.concurrent.atomic.AtomicBoolean secondSent = new java.util.concurrent.atomic.AtomicBoolean();
        AtomicInteger running = new AtomicInteger(1);
        class Hedge {
            void send(int i) {
                // a first call abandoned sends the second; a second abandoned leaves the first to answer
                Pending p = new Pending(sent, members.get(i), i == 1, sent.abandonable(i == 0));
                tried.add(p.provider.name());
                // the first call won while the timer sent this one: it need not go on
                if (result.isDone()) p.call.cancel();
                p.attempt().thenAccept(a -> ended(i, a));
            }

            void sendSecond() {
                if (result.isDone() || !secondSent.compareAndSet(false, true)) return;
                running.incrementAndGet();
                send(1);
            }

            void ended(int i, Attempt a) {
                if (a.succeeded() && result.complete(new Executed(toOutcome(inv, a), false, List.copyOf(tried)))) {
                    record(inv, a, true);
                    return;
                }
                // a failure, or a late reply that is discarded
                record(inv, a, false, result.isDone());
                if (!a.succeeded()) failed.add(a);
                if (i == 0 && !a.succeeded()) sendSecond();
                if (running.decrementAndGet() == 0 && !result.isDone()) {
                    List<Attempt> all;
                    synchronized (failed) {
                        all = List.copyOf(failed);
                    }
                    result.complete(new Executed(allFailed(inv, all), all.stream().allMatch(Attempt::neverProcessed), List.copyOf(tried)));
                }
            }
        }
        Hedge h = new Hedge();
        h.send(0);
        if (!result.isDone()) {
            // most first calls answer within d: their entry is cleared, the timer drops it
            HedgeTimer.Entry second = hedges.after(Math.round(delaySeconds * 1e9), h::sendSecond);
            result.whenComplete((x, e) -> second.clear());
        }
        return result;
    }

    private CompletableFuture<Executed> alternate(Calls sent, List<Provider> members, int i, List<Attempt> failed,
                                                  boolean idempotent) {
        Invocation inv = sent.inv();
        return new Pending(sent, members.get(i), false, sent.abandonable(i + 1 < members.size())).attempt().thenCompose(a -> {
            if (a.succeeded()) {
                record(inv, a, true);
                return CompletableFuture.completedFuture(new Executed(toOutcome(inv, a), false, names(failed, a)));
            }
            record(inv, a, false);
            failed.add(a);
            if (i + 1 < members.size() && (idempotent || a.neverProcessed()))
                return alternate(sent, members, i + 1, failed, idempotent);
            return CompletableFuture.completedFuture(new Executed(allFailed(inv, failed),
                    failed.stream().allMatch(Attempt::neverProcessed), names(failed, null)));
        });
    }

    private static List<String> names(List<Attempt> attempts, Attempt last) {
        List<String> out = new ArrayList<>();
        for (Attempt a : attempts) out.add(a.provider().name());
        if (last != null) out.add(last.provider().name());
        return out;
    }

    private static InvokeOutcome toOutcome(Invocation inv, Attempt a) {
        return PayloadAdapter.answer(inv, a.provider().name(), a.provider().replyNames(), a.result());
    }

    private static InvokeOutcome allFailed(Invocation inv, List<Attempt> failed) {
        List<String> tried = new ArrayList<>();
        StringBuilder why = new StringBuilder(inv.task().toString()).append(": every service failed");
        for (Attempt a : failed) {
            tried.add(a.provider().name());
            why.append("; ").append(a.provider().name()).append(": ").append(describe(a.result()));
        }
        return new InvokeFailure(why.toString(), tried);
    }

    private static String describe(CallOutcome r) {
        if (r instanceof CallFault f) return "SOAP fault " + f.reason();
        if (r instanceof CallFailure f) return f.reason();
        return "ok";
    }

    private void record(Invocation inv, Attempt a, boolean winner) {
        record(inv, a, winner, false);
    }

    /** @param discarded whether another member's reply had won when this one ended */
    private void record(Invocation inv, Attempt a, boolean winner, boolean discarded) {
        CallEnd kind = a.result().kind();
        a.trace().ended(kind, discarded);
        if (kind == CallEnd.STALLED) return; // the call runs on: its own end is the provider's outcome (Pending)
        outcome(inv, a.provider(), a.trace(), kind, a.nanos(), winner);
    }

    /** A call's outcome, for the monitors and the provider's health. */
    private void outcome(Invocation inv, Provider provider, InvokeTrace.Call trace, CallEnd kind, long nanos, boolean winner) {
        if (kind == CallEnd.REPLY && answersLater.test(inv.task())) return; // a request taken, not yet answered
        long now = health.now();
        // on the thread that completed the call: an ejection's line names the request whose call it was
        try (InvokeTrace.Scope ids = trace.logged()) {
            outcomes.add(provider.name(), inv.task(), inv.serviceClass(), nanos, kind, winner, now);
            health.observe(provider.name(), kind, now);
        }
    }
}
