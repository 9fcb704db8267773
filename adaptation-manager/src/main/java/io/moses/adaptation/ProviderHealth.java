package io.moses.adaptation;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the request path knows of each concrete service between plans (docs/model.md, "Reaction
 * between plans"): calls in flight (bounded, and their start times, so the QoS Monitor sees a
 * slowdown before the slow replies arrive), consecutive failures, and whether the service is
 * ejected from selection. Ejection is outlier detection: {@code ejectAfter} failures in a row
 * that blame the provider take it out of selection at once, without waiting for a new plan;
 * a reply resets the count. A service ejected by the WS Monitor comes back with a successful
 * probe or a new plan that uses it ({@link #reinstate}); one ejected for failed calls comes back
 * only on evidence that calls work: a trial call after its back-off ({@link TrialSchedule}).
 * Either way it is reinstated: back in selection.
 */
final class ProviderHealth {
    private static final Logger log = LoggerFactory.getLogger(ProviderHealth.class);

    private final int maxInFlight;
    private final int ejectAfter;
    private final LongSupplier clock;
    /** The wall clock of the ejections: the one plans are stamped on ({@link #ejectedBefore}). */
    private final java.time.Clock wall;
    private final Map<String, State> states = new ConcurrentHashMap<>();
    private final AtomicInteger ejectedCount = new AtomicInteger();
    private volatile BiConsumer<String, String> onEjected = (s, why) -> {};
    private volatile BiConsumer<String, String> onReinstatedByTrial = (s, why) -> {};
    private final StallWatch stalls;

    /** One concrete service's state on the request path. */
    static final class State {
        final String name;
        /** The calls in flight, at most maxInFlight: more are refused at once. */
        final CallsInFlight inFlight;
        final AtomicInteger consecutiveFailures = new AtomicInteger();
        final AtomicLong lastExplored;
        volatile boolean ejected;
        /** Wall-clock time of the ejection: only a plan solved after it may bring the service back. */
        volatile java.time.Instant ejectedAt = java.time.Instant.MIN;
        /** When the trial call of a service out for failed calls is due. */
        final TrialSchedule trials = new TrialSchedule();
        /** Ejected for failed calls: only a call that is answered brings it back, not a probe. */
        volatile boolean outForCalls;
        /** The WS Monitor found it down (its probe fails): no trial call until a probe answers. */
        volatile boolean probeDown;
        /** Whether its calls stalled: unanswered far past its usual latency ({@link StallWatch}). */
        final StallWatch.Watch watch;

        State(String name, int maxInFlight, long now) {
            this.name = name;
            this.inFlight = new CallsInFlight(maxInFlight);
            this.lastExplored = new AtomicLong(now);
            this.watch = new StallWatch.Watch(now);
        }
    }

    /**
     * @param maxInFlight calls one service may have in flight before more are refused locally
     * @param ejectAfter  consecutive failures that eject a service (0: never)
     * @param clock       nanosecond clock (System::nanoTime; a fake one in tests)
     * @param wall        wall clock of the ejections, the broker's, which plans are stamped on
     */
    ProviderHealth(int maxInFlight, int ejectAfter, LongSupplier clock, java.time.Clock wall) {
        this(maxInFlight, ejectAfter, clock, wall, (task, delay) -> {}, Runnable::run); // no stall watch: its timer never runs
    }

    /**
     * @param scheduler the stall watch's timer ({@link StallWatch})
     * @param sender    where the invocations of abandoned calls go on from
     */
    ProviderHealth(int maxInFlight, int ejectAfter, LongSupplier clock, java.time.Clock wall,
                   HedgeTimer.Scheduler scheduler, java.util.concurrent.Executor sender) {
        this.maxInFlight = maxInFlight;
        this.ejectAfter = ejectAfter;
        this.clock = clock;
        this.wall = wall;
        this.stalls = new StallWatch(clock, scheduler, sender, this::ejectForCalls);
    }

    long now() {
        return clock.getAsLong();
    }

    State state(String service) {
        State s = states.get(service);
        return s != null ? s : states.computeIfAbsent(service, k -> new State(k, maxInFlight, clock.getAsLong()));
    }

    void onEjected(BiConsumer<String, String> listener) {
        this.onEjected = listener;
    }

    /** Called with (service, why) when a service ejected for failed calls is back: its trial call was answered. */
    void onReinstatedByTrial(BiConsumer<String, String> listener) {
        this.onReinstatedByTrial = listener;
    }

    /** True if any service is ejected: the request path skips every check otherwise. */
    boolean anyEjected() {
        return ejectedCount.get() > 0;
    }

    boolean ejected(String service) {
        State s = states.get(service);
        return s != null && s.ejected;
    }

    Set<String> ejectedServices() {
        Set<String> out = new java.util.TreeSet<>();
        states.forEach((k, s) -> {
            if (s.ejected) out.add(k);
        });
        return out;
    }

    /** A call to {@code s} took a slot in flight at {@code start}: the stall watch sees it. */
    void entered(State s, long start) {
        stalls.entered(s, start);
    }

    /**
     * The p99 [s] of each service's recent replies and how many replies it was made of: what
     * sets its stall time ({@link StallWatch}).
     */
    void expect(String service, double p99Seconds, int replies) {
        StallWatch.expect(state(service).watch, p99Seconds, replies);
    }

    /** Counts one finished call; returns true if this call ejected the service. */
    boolean observe(String service, CallEnd kind) {
        return observe(service, kind, kind.answered() ? clock.getAsLong() : 0);
    }

    /** As {@link #observe(String, CallEnd)}, the call having ended at {@code now} (clock nanos). */
    boolean observe(String service, CallEnd kind, long now) {
        State s = state(service);
        if (kind.answered()) {
            StallWatch.answered(s.watch, now);
            // a SOAP fault is an answer too (often a business fault): it neither counts as a
            // failure nor leaves a service out for failed calls
            // read first: a write on every reply would move the line between the cores' caches
            if (kind == CallEnd.REPLY && s.consecutiveFailures.get() != 0) s.consecutiveFailures.set(0);
            // only its trial: a call sent before the ejection that is answered late is no
            // evidence that the provider answers now
            if (s.outForCalls && s.trials.callEnded(clock.getAsLong(), true) && putBack(s, "its trial call was answered"))
                onReinstatedByTrial.accept(service, "its trial call was answered");
            return false;
        }
        if (kind.blamesProvider()) {
            if (s.outForCalls) s.trials.callEnded(clock.getAsLong(), false);
            int n = s.consecutiveFailures.incrementAndGet();
            if (ejectAfter > 0 && n >= ejectAfter) return ejectForCalls(s, n + " consecutive failures");
            return false;
        }
        // cancelled and locally refused calls say nothing about the provider
        if (s.outForCalls) s.trials.trialUndecided();
        return false;
    }

    /** Takes a service out of selection (the WS Monitor found it down); returns true if it was in. */
    boolean eject(String service, String why) {
        State s = state(service);
        synchronized (s) {
            s.probeDown = true;
            if (s.ejected) return false;
            s.ejected = true;
            s.ejectedAt = wall.instant();
            ejectedCount.incrementAndGet();
        }
        log.info("concrete service {} ejected from selection: {}", service, why);
        onEjected.accept(service, why);
        return true;
    }

    /**
     * Takes a service out for failed calls: only a call that works brings it back, the first
     * trial after {@link TrialSchedule}'s back-off. Returns true if it was in selection; a service
     * already out (the WS Monitor's) is now out for its calls too.
     */
    private boolean ejectForCalls(State s, String why) {
        synchronized (s) {
            if (s.outForCalls) return false;
            s.outForCalls = true;
            s.trials.ejected(clock.getAsLong());
            if (s.ejected) return false; // the WS Monitor's already: no second line, no second re-plan
            s.ejected = true;
            s.ejectedAt = wall.instant();
            ejectedCount.incrementAndGet();
        }
        log.info("concrete service {} ejected from selection: {}; a trial call in {} ms", s.name, why, s.trials.backoffMillis());
        onEjected.accept(s.name, why);
        return true;
    }

    /**
     * Brings a service back into selection on outside evidence (a probe that answered, a plan
     * solved after the ejection); returns true if it was ejected. A service out for failed calls
     * stays out: a WSDL that answers says nothing of calls that hang (it waits for its trial call).
     */
    boolean reinstate(String service, String why) {
        State s = states.get(service);
        if (s == null || s.outForCalls) return false;
        return putBack(s, why);
    }

    /**
     * A probe of the service answered. One out for failed calls that the WS Monitor had found down
     * (restarted, or back on the network) gets its trial call now, not at the end of a back-off
     * that grew while it was down; one whose probe never failed keeps its schedule.
     */
    void probeAnswered(String service) {
        State s = states.get(service);
        if (s == null) return;
        synchronized (s) {
            if (s.probeDown && s.outForCalls) s.trials.dueNow(clock.getAsLong());
            s.probeDown = false;
        }
    }

    /** Reinstates an ejected service: back in selection, its counts reset; false if it was in. */
    private boolean putBack(State s, String why) {
        synchronized (s) {
            if (!s.ejected) return false;
            s.ejected = false;
            s.outForCalls = false;
            s.probeDown = false;
            s.consecutiveFailures.set(0);
            ejectedCount.decrementAndGet();
        }
        log.info("concrete service {} back in selection: {}", s.name, why);
        return true;
    }

    /**
     * Whether this call is the trial call of {@code service}, out for failed calls and due for
     * one now; at most one trial is in flight per service.
     */
    boolean tryTrial(String service) {
        State s = states.get(service);
        return s != null && s.ejected && s.outForCalls && !s.probeDown && s.trials.tryTrial(clock.getAsLong());
    }

    /** True if {@code service} is ejected and was ejected before {@code instant}. */
    boolean ejectedBefore(String service, java.time.Instant instant) {
        State s = states.get(service);
        return s != null && s.ejected && s.ejectedAt.isBefore(instant);
    }

    /**
     * Whether this call may explore {@code service} (a service the plan does not use): at most
     * one call per {@code periodNanos}, never while it is ejected.
     */
    boolean tryExplore(String service, long periodNanos) {
        State s = state(service);
        if (s.ejected) return false;
        long now = clock.getAsLong();
        long last = s.lastExplored.get();
        return now - last >= periodNanos && s.lastExplored.compareAndSet(last, now);
    }

    /** Ages [s] of the calls in flight now, per service (services with none are left out). */
    Map<String, double[]> inFlightAges() {
        long now = clock.getAsLong();
        Map<String, double[]> out = new HashMap<>();
        states.forEach((name, s) -> {
            double[] ages = s.inFlight.ages(now);
            if (ages.length > 0) out.put(name, ages);
        });
        return out;
    }

    /** Forgets services no longer registered. */
    void retain(Set<String> services) {
        for (var it = states.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            if (!services.contains(e.getKey()) && e.getValue().inFlight.isEmpty()) {
                if (e.getValue().ejected) ejectedCount.decrementAndGet();
                it.remove();
            }
        }
    }
}
