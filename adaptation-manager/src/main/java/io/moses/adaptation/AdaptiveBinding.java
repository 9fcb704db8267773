package io.moses.adaptation;

import io.moses.model.ConcreteService;
import io.moses.model.Implementation;
import io.moses.model.Plan;
import io.moses.model.TaskRef;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Adaptation Manager's binding (model.md section 6): for each invoke of task i by a
 * class-k request, picks an implementation by smooth weighted round-robin over the plan's
 * fractions for (k, i) and executes its pattern. The plan lives in memory and is replaced
 * atomically; nothing here reads the database.
 *
 * <p>A (class, task) the plan does not cover (an anonymous caller, a plan still to come) is
 * bound like {@link StaticBinding}: the first concrete service of the task, else the WSDL
 * address.
 */
public final class AdaptiveBinding implements InvokeHandler {
    private static final Logger log = LoggerFactory.getLogger(AdaptiveBinding.class);

    private final SoapClient client;
    private final PatternExecutor executor;
    private final OutcomeLog outcomes;
    private final AtomicReference<Compiled> current;
    private final Duration defaultTimeout;

    /** The plan, compiled for the request path. */
    private record Compiled(Plan plan, Map<Plan.Key, SmoothWeightedRoundRobin<Implementation>> selectors,
                            Map<String, ConcreteService> services, Map<TaskRef, ConcreteService> fallback) {}

    /**
     * @param services       every concrete service
     * @param plan           the first plan (may be null: everything is bound statically)
     * @param defaultTimeout response timeout of a concrete service with none of its own
     * @param timeouts       per concrete service response timeouts
     */
    public AdaptiveBinding(Collection<ConcreteService> services, Plan plan, SoapClient client, OutcomeLog outcomes,
                           Duration defaultTimeout, Map<String, Duration> timeouts) {
        this(services, plan, client, outcomes, defaultTimeout, timeouts, 256);
    }

    /** @param maxInFlight calls a concrete service may have in flight before more fail at once */
    public AdaptiveBinding(Collection<ConcreteService> services, Plan plan, SoapClient client, OutcomeLog outcomes,
                           Duration defaultTimeout, Map<String, Duration> timeouts, int maxInFlight) {
        this.client = client;
        this.outcomes = outcomes;
        this.defaultTimeout = defaultTimeout;
        Map<String, Duration> t = Map.copyOf(timeouts);
        this.executor = new PatternExecutor(client, outcomes, name -> t.getOrDefault(name, defaultTimeout), maxInFlight);
        this.current = new AtomicReference<>(compile(plan, services));
    }

    /** Replaces the plan (and the set of concrete services) atomically. */
    public void update(Plan plan, Collection<ConcreteService> services) {
        Compiled next = compile(plan, services);
        Compiled prev = current.getAndSet(next);
        log.info("plan {} in force (was {})", plan == null ? "none" : plan.version(),
                prev.plan() == null ? "none" : prev.plan().version());
    }

    public Plan plan() {
        return current.get().plan();
    }

    public OutcomeLog outcomes() {
        return outcomes;
    }

    private static Compiled compile(Plan plan, Collection<ConcreteService> services) {
        Map<String, ConcreteService> byName = new HashMap<>();
        Map<TaskRef, ConcreteService> fallback = new LinkedHashMap<>();
        for (ConcreteService s : services) {
            byName.put(s.name(), s);
            fallback.putIfAbsent(s.task(), s);
        }
        Map<Plan.Key, SmoothWeightedRoundRobin<Implementation>> selectors = new HashMap<>();
        if (plan != null) {
            for (var e : plan.bindings().entrySet()) {
                List<Implementation> impls = new ArrayList<>();
                List<Double> weights = new ArrayList<>();
                for (Plan.Share share : e.getValue()) {
                    if (share.fraction() <= 0) continue;
                    for (String m : share.implementation().members())
                        if (!byName.containsKey(m))
                            throw new IllegalArgumentException("plan " + plan.version() + " binds " + e.getKey().task()
                                    + " to unknown concrete service " + m);
                    impls.add(share.implementation());
                    weights.add(share.fraction());
                }
                if (!impls.isEmpty())
                    selectors.put(e.getKey(), new SmoothWeightedRoundRobin<>(impls,
                            weights.stream().mapToDouble(Double::doubleValue).toArray()));
            }
        }
        return new Compiled(plan, Map.copyOf(selectors), Map.copyOf(byName), Map.copyOf(fallback));
    }

    @Override
    public CompletionStage<InvokeOutcome> invoke(Invocation inv) {
        Compiled c = current.get();
        SmoothWeightedRoundRobin<Implementation> selector =
                inv.serviceClass() == null ? null : c.selectors().get(new Plan.Key(inv.serviceClass(), inv.task()));
        if (selector != null) {
            Implementation impl = selector.next();
            List<ConcreteService> members = new ArrayList<>(impl.members().size());
            for (String m : impl.members()) members.add(c.services().get(m));
            return executor.execute(inv, impl, members);
        }
        ConcreteService fixed = c.fallback().get(inv.task());
        if (fixed != null) return executor.execute(inv, Implementation.single(fixed.name()), List.of(fixed));
        if (inv.defaultEndpoint() == null)
            return CompletableFuture.completedFuture(new InvokeOutcome.Failure(inv.task()
                    + ": no concrete service registered and no address in the WSDL", List.of()));
        String name = inv.defaultEndpoint().toString();
        return client.call(inv.defaultEndpoint(), inv.soapAction(), inv.body(), defaultTimeout)
                .thenApply(r -> StaticBinding.outcome(inv, name, io.moses.model.PayloadMapping.IDENTITY, r));
    }

    /** Which implementation each (class, task) of the current plan would pick next: for tests and the console. */
    Implementation pick(String serviceClass, TaskRef task) {
        SmoothWeightedRoundRobin<Implementation> s = current.get().selectors().get(new Plan.Key(serviceClass, task));
        return s == null ? null : s.next();
    }
}
