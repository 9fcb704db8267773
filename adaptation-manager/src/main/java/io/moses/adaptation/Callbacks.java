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
 * <p>A callback names its call when the request carried the call's reply address
 * ({@link ReplyTo}); one that names none answers the oldest call its instance waits for there. A
 * call whose callback is late may be sent to another provider ({@code resend}): the first
 * provider's callback is then superseded, and discarded if it still comes.
 *
 * <p>Held in memory, at most {@link #MAX_WAITING} calls: a call beyond them, or one whose broker
 * restarted before its callback, is not observed (and its callback is delivered).
 */
final class Callbacks {
    static final int MAX_WAITING = 100_000;

    /** The callbacks one instance waits for on one partner link's operation, oldest first. */
    private record Key(long instance, String composite, String partnerLink, String operation) {}

    /** @param resend sends the call to the next provider when its callback is late; null: none to send it to */
    private record Waiting(TaskRef task, String service, String serviceClass, long sentNanos, String call, Runnable resend) {}

    /** How long a superseded call's callback is still recognised, and discarded. */
    static final long SUPERSEDED_NANOS = java.util.concurrent.TimeUnit.HOURS.toNanos(1);

    private final Map<Key, Deque<Waiting>> waiting = new ConcurrentHashMap<>();
    private final AtomicInteger count = new AtomicInteger();
    private final AtomicLong late = new AtomicLong(), unobserved = new AtomicLong(), discarded = new AtomicLong();
    /** Calls sent again to another provider after their callback was late, by number. */
    private final Map<String, Boolean> superseded = new ConcurrentHashMap<>();
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

    /**
     * {@code service} took {@code task}'s one-way request for {@code instance}: its callback is
     * awaited for at most the callback's timeout.
     *
     * @param call   the call's number, which its callback names (null: it names none)
     * @param resend run when the callback is late, once the timeout is observed: sends the call to
     *               another provider; null: none
     */
    void sent(long instance, TaskRef task, Callback callback, String service, String serviceClass, String call, Runnable resend) {
        if (count.incrementAndGet() > MAX_WAITING) {
            count.decrementAndGet();
            unobserved.incrementAndGet();
            return;
        }
        Key key = new Key(instance, task.composite(), task.partnerLink(), callback.operation());
        Waiting w = new Waiting(task, service, serviceClass, health.now(), call, resend);
        waiting.compute(key, (k, q) -> {
            Deque<Waiting> d = q == null ? new ArrayDeque<>() : q;
            d.addLast(w);
            return d;
        });
        client.schedule(() -> {
            if (!remove(key, w)) return;
            observe(w, CallEnd.TIMEOUT);
            if (w.resend() == null) return;
            if (w.call() != null && superseded.size() < MAX_WAITING) {
                superseded.put(w.call(), Boolean.TRUE);
                client.schedule(() -> superseded.remove(w.call()), SUPERSEDED_NANOS);
            }
            w.resend().run();
        }, callback.timeout().toNanos());
    }

    /**
     * Whether a callback naming {@code call} is to be discarded: its call was sent to another
     * provider after it was late. Counted when it is.
     */
    boolean superseded(String call) {
        if (call == null || superseded.isEmpty() || !superseded.containsKey(call)) return false;
        discarded.incrementAndGet();
        return true;
    }

    /**
     * A message on {@code partnerLink.operation} reached {@code instance}: the call it names is
     * answered, else the oldest call waiting for it there. One nobody waits for (its call timed
     * out, or was sent before a restart) is counted as late.
     *
     * @param call the call the message's address named, or null
     */
    void received(long instance, String composite, String partnerLink, String operation, String call) {
        if (!expects(composite, partnerLink, operation)) return;
        Key key = new Key(instance, composite, partnerLink, operation);
        Waiting[] first = new Waiting[1];
        waiting.computeIfPresent(key, (k, q) -> {
            first[0] = call == null ? q.pollFirst() : named(q, call);
            return q.isEmpty() ? null : q;
        });
        if (first[0] == null) {
            late.incrementAndGet();
            return;
        }
        count.decrementAndGet();
        observe(first[0], CallEnd.REPLY);
    }

    private static Waiting named(Deque<Waiting> q, String call) {
        for (java.util.Iterator<Waiting> i = q.iterator(); i.hasNext();) {
            Waiting w = i.next();
            if (call.equals(w.call())) {
                i.remove();
                return w;
            }
        }
        return null;
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

    /** Callbacks of superseded calls, discarded. */
    long discarded() {
        return discarded.get();
    }

    /** Calls not awaited because {@link #MAX_WAITING} were already. */
    long unobserved() {
        return unobserved.get();
    }
}
