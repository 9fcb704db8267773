package io.moses.core.engine;

import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.ode.bpel.evt.BpelEvent;
import org.apache.ode.bpel.evt.NewProcessInstanceEvent;
import org.apache.ode.bpel.iapi.BpelEventListener;

/**
 * Who started which process instance, so that every partner invoke of an instance carries its
 * caller's service class. The front-end registers the request's message exchange; ODE's
 * new-instance event (fired synchronously, before the instance runs) links the instance to it.
 * The user who sent an instance's first message is kept for the instance's life (its
 * conversation belongs to that user), and for a one-way request past its release, since its
 * instance may start after the request has returned.
 */
final class Callers implements BpelEventListener {
    private final Map<String, String> classByExchange = new ConcurrentHashMap<>();
    private final Map<Long, String> classByInstance = new ConcurrentHashMap<>();
    private final Map<String, Long> instanceByExchange = new ConcurrentHashMap<>();
    private final Map<Long, String> exchangeByInstance = new ConcurrentHashMap<>();
    private final Map<String, String> failures = new ConcurrentHashMap<>();
    /** ODE's client id of each waiting request, to wake its waiter when its instance fails. */
    private final Map<String, String> clientByExchange = new ConcurrentHashMap<>();
    private final java.util.Set<String> waiting = ConcurrentHashMap.newKeySet();
    private final Map<String, Map<io.moses.model.TaskRef, Integer>> invokesByExchange = new ConcurrentHashMap<>();
    /** The trace context of each waiting request that is traced: its invokes' spans are its children. */
    private final Map<String, Object> traceByExchange = new ConcurrentHashMap<>();
    /** The sender of each request that named a user, until its instance starts (or a minute, for one that starts none). */
    private final Map<String, Sender> senderByExchange = new ConcurrentHashMap<>();
    private final Map<Long, String> starterByInstance = new ConcurrentHashMap<>();
    /** The instances each user started that have not ended (those of processes that correlate: they may wait). */
    private final Map<String, java.util.concurrent.atomic.AtomicInteger> liveByUser = new ConcurrentHashMap<>();
    private static final long SENDER_KEPT_NANOS = java.util.concurrent.TimeUnit.MINUTES.toNanos(1);

    private record Sender(String user, long atNanos) {}

    void register(String exchangeId, String clientId, String serviceClass) {
        register(exchangeId, clientId, serviceClass, null);
    }

    void register(String exchangeId, String clientId, String serviceClass, String user) {
        register(exchangeId, clientId, serviceClass, user, null);
    }

    /** @param trace the request's trace context ({@link io.moses.core.tracing.Tracing#current()}), null when untraced */
    void register(String exchangeId, String clientId, String serviceClass, String user, Object trace) {
        if (trace != null) traceByExchange.put(exchangeId, trace);
        if (user != null) {
            long now = System.nanoTime();
            if (senderByExchange.size() > 10_000) senderByExchange.values().removeIf(s -> now - s.atNanos() > SENDER_KEPT_NANOS);
            senderByExchange.put(exchangeId, new Sender(user, now));
        }
        waiting.add(exchangeId);
        clientByExchange.put(exchangeId, clientId);
        invokesByExchange.put(exchangeId, new ConcurrentHashMap<>());
        if (serviceClass != null) classByExchange.put(exchangeId, serviceClass);
    }

    /** The end of a request; a one-way one keeps its sender until its instance starts. */
    void release(String exchangeId, boolean oneWay) {
        if (!oneWay) senderByExchange.remove(exchangeId); // its instance, if it made one, started before its reply
        release(exchangeId);
    }

    void release(String exchangeId) {
        waiting.remove(exchangeId);
        failures.remove(exchangeId);
        String client = clientByExchange.remove(exchangeId);
        if (client != null) org.apache.ode.bpel.engine.ResponseWaiters.forget(client);
        invokesByExchange.remove(exchangeId);
        classByExchange.remove(exchangeId);
        if (!traceByExchange.isEmpty()) traceByExchange.remove(exchangeId);
        Long iid = instanceByExchange.remove(exchangeId);
        if (iid != null) {
            classByInstance.remove(iid);
            exchangeByInstance.remove(iid);
        }
    }

    /**
     * An engine job of a request's instance failed: in-memory jobs are not retried, so the
     * request will never get a reply. Its waiter is woken at once instead of timing out.
     */
    void failed(String exchangeId, Long instanceId, String reason) {
        String mex = exchangeId != null && waiting.contains(exchangeId) ? exchangeId
                : instanceId == null ? null : exchangeByInstance.get(instanceId);
        if (mex == null || !waiting.contains(mex)) return;
        failures.put(mex, reason);
        String client = clientByExchange.get(mex);
        if (client != null) org.apache.ode.bpel.engine.ResponseWaiters.wake(client);
    }

    /** Why the request's instance failed, or null. */
    String failure(String exchangeId) {
        return failures.get(exchangeId);
    }

    /** The user whose message started the instance, null when anonymous or unknown. */
    String starterOf(long instanceId) {
        return starterByInstance.get(instanceId);
    }

    /** The instances {@code user} started that have not ended yet. */
    int liveInstancesOf(String user) {
        java.util.concurrent.atomic.AtomicInteger n = liveByUser.get(user);
        return n == null ? 0 : n.get();
    }

    /** The trace context of the request that started the instance and still waits for its reply, or null. */
    Object traceOf(Long instanceId) {
        if (instanceId == null || traceByExchange.isEmpty()) return null;
        String mex = exchangeByInstance.get(instanceId);
        return mex == null ? null : traceByExchange.get(mex);
    }

    String classOf(Long instanceId) {
        return instanceId == null ? null : classByInstance.get(instanceId);
    }

    /** Counts one invoke of {@code task} by the request that started {@code instanceId}. */
    void invoked(Long instanceId, io.moses.model.TaskRef task) {
        String mex = instanceId == null ? null : exchangeByInstance.get(instanceId);
        if (mex == null) return;
        Map<io.moses.model.TaskRef, Integer> counts = invokesByExchange.get(mex);
        if (counts != null) counts.merge(task, 1, Integer::sum);
    }

    /** The invokes counted for a request so far. */
    Map<io.moses.model.TaskRef, Integer> invokes(String exchangeId) {
        Map<io.moses.model.TaskRef, Integer> counts = invokesByExchange.get(exchangeId);
        return counts == null ? Map.of() : Map.copyOf(counts);
    }

    @Override
    public void onEvent(BpelEvent event) {
        if (event instanceof org.apache.ode.bpel.evt.ProcessInstanceStateChangeEvent s && s.getProcessInstanceId() != null
                && org.apache.ode.bpel.common.ProcessState.isFinished(s.getNewState())) {
            String starter = starterByInstance.remove(s.getProcessInstanceId());
            if (starter != null) liveByUser.computeIfPresent(starter, (k, n) -> n.decrementAndGet() <= 0 ? null : n);
        }
        if (event instanceof NewProcessInstanceEvent e && e.getMessageExchangeId() != null) {
            String mex = e.getMessageExchangeId();
            Sender sender = senderByExchange.remove(mex);
            if (sender != null && starterByInstance.put(e.getProcessInstanceId(), sender.user()) == null)
                liveByUser.computeIfAbsent(sender.user(), k -> new java.util.concurrent.atomic.AtomicInteger()).incrementAndGet();
            if (!waiting.contains(mex)) return;
            instanceByExchange.put(mex, e.getProcessInstanceId());
            exchangeByInstance.put(e.getProcessInstanceId(), mex);
            String cls = classByExchange.get(mex);
            if (cls != null) classByInstance.put(e.getProcessInstanceId(), cls);
        }
    }

    @Override
    public void startup(Properties configProperties) {}

    @Override
    public void shutdown() {}
}
