package org.apache.ode.bpel.engine;

import org.apache.ode.bpel.iapi.ProcessConf;

/**
 * ODE's server, whose processes run their instances in a {@link BrokerRuntimeContext}: the engine
 * reads variables without copying them where it only looks at them. ODE builds each process
 * through {@code createBpelProcess}, a factory method it offers for this; nothing of ODE's is
 * replaced.
 */
public class BrokerBpelServer extends BpelServerImpl {
    private volatile io.moses.ode.InstanceFence fence = io.moses.ode.InstanceFence.NONE;

    /** Who is told of every durable instance a transaction runs (before its processes are deployed). */
    public void setInstanceFence(io.moses.ode.InstanceFence fence) {
        this.fence = fence;
    }

    private volatile io.moses.ode.InstanceMessages messages = io.moses.ode.InstanceMessages.NONE;

    /** Who is told of every message a running instance takes (before the processes are deployed). */
    public void setInstanceMessages(io.moses.ode.InstanceMessages messages) {
        this.messages = messages;
    }

    @Override
    protected BpelProcess createBpelProcess(ProcessConf conf) {
        return new BrokerBpelProcess(conf, fence, messages);
    }
}
