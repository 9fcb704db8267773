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
 */
final class Callers implements BpelEventListener {
    private final Map<String, String> classByExchange = new ConcurrentHashMap<>();
    private final Map<Long, String> classByInstance = new ConcurrentHashMap<>();
    private final Map<String, Long> instanceByExchange = new ConcurrentHashMap<>();

    void register(String exchangeId, String serviceClass) {
        if (serviceClass != null) classByExchange.put(exchangeId, serviceClass);
    }

    void release(String exchangeId) {
        classByExchange.remove(exchangeId);
        Long iid = instanceByExchange.remove(exchangeId);
        if (iid != null) classByInstance.remove(iid);
    }

    String classOf(Long instanceId) {
        return instanceId == null ? null : classByInstance.get(instanceId);
    }

    @Override
    public void onEvent(BpelEvent event) {
        if (event instanceof NewProcessInstanceEvent e && e.getMessageExchangeId() != null) {
            String cls = classByExchange.get(e.getMessageExchangeId());
            if (cls != null) {
                classByInstance.put(e.getProcessInstanceId(), cls);
                instanceByExchange.put(e.getMessageExchangeId(), e.getProcessInstanceId());
            }
        }
    }

    @Override
    public void startup(Properties configProperties) {}

    @Override
    public void shutdown() {}
}
