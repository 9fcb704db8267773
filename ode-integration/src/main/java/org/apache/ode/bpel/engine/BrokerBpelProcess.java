package org.apache.ode.bpel.engine;

import io.moses.ode.ChangesInPlace;
import io.moses.ode.LiteralParsing;
import io.moses.ode.PathExpressions;
import org.apache.ode.bpel.dao.ProcessInstanceDAO;
import org.apache.ode.bpel.iapi.ProcessConf;
import org.apache.ode.bpel.o.OProcess;
import org.apache.ode.bpel.runtime.PROCESS;

/**
 * One deployed process of {@link BrokerBpelServer}: its instances run in a
 * {@link BrokerRuntimeContext} (ODE's {@code createRuntimeContext}, the factory it offers), with
 * the variables its assigns may change in place ({@link ChangesInPlace}) and its simplest XPath
 * expressions evaluated without Jaxen ({@link PathExpressions}), and its {@code <literal>}s are
 * handed to {@link LiteralParsing} so that an assign parses each once.
 */
final class BrokerBpelProcess extends BpelProcess {
    /** What was read from the compiled model last (a process may be hydrated again). */
    private volatile Model read;

    private record Model(OProcess model, ChangesInPlace changesInPlace, PathExpressions expressions) {}

    private final io.moses.ode.InstanceFence fence;
    private final io.moses.ode.InstanceMessages messages;

    BrokerBpelProcess(ProcessConf conf, io.moses.ode.InstanceFence fence, io.moses.ode.InstanceMessages messages) {
        super(conf);
        this.fence = fence;
        this.messages = messages;
    }

    /** The partner link whose role provides {@code service}, or null. */
    String partnerLinkProviding(javax.xml.namespace.QName service) {
        for (var e : getConf().getProvideEndpoints().entrySet())
            if (e.getValue().serviceName.equals(service)) return e.getKey();
        return null;
    }

    io.moses.ode.InstanceMessages messages() {
        return messages;
    }

    @Override
    protected BpelRuntimeContextImpl createRuntimeContext(ProcessInstanceDAO dao, PROCESS template,
            MyRoleMessageExchangeImpl instantiatingMessageExchange) {
        // every job, message and new instance of a durable process runs its instance through here
        if (!isInMemory()) fence.runs(dao);
        OProcess model = getOProcess();
        Model m = read;
        if (m == null || m.model() != model) {
            if (model != null) LiteralParsing.remember(model);
            // the model and ODE's expression registry are made together, by one hydration
            PathExpressions expressions = model == null || _expLangRuntimeRegistry == null ? null
                    : new PathExpressions(model, _expLangRuntimeRegistry);
            read = m = new Model(model, ChangesInPlace.of(model), expressions);
        }
        return new BrokerRuntimeContext(this, dao, template, instantiatingMessageExchange, m.changesInPlace(), m.expressions());
    }
}
