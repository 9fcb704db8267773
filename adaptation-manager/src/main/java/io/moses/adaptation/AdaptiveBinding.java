package io.moses.adaptation;

import io.moses.adaptation.InvokeOutcome.InvokeFailure;
import io.moses.adaptation.InvokeOutcome.InvokeReply;
import io.moses.model.ConcreteService;
import io.moses.model.Implementation;
import io.moses.model.Plan;
import io.moses.model.TaskRef;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Adaptation Manager's binding (docs/model.md section 6): for each invoke of task i by a
 * class-k request, picks an implementation by smooth weighted round-robin over the plan's
 * fractions for (k, i) and executes its pattern. The plan lives in memory and is replaced
 * atomically; nothing here reads the database.
 *
 * <p>Between plans it reacts on the request path (docs/model.md, "Reaction between plans"):
 * <ul>
 *   <li>a service that failed {@link Options#ejectAfter()} times in a row is ejected: its share
 *       goes to the plan's other implementations of the task, else to the task's other services,
 *       until a trial call is answered: one user call, after a back-off that doubles with every
 *       failed trial ({@link TrialSchedule}); a probe that answers does not bring it back, since a
 *       provider that hangs may still serve its WSDL. A service the WS Monitor ejected comes
 *       back with a successful probe or a new plan that uses it ({@link #reinstate});
 *   <li>a service whose calls stall (several unanswered far past its usual latency, no reply
 *       meanwhile: {@link StallWatch}) is ejected before they time out; an idempotent task's
 *       calls to it are abandoned and their invokes go on elsewhere, the others run on;
 *   <li>an implementation whose every member failed without processing the request
 *       ({@link CallEnd#neverProcessed()}: connection refused, HTTP 503 without a SOAP fault,
 *       refused locally) is retried at once on another provider of the task;
 *   <li>a call that may have been processed (a timeout, a dropped connection, a fault) is never
 *       sent twice for a task that is not idempotent (the default); for an idempotent task it is
 *       sent once more, to another provider (docs/model.md, "Idempotent tasks");
 *   <li>at most one call per {@link Options#explorePeriod()} goes to each registered service the
 *       plan does not use, so its estimate stays current and a recovered provider is seen; only
 *       for idempotent tasks, and a failed exploration falls back to the plan's choice, so it
 *       never fails a user's request.
 * </ul>
 *
 * <p>A stateful task (docs/model.md, "Stateful partners") is bound once per conversation: the
 * first call on its partner link in a process instance goes to the provider {@link #provider}
 * picks by the plan, and every call that names that provider ({@link Invocation#provider()}) goes
 * to it alone, ejected or not: no trial, exploration, retry or resend moves it to another.
 *
 * <p>An asynchronous task (docs/model.md, "Asynchronous tasks") is observed by its callback
 * ({@link Callbacks}): the engine says when its one-way request was sent ({@link #sent}) and when
 * an instance takes a message ({@link #received}); a callback is the call's reply, none within
 * its timeout a failure. Its request's reply address names the call ({@link ReplyTo}); where
 * the plan named an alternate for an idempotent task, a late callback sends the call to the
 * next member, and the late one's callback is discarded ({@link #superseded}).
 *
 * <p>A (class, task) the plan does not cover (an anonymous caller, a plan still to come) is
 * bound like {@link StaticBinding}: the first concrete service of the task, else the WSDL
 * address.
 */
public final class AdaptiveBinding implements InvokeHandler {
    private static final Logger log = LoggerFactory.getLogger(AdaptiveBinding.class);

    private final SoapClient client;
    private final PatternExecutor executor;
    private final Callbacks callbacks;
    private final ProviderHealth health;
    private final AtomicReference<Compiled> current;
    private final Duration defaultTimeout;
    private final boolean stallWatch;
    private volatile long exploreNanos;
    private final AtomicLong retries = new AtomicLong();
    private final AtomicLong explorations = new AtomicLong();
    private final AtomicLong lateResends = new AtomicLong();
    /** By call: the members of an alternate after the one that took an asynchronous call, until the call is awaited ({@link #sent}). */
    private final Map<String, List<Provider>> alternates = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * How the binding reacts between plans.
     *
     * @param maxInFlight   calls a concrete service may have in flight before more fail at once
     * @param ejectAfter    consecutive failures that eject a service from selection (0: never)
     * @param explorePeriod at most one call per period to each service the plan does not use
     *                      (zero, the default: no exploration; it feeds the QoS Monitor, which
     *                      turns it on with {@link #explore(Duration)})
     * @param clock         nanosecond clock for in-flight ages, exploration and the trial calls' back-off
     * @param wall          wall clock of the ejections, which a plan's {@link Plan#created} is compared with
     * @param stallWatch    whether calls that stall take their provider out before they time out ({@link StallWatch})
     */
    public record Options(int maxInFlight, int ejectAfter, Duration explorePeriod, LongSupplier clock, java.time.Clock wall,
                          boolean stallWatch) {
        public static Options defaults() {
            return new Options(256, 3, Duration.ZERO, System::nanoTime, java.time.Clock.systemUTC(), true);
        }

        public Options withMaxInFlight(int n) {
            return new Options(n, ejectAfter, explorePeriod, clock, wall, stallWatch);
        }

        public Options withEjectAfter(int n) {
            return new Options(maxInFlight, n, explorePeriod, clock, wall, stallWatch);
        }

        public Options withExplorePeriod(Duration d) {
            return new Options(maxInFlight, ejectAfter, d, clock, wall, stallWatch);
        }

        public Options withClock(LongSupplier c) {
            return new Options(maxInFlight, ejectAfter, explorePeriod, c, wall, stallWatch);
        }

        /** The broker's clock: the monotonic one and the wall clock its plans are stamped on. */
        public Options withClocks(LongSupplier c, java.time.Clock w) {
            return new Options(maxInFlight, ejectAfter, explorePeriod, c, w, stallWatch);
        }

        /** Whether calls that stall take their provider out before they time out ({@link StallWatch}; on by default). */
        public Options withStallWatch(boolean on) {
            return new Options(maxInFlight, ejectAfter, explorePeriod, clock, wall, on);
        }
    }

    /**
     * The plan, compiled for the request path.
     *
     * @param services each registered service as a choice of its own (a single)
     */
    private record Compiled(Plan plan, Map<Plan.Key, SmoothWeightedRoundRobin<Choice>> selectors,
                            Map<String, Choice> services, Map<TaskRef, ConcreteService> fallback,
                            Map<Plan.Key, List<String>> preferred, Map<TaskRef, List<String>> byTask,
                            Map<TaskRef, List<String>> unused, TaskTraits traits) {
        Set<TaskRef> idempotent() {
            return traits.idempotent();
        }

        Set<TaskRef> stateful() {
            return traits.stateful();
        }

        Map<TaskRef, io.moses.model.Callback> asynchronous() {
            return traits.asynchronous();
        }
    }

    /** An implementation with its members resolved: what one invoke executes. */
    private record Choice(Implementation implementation, List<Provider> members) {}

    /**
     * @param services       every concrete service
     * @param plan           the first plan (may be null: everything is bound statically)
     * @param defaultTimeout response timeout of a concrete service with none of its own
     * @param timeouts       per concrete service response timeouts
     */
    public AdaptiveBinding(Collection<ConcreteService> services, Plan plan, SoapClient client, ServiceCallLog outcomes,
                           Duration defaultTimeout, Map<String, Duration> timeouts) {
        this(services, plan, client, outcomes, defaultTimeout, timeouts, Options.defaults());
    }

    /** @param maxInFlight calls a concrete service may have in flight before more fail at once */
    public AdaptiveBinding(Collection<ConcreteService> services, Plan plan, SoapClient client, ServiceCallLog outcomes,
                           Duration defaultTimeout, Map<String, Duration> timeouts, int maxInFlight) {
        this(services, plan, client, outcomes, defaultTimeout, timeouts, Options.defaults().withMaxInFlight(maxInFlight));
    }

    public AdaptiveBinding(Collection<ConcreteService> services, Plan plan, SoapClient client, ServiceCallLog outcomes,
                           Duration defaultTimeout, Map<String, Duration> timeouts, Options options) {
        this.client = client;
        this.defaultTimeout = defaultTimeout;
        this.stallWatch = options.stallWatch();
        this.exploreNanos = options.explorePeriod().toNanos();
        // the client is reached at the call, not here: a binding made without one (the loop's tests) never calls
        this.health = new ProviderHealth(options.maxInFlight(), options.ejectAfter(), options.clock(), options.wall(),
                (task, delay) -> client.schedule(task, delay), task -> client.executor().execute(task));
        Map<String, Duration> t = Map.copyOf(timeouts);
        this.current = new AtomicReference<>(compile(plan, services, TaskTraits.NONE));
        this.executor = new PatternExecutor(client, outcomes, name -> t.getOrDefault(name, defaultTimeout), health,
                task -> current.get().asynchronous().containsKey(task));
        this.callbacks = new Callbacks(outcomes, health, client);
    }

    /**
     * Replaces the plan (and the set of concrete services) atomically. An ejected service that a
     * plan solved after the ejection uses is back in selection: that plan was made knowing what
     * the monitors know.
     */
    public void update(Plan plan, Collection<ConcreteService> services) {
        update(plan, services, TaskTraits.NONE);
    }

    /** As {@link #update(Plan, Collection)}, with what the binding must know of the tasks. */
    public void update(Plan plan, Collection<ConcreteService> services, TaskTraits traits) {
        Compiled next = compile(plan, services, traits);
        callbacks.declared(next.asynchronous());
        Compiled prev = current.getAndSet(next);
        health.retain(next.services().keySet());
        if (health.anyEjected() && plan != null)
            for (String s : health.ejectedServices())
                // a plan solved before the ejection did not know of it
                if (uses(plan, s) && health.ejectedBefore(s, plan.created()))
                    health.reinstate(s, "plan " + plan.version() + " uses it");
        log.info("plan {} in force (was {})", plan == null ? "none" : plan.version(),
                prev.plan() == null ? "none" : prev.plan().version());
    }

    private static boolean uses(Plan plan, String service) {
        for (List<Plan.Share> shares : plan.bindings().values())
            for (Plan.Share s : shares)
                if (s.fraction() > 0 && s.implementation().members().contains(service)) return true;
        return false;
    }

    public Plan plan() {
        return current.get().plan();
    }

    /** The tasks' traits in force, as the last {@link #update} gave them. */
    public TaskTraits traits() {
        return current.get().traits();
    }

    /** Called (on a request thread: keep it cheap) with (service, why) when a service is ejected. */
    public void onEjected(BiConsumer<String, String> listener) {
        health.onEjected(listener);
    }

    /**
     * Sends at most one call per {@code period} to each registered service the plan does not use
     * (zero: none), so the QoS Monitor's estimate of it stays current.
     */
    public void explore(Duration period) {
        this.exploreNanos = period.toNanos();
    }

    /** Takes a service out of selection now (the WS Monitor found it down). */
    public boolean eject(String service, String why) {
        return health.eject(service, why);
    }

    /**
     * Brings a service the WS Monitor ejected back into selection (a successful probe); true if it
     * was ejected. A service ejected for failed calls stays out (false): only its trial call
     * brings it back, due at once if the WS Monitor had found it down.
     */
    public boolean reinstate(String service, String why) {
        health.probeAnswered(service);
        return health.reinstate(service, why);
    }

    /**
     * Called with (service, why) when a service ejected for failed calls is back in selection
     * because a call to it (its trial) was answered.
     */
    public void onReinstatedByTrial(BiConsumer<String, String> listener) {
        health.onReinstatedByTrial(listener);
    }

    /** The services ejected from selection now. */
    public Set<String> ejected() {
        return health.ejectedServices();
    }

    /**
     * The p99 [s] of a concrete service's recent replies, made of {@code replies} replies: calls
     * unanswered for several times that, with no reply meanwhile, take it out of selection before
     * they time out, and an idempotent task's go elsewhere (docs/model.md, "Reaction between plans").
     */
    public void expect(String service, double p99Seconds, int replies) {
        if (stallWatch) health.expect(service, p99Seconds, replies); // else no stall time: no watch
    }

    /** Ages [s] of the calls in flight now, per concrete service: the QoS Monitor's early view of a slowdown. */
    public Map<String, double[]> inFlight() {
        return health.inFlightAges();
    }

    /** Calls sent again to another provider because the first never reached its provider. */
    public long retries() {
        return retries.get();
    }

    /** Calls to a stalled provider whose invoke went on without them (they ran on to their own end). */
    public long abandoned() {
        return executor.abandoned();
    }

    /** Calls sent to a service the plan does not use, to keep its estimate current. */
    public long explorations() {
        return explorations.get();
    }

    /**
     * Compiles a plan for the request path. Shares that name a service no longer registered are
     * dropped (one log line); a (class, task) left with none is bound like a plan-less one.
     */
    private static Compiled compile(Plan plan, Collection<ConcreteService> services, TaskTraits traits) {
        Map<String, Choice> byName = new HashMap<>();
        Map<TaskRef, ConcreteService> fallback = new LinkedHashMap<>();
        Map<TaskRef, List<String>> byTask = new HashMap<>();
        for (ConcreteService s : services) {
            byName.put(s.name(), new Choice(Implementation.single(s.name()), List.of(Provider.of(s))));
            fallback.putIfAbsent(s.task(), s);
            byTask.computeIfAbsent(s.task(), k -> new ArrayList<>()).add(s.name());
        }
        Map<Plan.Key, SmoothWeightedRoundRobin<Choice>> selectors = new HashMap<>();
        Map<Plan.Key, List<String>> preferred = new HashMap<>();
        Map<TaskRef, Set<String>> used = new HashMap<>();
        Set<String> unknown = new java.util.TreeSet<>();
        if (plan != null) {
            for (var e : plan.bindings().entrySet()) {
                List<Choice> impls = new ArrayList<>();
                List<Double> weights = new ArrayList<>();
                List<Plan.Share> shares = new ArrayList<>(e.getValue());
                shares.sort(Comparator.comparingDouble(Plan.Share::fraction).reversed());
                Set<String> order = new LinkedHashSet<>();
                for (Plan.Share share : shares) {
                    if (share.fraction() <= 0) continue;
                    List<String> missing = share.implementation().members().stream().filter(m -> !byName.containsKey(m)).toList();
                    if (!missing.isEmpty()) {
                        unknown.addAll(missing);
                        continue;
                    }
                    List<Provider> members = new ArrayList<>();
                    for (String m : share.implementation().members()) members.add(byName.get(m).members().get(0));
                    impls.add(new Choice(share.implementation(), List.copyOf(members)));
                    weights.add(share.fraction());
                    order.addAll(share.implementation().members());
                }
                used.computeIfAbsent(e.getKey().task(), k -> new HashSet<>()).addAll(order);
                order.addAll(byTask.getOrDefault(e.getKey().task(), List.of()));
                preferred.put(e.getKey(), List.copyOf(order));
                if (!impls.isEmpty())
                    selectors.put(e.getKey(), new SmoothWeightedRoundRobin<>(impls,
                            weights.stream().mapToDouble(Double::doubleValue).toArray()));
            }
            if (!unknown.isEmpty())
                log.warn("plan {} names concrete services that are not registered, their shares are dropped: {}",
                        plan.version(), unknown);
        }
        Map<TaskRef, List<String>> unused = new HashMap<>();
        used.forEach((task, u) -> {
            List<String> rest = byTask.getOrDefault(task, List.of()).stream().filter(s -> !u.contains(s)).toList();
            if (!rest.isEmpty()) unused.put(task, rest);
        });
        Map<TaskRef, List<String>> tasks = new HashMap<>();
        byTask.forEach((k, v) -> tasks.put(k, List.copyOf(v)));
        return new Compiled(plan, Map.copyOf(selectors), Map.copyOf(byName), Map.copyOf(fallback), Map.copyOf(preferred),
                Map.copyOf(tasks), Map.copyOf(unused), traits);
    }

    @Override
    public boolean answersLater(TaskRef task) {
        return current.get().asynchronous().containsKey(task);
    }

    /**
     * Awaits the callback of an asynchronous task's request that a provider took. Where the plan
     * named an alternate for an idempotent task, its members after that provider are where the
     * call goes next if the callback is late.
     */
    @Override
    public void sent(long instance, Invocation invocation, InvokeOutcome outcome) {
        io.moses.model.Callback callback = current.get().asynchronous().get(invocation.task());
        String call = invocation.replyTo() == null ? null : invocation.replyTo().call();
        List<Provider> next = call == null ? null : alternates.remove(call);
        if (callback == null || !(outcome instanceof InvokeReply r) || r.answeredBy() == null) return;
        callbacks.sent(instance, invocation.task(), callback, r.answeredBy(), invocation.serviceClass(), call,
                next == null || next.isEmpty() ? null : () -> resend(instance, invocation, r.answeredBy(), next));
    }

    /**
     * Sends a call whose callback is late to the next of its alternates, with a reply address of
     * its own: the late provider's callback names the call it answers, and is discarded.
     */
    private void resend(long instance, Invocation late, String lateService, List<Provider> next) {
        Invocation again = late.withBody(late.body() == null ? null : (org.w3c.dom.Element) late.body().cloneNode(true))
                .withReplyTo(late.replyTo().next());
        again.replyTo().tag(again.body());
        lateResends.incrementAndGet();
        Implementation impl = next.size() == 1 ? Implementation.single(next.get(0).name())
                : new Implementation(Implementation.Pattern.ALTERNATE, next.stream().map(Provider::name).toList());
        try (InvokeTrace.Scope ids = late.trace().logged()) { // a timer's thread: the line names the invoke's request
            log.info("{}: no callback from {} within its timeout, the call goes to {}", late.task(), lateService, next.get(0).name());
        }
        executor.execute(again, impl, next, true, InvokeTrace.Why.RETRY, false).thenAccept(ex -> {
            if (ex.outcome() instanceof InvokeReply r) remember(again, next, r.answeredBy());
            sent(instance, again, ex.outcome());
        });
    }

    /** Keeps the alternates after {@code answeredBy} for the call's callback, if late. */
    private void remember(Invocation inv, List<Provider> members, String answeredBy) {
        if (inv.replyTo() == null || alternates.size() >= Callbacks.MAX_WAITING) return;
        for (int i = 0; i < members.size(); i++)
            if (members.get(i).name().equals(answeredBy)) {
                if (i + 1 < members.size()) alternates.put(inv.replyTo().call(), List.copyOf(members.subList(i + 1, members.size())));
                return;
            }
    }

    @Override
    public void received(long instance, String composite, String partnerLink, String operation, String call) {
        callbacks.received(instance, composite, partnerLink, operation, call);
    }

    @Override
    public boolean superseded(String call) {
        return callbacks.superseded(call);
    }

    /** Calls of asynchronous tasks waiting for their callback now. */
    public int callbacksAwaited() {
        return callbacks.waiting();
    }

    /** Callbacks that came after their call's timeout, or for a call this binding did not send (a restart). */
    public long lateCallbacks() {
        return callbacks.late();
    }

    /** Callbacks of calls sent to another provider because they were late: discarded. */
    public long discardedCallbacks() {
        return callbacks.discarded();
    }

    /** Calls of asynchronous tasks sent to another provider because their callback was late. */
    public long lateResends() {
        return lateResends.get();
    }

    @Override
    public boolean stateful(TaskRef task) {
        return current.get().stateful().contains(task);
    }

    /**
     * The plan's pick for the first call of a stateful partner in a conversation (without
     * ejected members, as any call's), reduced to one provider: its first member's endpoint; a
     * plan-less (class, task) takes what an unplanned call would. Null if the task has no
     * concrete service.
     */
    @Override
    public java.net.URI provider(Invocation first) {
        Compiled c = current.get();
        Plan.Key key = first.serviceClass() == null ? null : new Plan.Key(first.serviceClass(), first.task());
        SmoothWeightedRoundRobin<Choice> selector = key == null ? null : c.selectors().get(key);
        if (selector != null) return choose(c, key, selector).members().get(0).service().endpoint();
        ConcreteService fixed = c.fallback().get(first.task());
        if (fixed == null) return null;
        for (String s : c.byTask().getOrDefault(first.task(), List.of()))
            if (!health.ejected(s)) return c.services().get(s).members().get(0).service().endpoint();
        return fixed.endpoint();
    }

    @Override
    public CompletionStage<InvokeOutcome> invoke(Invocation invocation) {
        Compiled c = current.get();
        // a request that carries no reply address of the broker's gets a callback that names no call
        Invocation inv = invocation.replyTo() != null && !invocation.replyTo().tag(invocation.body()) ? invocation.withReplyTo(null) : invocation;
        if (inv.provider() != null) return atProvider(inv, c);
        String trial = health.anyEjected() ? trialTarget(c, inv.task()) : null;
        if (trial == null) return bind(inv, c);
        Plan.Key key = inv.serviceClass() == null ? null : new Plan.Key(inv.serviceClass(), inv.task());
        if (!c.idempotent().contains(inv.task()))
            // a second call is not safe: the trial is the invoke's call (a circuit breaker's half-open risk)
            return run(inv, c, key, c.services().get(trial), new ArrayList<>(), null, false, InvokeTrace.Why.TRIAL);
        // as an exploration, a trial of an idempotent task must not fail the user's request: on
        // anything but a reply, the binding's own choice answers (the second call of the invoke)
        return run(inv, c, key, c.services().get(trial), new ArrayList<>(), null, true, InvokeTrace.Why.TRIAL).thenCompose(out ->
                out instanceof InvokeReply ? CompletableFuture.completedFuture(out) : bind(inv, c).toCompletableFuture());
    }

    /**
     * A stateful partner's call, to its conversation's provider alone: its concrete service of
     * the task at that endpoint. A failure goes to the process, whose fault handlers decide.
     */
    private CompletionStage<InvokeOutcome> atProvider(Invocation inv, Compiled c) {
        for (String s : c.byTask().getOrDefault(inv.task(), List.of())) {
            Choice choice = c.services().get(s);
            if (!choice.members().get(0).service().endpoint().equals(inv.provider())) continue;
            Plan plan = c.plan();
            inv.trace().bound(choice.implementation(), plan == null ? null : plan.version());
            return executor.execute(inv, choice.implementation(), choice.members(), c.idempotent().contains(inv.task()))
                    .thenApply(PatternExecutor.Executed::outcome);
        }
        return CompletableFuture.completedFuture(new InvokeFailure(inv.task() + ": the provider " + inv.provider()
                + " this conversation is bound to has no concrete service for it (the partner is stateful)", List.of()));
    }

    /** A service of the task out for failed calls whose trial call is due: this call is its trial. */
    private String trialTarget(Compiled c, TaskRef task) {
        for (String s : c.byTask().getOrDefault(task, List.of()))
            if (health.tryTrial(s)) return s;
        return null;
    }

    /** Binds the invoke by the plan (or statically), with the reactions between plans. */
    private CompletionStage<InvokeOutcome> bind(Invocation inv, Compiled c) {
        Plan.Key key = inv.serviceClass() == null ? null : new Plan.Key(inv.serviceClass(), inv.task());
        SmoothWeightedRoundRobin<Choice> selector = key == null ? null : c.selectors().get(key);
        if (selector != null) {
            String explore = explorationTarget(c, key);
            if (explore == null) return run(inv, c, key, choose(c, key, selector), new ArrayList<>(), null, false, InvokeTrace.Why.PLAN);
            // an exploration must not fail the user's request: on anything but a reply, the plan's choice answers
            return run(inv, c, key, c.services().get(explore), new ArrayList<>(), null, false, InvokeTrace.Why.EXPLORATION).thenCompose(out ->
                    out instanceof InvokeReply ? CompletableFuture.completedFuture(out)
                            : run(inv, c, key, choose(c, key, selector), new ArrayList<>(List.of(explore)), null, false, InvokeTrace.Why.PLAN));
        }
        ConcreteService fixed = c.fallback().get(inv.task());
        if (fixed != null) {
            String pick = fixed.name();
            if (health.anyEjected() && health.ejected(pick))
                for (String s : c.byTask().getOrDefault(inv.task(), List.of()))
                    if (!health.ejected(s)) {
                        pick = s;
                        break;
                    }
            return run(inv, c, key, c.services().get(pick), new ArrayList<>(), null, false, InvokeTrace.Why.PLAN);
        }
        if (inv.defaultEndpoint() == null)
            return CompletableFuture.completedFuture(new InvokeFailure(inv.task()
                    + ": no concrete service registered and no address in the WSDL", List.of()));
        String name = inv.defaultEndpoint().toString();
        InvokeTrace.Call trace = inv.trace().call(name, inv.defaultEndpoint(), InvokeTrace.Why.PLAN, false);
        return client.send(inv.defaultEndpoint(), inv.soapVersion(), inv.soapAction(), inv.body(), PayloadAdapter.Names.NONE,
                        defaultTimeout, trace.headers()).result()
                .thenApply(r -> {
                    trace.finished();
                    trace.ended(r.kind(), false);
                    return PayloadAdapter.answer(inv, name, PayloadAdapter.Names.NONE, r);
                });
    }

    /** A service the plan does not use, due for an exploration call; only for an idempotent task. */
    private String explorationTarget(Compiled c, Plan.Key key) {
        long exploreNanos = this.exploreNanos;
        if (exploreNanos <= 0 || !c.idempotent().contains(key.task())) return null;
        List<String> unused = c.unused().get(key.task());
        if (unused != null)
            for (String s : unused)
                if (health.tryExplore(s, exploreNanos)) {
                    explorations.incrementAndGet();
                    return s;
                }
        return null;
    }

    /** The plan's pick, or the pick without its ejected members. */
    private Choice choose(Compiled c, Plan.Key key, SmoothWeightedRoundRobin<Choice> selector) {
        Choice choice = selector.next();
        if (!health.anyEjected()) return choice;
        for (int i = 0; i <= selector.size(); i++) {
            Choice alive = withoutEjected(c, choice);
            if (alive != null) return alive;
            choice = selector.next();
        }
        for (String s : c.preferred().getOrDefault(key, List.of()))
            if (!health.ejected(s)) return c.services().get(s);
        return choice; // every provider of the task is ejected: trying is better than failing
    }

    /** The choice without its ejected members (null if none is left). */
    private Choice withoutEjected(Compiled c, Choice choice) {
        List<Provider> alive = null;
        List<Provider> members = choice.members();
        for (int i = 0; i < members.size(); i++) {
            boolean out = health.ejected(members.get(i).name());
            if (out && alive == null) alive = new ArrayList<>(members.subList(0, i));
            else if (!out && alive != null) alive.add(members.get(i));
        }
        if (alive == null) return choice;
        if (alive.isEmpty()) return null;
        if (alive.size() == 1) return c.services().get(alive.get(0).name());
        Implementation impl = choice.implementation();
        return new Choice(new Implementation(impl.pattern(), alive.stream().map(Provider::name).toList(), impl.hedgeDelay()), alive);
    }

    /**
     * Executes {@code choice}; if it failed without any member processing the request, sends the
     * call to the next provider of the task not tried yet (the plan's own members first). For an
     * idempotent task, a failure that may have been processed (a timeout, a dropped connection)
     * is sent once more to another provider: the budget is one such second call per invoke.
     *
     * @param resent whether the invoke already spent its second call after such a failure
     * @param cause  why this choice is called, for the invocation's trace
     */
    private CompletableFuture<InvokeOutcome> run(Invocation inv, Compiled c, Plan.Key key, Choice choice,
                                                 List<String> tried, String earlier, boolean resent, InvokeTrace.Why cause) {
        boolean idempotent = c.idempotent().contains(inv.task());
        Plan plan = c.plan();
        inv.trace().bound(choice.implementation(), plan == null ? null : plan.version());
        // where the invoke goes on if the choice fails: a trial or an exploration to the binding's
        // choice, a first failure to a provider the choice does not name
        boolean elsewhere = idempotent && (cause == InvokeTrace.Why.TRIAL || cause == InvokeTrace.Why.EXPLORATION
                || !resent && hasOther(c, key, inv.task(), tried, choice));
        return executor.execute(inv, choice.implementation(), choice.members(), idempotent, cause, elsewhere).thenCompose(ex -> {
            InvokeOutcome out = ex.outcome();
            if (out instanceof InvokeReply r && inv.replyTo() != null && idempotent && choice.members().size() > 1)
                remember(inv, choice.members(), r.answeredBy()); // a late callback moves the call on, as an alternate
            if (!(out instanceof InvokeFailure f)) return CompletableFuture.completedFuture(out);
            tried.addAll(ex.tried());
            String why = earlier == null ? f.reason() : earlier + "; then " + f.reason();
            boolean resend = !ex.neverProcessed() && idempotent && !resent;
            String next = ex.neverProcessed() || resend ? retryTarget(c, key, inv.task(), tried) : null;
            if (next == null) return CompletableFuture.completedFuture(new InvokeFailure(why, tried));
            retries.incrementAndGet();
            return run(inv, c, key, c.services().get(next), tried, why, resent || resend, InvokeTrace.Why.RETRY);
        });
    }

    /** Whether the task has a provider that neither {@code choice} nor {@code tried} names. */
    private static boolean hasOther(Compiled c, Plan.Key key, TaskRef task, List<String> tried, Choice choice) {
        List<String> order = key == null ? null : c.preferred().get(key);
        if (order == null) order = c.byTask().getOrDefault(task, List.of());
        for (String s : order)
            if (!tried.contains(s) && !choice.implementation().members().contains(s)) return true;
        return false;
    }

    private String retryTarget(Compiled c, Plan.Key key, TaskRef task, List<String> tried) {
        List<String> order = key == null ? null : c.preferred().get(key);
        if (order == null) order = c.byTask().getOrDefault(task, List.of());
        String ejectedCandidate = null;
        for (String s : order) {
            if (tried.contains(s)) continue;
            if (!health.ejected(s)) return s;
            if (ejectedCandidate == null) ejectedCandidate = s;
        }
        return ejectedCandidate;
    }

    /** Which implementation each (class, task) of the current plan would pick next: for tests and the console. */
    Implementation pick(String serviceClass, TaskRef task) {
        SmoothWeightedRoundRobin<Choice> s = current.get().selectors().get(new Plan.Key(serviceClass, task));
        return s == null ? null : s.next().implementation();
    }
}
