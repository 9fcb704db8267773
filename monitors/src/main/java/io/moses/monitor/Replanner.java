package io.moses.monitor;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Coalesces re-plan requests (docs/model.md, "What triggers a new plan"): at most one solve in flight; requests that
 * arrive meanwhile are merged into one more solve after it. A storm of events yields one or
 * two new plans, not one per event.
 */
public final class Replanner implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Replanner.class);

    private Consumer<String> solve; // guarded by lock; requests wait for it
    private final ExecutorService worker;
    private final AtomicLong solves = new AtomicLong();
    private final Object lock = new Object();
    private boolean running;
    private final List<String> pending = new ArrayList<>();

    /** @param solve solves and publishes a new plan; its argument says why */
    public Replanner(Consumer<String> solve) {
        this();
        solveWith(solve);
    }

    /**
     * A re-planner whose solve is given later ({@link #solveWith}): the wiring builds it before the
     * feedback loop that solves. Requests made before then wait for it.
     */
    public Replanner() {
        this.worker = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "replanner");
            t.setDaemon(true);
            return t;
        });
    }

    /** Sets what solves and publishes a new plan (once); its argument says why. */
    public void solveWith(Consumer<String> solve) {
        synchronized (lock) {
            if (this.solve != null) throw new IllegalStateException("this re-planner already has its solve");
            this.solve = java.util.Objects.requireNonNull(solve, "solve");
            if (running || pending.isEmpty()) return;
            running = true;
        }
        worker.execute(this::drain);
    }

    /** Asks for a new plan; returns at once. */
    public void request(String reason) {
        synchronized (lock) {
            pending.add(reason);
            if (running || solve == null) return;
            running = true;
        }
        worker.execute(this::drain);
    }

    private void drain() {
        while (true) {
            String why;
            Consumer<String> solve;
            synchronized (lock) {
                solve = this.solve;
                if (pending.isEmpty()) {
                    running = false;
                    return;
                }
                List<String> distinct = pending.stream().distinct().toList();
                // three events in full; the rest by what they concern (the text before their first
                // ':'), so that the reason names every service or class that asked for the plan
                why = String.join("; ", distinct.subList(0, Math.min(3, distinct.size())))
                        + (distinct.size() > 3 ? " (and " + (distinct.size() - 3) + " more events: "
                                + String.join(", ", distinct.subList(3, distinct.size()).stream().map(Replanner::subject).toList()) + ")" : "");
                pending.clear();
            }
            solves.incrementAndGet();
            try {
                solve.accept(why);
            } catch (RuntimeException e) {
                log.warn("re-plan failed ({}), keeping the current plan: {}", why, e.getMessage());
            }
        }
    }

    private static String subject(String event) {
        int colon = event.indexOf(':');
        return colon > 0 ? event.substring(0, colon) : event;
    }

    /** How many solves have run. */
    public long solves() {
        return solves.get();
    }

    /** True while a solve runs or waits. */
    boolean busy() {
        synchronized (lock) {
            return running;
        }
    }

    @Override
    public void close() {
        worker.shutdownNow();
    }
}
