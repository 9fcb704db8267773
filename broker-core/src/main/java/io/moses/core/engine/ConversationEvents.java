package io.moses.core.engine;

import java.util.Properties;
import java.util.function.Supplier;
import org.apache.ode.bpel.common.ProcessState;
import org.apache.ode.bpel.evt.BpelEvent;
import org.apache.ode.bpel.evt.CorrelationSetWriteEvent;
import org.apache.ode.bpel.evt.ProcessInstanceStateChangeEvent;
import org.apache.ode.bpel.iapi.BpelEventListener;

/** ODE's events of correlation values written and instances ended, told to {@link Conversations}. */
final class ConversationEvents implements BpelEventListener {
    private final Supplier<Conversations> target;
    /** Who started an instance (null: anonymous or unknown). */
    private final java.util.function.LongFunction<String> starter;

    /** Whether a process version (its pid) is durable: one map look-up, at every instance's end. */
    private final java.util.function.Predicate<javax.xml.namespace.QName> durable;

    ConversationEvents(Supplier<Conversations> target, java.util.function.LongFunction<String> starter,
                       java.util.function.Predicate<javax.xml.namespace.QName> durable) {
        this.target = target;
        this.starter = starter;
        this.durable = durable;
    }

    @Override
    public void onEvent(BpelEvent event) {
        Conversations c = target.get();
        if (c == null) return;
        if (event instanceof CorrelationSetWriteEvent w && w.getKey() != null && w.getProcessInstanceId() != null
                && w.getProcessName() != null)
            c.initiated(w.getProcessName().toString(), org.apache.ode.bpel.engine.IncomingCorrelation.canonical(w.getKey()),
                    w.getProcessInstanceId(), starter.apply(w.getProcessInstanceId()));
        else if (event instanceof ProcessInstanceStateChangeEvent s && ProcessState.isFinished(s.getNewState())
                && s.getProcessInstanceId() != null)
            c.ended(s.getProcessInstanceId(), durable.test(s.getProcessId()));
    }

    @Override
    public void startup(Properties configProperties) {}

    @Override
    public void shutdown() {}
}
