package io.moses.adaptation;

import io.moses.model.Callback;
import io.moses.model.TaskRef;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The calls of asynchronous tasks waiting for their callbacks (docs/model.md, "Asynchronous
 * tasks"). A call's observation is made when its callback reaches its instance (a reply, timed
 * from the request) or when its timeout passes first (a timeout): the QoS Monitor, the ejection
 * and the plan then see the time to the answer, not the one-way send's round trip.
 *
 * <p>Held in memory, at most {@link #MAX_WAITING} calls: a call beyond them, or one whose broker
 * restarted before its callback, is not observed.
 */
final class Callbacks {
    static final int MAX_WAITING = 100_000;

    /** The callbacks one instance waits for on one partner link's operation, oldest first. */
    private record Key(long instance, String composite, String partnerLink, String operation) {}

    private record Waiting(TaskRef task, String service, String serviceClass, long sentNanos) {}

    private final Map<Key, Deque<Waiting>> waiting = new ConcurrentHashMap<>();
    private final AtomicInteger count = new AtomicInteger();
    private final AtomicLong late = new AtomicLong(), unobserved = new AtomicLong();
    private final ServiceCallLog outcomes;
    private final ProviderHealth health;
    private final SoapClient client;
    /** The callback operations of the tasks declared now (composite, partner link, operation): any other message is not looked up. */
    private volatile java.util.Set<java.util.List<String>> expected = java.util.Set.of();

    Callbacks(ServiceCallLog outcomes, ProviderHealth health, SoapClient client) {
        this.outcomes = outcomes;
        this.health = health;
        this.client = client;
    }

    /** {@code service} took {@code task}'s one-way request for {@code instance}: its callback is awaited for at most the callback's timeout. */
    void sent(long instance, TaskRef task, Callback callback, String service, String serviceClass) {
        if (count.incrementAndGet() > MAX_WAITING) {
            count.decrementAndGet();
            unobserved.incrementAndGet();
            return;
        }
        Key key = new Key(instance, task.composite(), task.partnerLink(), callback.operation());
        Waiting w = new Waiting(task, service, serviceClass, health.now());
        waiting.compute(key, (k, q) -> {
            Deque<Waiting> d = q == null ? new ArrayDeque<>() : q;
            d.addLast(w);
            return d;
        });
        client.schedule(() -> {
            if (remove(key, w)) observe(w, CallEnd.TIMEOUT);
        }, callback.timeout().toNanos());
    }

    /**
     * A message on {@code partnerLink.operation} reached {@code instance}: the oldest call
     * waiting for it there is answered. One nobody waits for (its call timed out, or was sent
     * before a restart) is counted as late.
     */
    void received(long instance, String composite, String partnerLink, String operation) {
        if (!expects(composite, partnerLink, operation)) return;
        Key key = new Key(instance, composite, partnerLink, operation);
        Waiting[] first = new Waiting[1];
        waiting.computeIfPresent(key, (k, q) -> {
            first[0] = q.pollFirst();
            return q.isEmpty() ? null : q;
        });
        if (first[0] == null) {
            late.incrementAndGet();
            return;
        }
        count.decrementAndGet();
        observe(first[0], CallEnd.REPLY);
    }

    private boolean remove(Key key, Waiting w) {
        boolean[] removed = new boolean[1];
        waiting.computeIfPresent(key, (k, q) -> {
            removed[0] = q.remove(w);
            return q.isEmpty() ? null : q;
        });
        if (removed[0]) count.decrementAndGet();
        return removed[0];
    }

    private void observe(Waiting w, CallEnd kind) {
        long now = health.now();
        health.observe(w.service(), kind); // before the record: whoever reads it sees the provider's state it led to
        outcomes.add(w.service(), w.task(), w.serviceClass(), now - w.sentNanos(), kind, true, now);
    }

    /** The asynchronous tasks now declared. */
    void declared(Map<TaskRef, Callback> callbacks) {
        java.util.Set<java.util.List<String>> e = new java.util.HashSet<>();
        callbacks.forEach((t, c) -> e.add(java.util.List.of(t.composite(), t.partnerLink(), c.operation())));
        expected = java.util.Set.copyOf(e);
    }

    private boolean expects(String composite, String partnerLink, String operation) {
        java.util.Set<java.util.List<String>> e = expected;
        // every message a waiting instance takes comes here: nothing to look up while no task is asynchronous
        return !e.isEmpty() && e.contains(java.util.List.of(composite, partnerLink, operation));
    }

    /** Calls waiting for their callback now. */
    int waiting() {
        return count.get();
    }

    /** Callbacks that came when none was awaited: after their call's timeout, or for a call sent before a restart. */
    long late() {
        return late.get();
    }

    /** Calls not awaited because {@link #MAX_WAITING} were already. */
    long unobserved() {
        return unobserved.get();
    }
}
