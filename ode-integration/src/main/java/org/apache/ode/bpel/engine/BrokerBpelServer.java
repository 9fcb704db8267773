package org.apache.ode.bpel.engine;

import org.apache.ode.bpel.iapi.ProcessConf;

/**
 * ODE's server, whose processes run their instances in a {@link BrokerRuntimeContext}: the engine
 * reads variables without copying them where it only looks at them. ODE builds each process
 * through {@code createBpelProcess}, a factory method it offers for this; nothing of ODE's is
 * replaced.
 */
public class BrokerBpelServer extends BpelServerImpl {
    @Override
    protected BpelProcess createBpelProcess(ProcessConf conf) {
        return new BrokerBpelProcess(conf);
    }
}
