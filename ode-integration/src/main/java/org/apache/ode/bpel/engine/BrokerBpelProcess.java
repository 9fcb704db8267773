package org.apache.ode.bpel.engine;

import io.moses.ode.LiteralParsing;
import org.apache.ode.bpel.dao.ProcessInstanceDAO;
import org.apache.ode.bpel.iapi.ProcessConf;
import org.apache.ode.bpel.o.OProcess;
import org.apache.ode.bpel.runtime.PROCESS;

/**
 * One deployed process of {@link BrokerBpelServer}: its instances run in a
 * {@link BrokerRuntimeContext} (ODE's {@code createRuntimeContext}, the factory it offers), and
 * its {@code <literal>}s are handed to {@link LiteralParsing} so that an assign parses each once.
 */
final class BrokerBpelProcess extends BpelProcess {
    /** The compiled model whose literals were handed over last (a process may be hydrated again). */
    private volatile OProcess literalsOf;

    BrokerBpelProcess(ProcessConf conf) {
        super(conf);
    }

    @Override
    protected BpelRuntimeContextImpl createRuntimeContext(ProcessInstanceDAO dao, PROCESS template,
            MyRoleMessageExchangeImpl instantiatingMessageExchange) {
        OProcess model = getOProcess();
        if (model != null && model != literalsOf) {
            LiteralParsing.remember(model);
            literalsOf = model;
        }
        return new BrokerRuntimeContext(this, dao, template, instantiatingMessageExchange);
    }
}
