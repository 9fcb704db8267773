package org.apache.ode.bpel.engine;

import io.moses.ode.BrokerExecutionQueue;
import io.moses.ode.ChangesInPlace;
import io.moses.ode.VariableStore;
import java.util.List;
import org.apache.ode.bpel.common.FaultException;
import org.apache.ode.bpel.dao.MessageDAO;
import org.apache.ode.bpel.dao.ProcessInstanceDAO;
import org.apache.ode.bpel.dao.ScopeStateEnum;
import org.apache.ode.bpel.dao.XmlDataDAO;
import org.apache.ode.bpel.evt.ProcessInstanceEvent;
import org.apache.ode.bpel.evt.ScopeCompletionEvent;
import org.apache.ode.bpel.evt.ScopeEvent;
import org.apache.ode.bpel.evt.ScopeFaultEvent;
import org.apache.ode.bpel.evt.ScopeStartEvent;
import org.apache.ode.bpel.memdao.ProcessInstanceDaoImpl;
import org.apache.ode.bpel.o.OMessageVarType;
import org.apache.ode.bpel.o.OProcess;
import org.apache.ode.bpel.runtime.ExpressionLanguageRuntimeRegistry;
import org.apache.ode.bpel.runtime.PROCESS;
import org.apache.ode.bpel.runtime.VariableInstance;
import org.apache.ode.utils.DOMUtils;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * ODE's runtime context of one process instance, reading variables without copying them where
 * the engine only looks at them. ODE's engine tells {@code readVariable} whether the caller will
 * change what it reads ({@code forWriting}: an assign's target), but ODE's context drops the flag
 * and its store copies the whole variable on every read, and once more after every write to
 * return a value nobody uses: in the trip planner that is three copies of a message per
 * {@code <copy>}, most of a request's engine time spent copying.
 *
 * <p>Here a read for writing gets the stored value to change in place when the variable's store
 * alone holds it and no copy of the process can fault after it started changing its target
 * ({@link VariableStore#getForChange()}, {@link ChangesInPlace}), a copy otherwise (it is changed,
 * then written back); any other read gets the stored value ({@link VariableStore#peek()}); a
 * write returns the stored value. What leaves the instance is copied where it leaves
 * ({@link #buildOutgoingMessage}: ODE removes header parts from the message it is given, and the
 * SOAP client or the front-end reads it on their own threads), so a stored value is read and
 * changed by the instance's thread alone (the scheduler runs an instance's jobs one after
 * another). Checked against every reader in ODE 1.3.7's runtime:
 * none changes what it reads, but one: an assign whose {@code <from>} expression selects an
 * element declares on that element the namespaces in scope there (to carry them into the
 * target), so the source variable gets the same declarations repeated: the same document, in
 * XML's terms.
 *
 * <p>Variables of other stores (not the broker's DAOs) are read and written as ODE does.
 */
final class BrokerRuntimeContext extends BpelRuntimeContextImpl {
    /** ODE's logging, as the engine around it logs; the broker names it as its engine. */
    private static final org.apache.commons.logging.Log LOG = org.apache.commons.logging.LogFactory.getLog("io.moses.core.engine.BpelEngine");


    private final ChangesInPlace changesInPlace;
    /** The process's expressions, the simplest evaluated without Jaxen; null: ODE's registry. */
    private final ExpressionLanguageRuntimeRegistry expressions;

    BrokerRuntimeContext(BpelProcess process, ProcessInstanceDAO dao, PROCESS template,
            MyRoleMessageExchangeImpl instantiatingMessageExchange, ChangesInPlace changesInPlace,
            ExpressionLanguageRuntimeRegistry expressions) {
        super(process, dao, null, instantiatingMessageExchange); // the template is injected below, into our queue
        this.changesInPlace = changesInPlace;
        this.expressions = expressions;
        if (process.isInMemory() && ((ProcessInstanceDaoImpl) dao).getSoup() == null) {
            // A new instance: ODE made it a queue of its own, still empty; ours replaces it (an
            // instance that ran before keeps the queue it has, which is ours once it was new here).
            BrokerExecutionQueue queue = new BrokerExecutionQueue();
            queue.setReplacementMap(process.getReplacementMap(dao.getProcess().getProcessId()));
            _soup = queue;
            _vpu.setContext(queue);
        }
        if (template != null) _vpu.inject(template);
    }

    /** Every activity of the instance evaluates its expressions through here (ODE's activities ask the context). */
    @Override
    public ExpressionLanguageRuntimeRegistry getExpLangRuntime() {
        return expressions != null ? expressions : super.getExpLangRuntime();
    }

    private XmlDataDAO variable(Long scopeInstanceId, String name) {
        return _dao.getScope(scopeInstanceId).getVariable(name);
    }

    @Override
    public Node readVariable(Long scopeInstanceId, String varname, boolean forWriting) throws FaultException {
        if (variable(scopeInstanceId, varname) instanceof VariableStore store) {
            if (!forWriting) return store.peek();
            return changesInPlace.allowedFor(varname) ? store.getForChange() : store.get(); // get(): a copy, as ODE's read
        }
        return super.readVariable(scopeInstanceId, varname, forWriting);
    }

    /**
     * An event the process's configuration leaves out ({@code ProcessConf.isEventEnabled}: the
     * broker's keeps instance life-cycle events, and a correlating process's data events) ends
     * here. ODE fills it in, shows it to its debugger (whose breakpoints the broker offers no way
     * to set) and marks the process used (a volatile write that every instance's thread makes,
     * dozens of times a request) before it asks the configuration. A scope's state is still
     * recorded, as ODE records it.
     */
    @Override
    public void sendEvent(ProcessInstanceEvent event) {
        // of the data-handling events only a correlation set's write is listened to: the others
        // (a variable's every change, with its value) were a third of a durable step's writes
        if (event.getType() == org.apache.ode.bpel.evt.BpelEvent.TYPE.dataHandling
                && !(event instanceof org.apache.ode.bpel.evt.CorrelationSetWriteEvent)) return;
        List<String> scopes = event instanceof ScopeEvent s ? s.getParentScopesNames() : null;
        if (_bpelProcess._pconf.isEventEnabled(scopes, event.getType())) {
            super.sendEvent(event);
        } else if (event instanceof ScopeStartEvent s) {
            _dao.getScope(s.getScopeId()).setState(ScopeStateEnum.ACTIVE);
        } else if (event instanceof ScopeCompletionEvent s) {
            _dao.getScope(s.getScopeId()).setState(ScopeStateEnum.COMPLETED);
        } else if (event instanceof ScopeFaultEvent s) {
            _dao.getScope(s.getScopeId()).setState(ScopeStateEnum.FAULT);
        }
    }

    @Override
    public Node writeVariable(VariableInstance variable, Node changes) {
        XmlDataDAO data = variable(variable.scopeInstance, variable.declaration.name);
        if (!(data instanceof VariableStore store)) return super.writeVariable(variable, changes);
        store.set(changes);
        recordProperties(variable, store.peek(), store);
        return store.peek(); // ODE 1.3.7's callers do not use it
    }

    /**
     * As ODE does on a write: the values of the process's properties that have an alias for a
     * message variable, kept with the variable so that correlation reads them without a query.
     */
    private void recordProperties(VariableInstance variable, Node value, XmlDataDAO data) {
        if (!(variable.declaration.type instanceof OMessageVarType) || !(value instanceof Element message)) return;
        for (OProcess.OProperty property : variable.declaration.getOwner().properties) {
            OProcess.OPropertyAlias alias = property.getAlias(variable.declaration.type);
            if (alias == null) continue;
            try {
                String v = _bpelProcess.extractProperty(message, alias, variable.declaration.getDescription());
                if (v != null) data.setProperty(property.name.toString(), v);
            } catch (FaultException e) {
                // the message lacks what the alias selects: correlation will fault when it needs it
            }
        }
    }

    /** A message this instance takes on one of its operations: told to the broker ({@link io.moses.ode.InstanceMessages}). */
    @Override
    public void inputMsgMatch(String responsechannel, int idx, MyRoleMessageExchangeImpl mex) {
        super.inputMsgMatch(responsechannel, idx, mex);
        if (_bpelProcess instanceof BrokerBpelProcess p && p.messages() != io.moses.ode.InstanceMessages.NONE) {
            String partnerLink = p.partnerLinkProviding(mex.getServiceName());
            if (partnerLink != null)
                p.messages().received(getPid(), p.getProcessType().getLocalPart(), partnerLink, mex.getOperationName(),
                        mex.getProperty(io.moses.ode.InstanceMessages.CALL));
        }
    }

    /**
     * A durable instance's receive holds its correlation keys until its route is committed
     * ({@code InstanceOrderedScheduler.holdCorrelationKeys} says why).
     */
    @Override
    public void select(org.apache.ode.bpel.runtime.channels.PickResponseChannel pickResponseChannel, java.util.Date timeout,
                       boolean createInstance, org.apache.ode.bpel.runtime.Selector[] selectors) throws FaultException {
        if (!_bpelProcess.isInMemory()
                && _bpelProcess._engine._contexts.scheduler instanceof org.apache.ode.scheduler.simple.InstanceOrderedScheduler s) {
            java.util.List<String> keys = new java.util.ArrayList<>();
            for (org.apache.ode.bpel.runtime.Selector selector : selectors)
                if (selector.correlationKeySet != null)
                    for (java.util.Iterator<org.apache.ode.bpel.common.CorrelationKey> i = selector.correlationKeySet.iterator(); i.hasNext();)
                        keys.add(IncomingCorrelation.canonical(i.next()));
            s.holdCorrelationKeys(keys);
        }
        super.select(pickResponseChannel, timeout, createInstance, selectors);
    }

    /**
     * A durable instance that initiates a correlation value holds it until that is committed: a
     * message for the value (its owner is registered as it is initiated) is routed only then.
     */
    @Override
    public void writeCorrelation(org.apache.ode.bpel.runtime.CorrelationSetInstance cset, org.apache.ode.bpel.common.CorrelationKey correlation) {
        if (!_bpelProcess.isInMemory() && correlation != null
                && _bpelProcess._engine._contexts.scheduler instanceof org.apache.ode.scheduler.simple.InstanceOrderedScheduler s)
            s.holdCorrelationKeys(List.of(IncomingCorrelation.canonical(correlation)));
        super.writeCorrelation(cset, correlation);
    }

    /**
     * A durable instance that ends holds its correlation values until the end is committed. A
     * message for them holds them from before it checks that its instance is unfinished until it
     * is routed ({@code IncomingCorrelation.holdValuesOrFailEnded}); without this an end committed
     * between the two removed the routes the message then missed, and ODE queued it for an
     * instance to come: its caller waited for the request's timeout instead of getting a fault.
     */
    private void holdOwnValues() {
        if (!_bpelProcess.isInMemory()) IncomingCorrelation.holdWhileEnding(_bpelProcess._engine._contexts.scheduler, _dao);
    }

    @Override
    public void completedOk() {
        holdOwnValues();
        super.completedOk();
    }

    @Override
    public void completedFault(org.apache.ode.bpel.runtime.channels.FaultData faultData) {
        holdOwnValues();
        super.completedFault(faultData);
        // a durable conversation that ends faulted may have nobody waiting on it to see why
        if (!_bpelProcess.isInMemory())
            LOG.info("durable instance " + getPid() + " of " + _bpelProcess.getProcessType().getLocalPart() + " ended with the fault "
                    + faultData.getFaultName() + " at line " + faultData.getFaultLineNo() + ": " + faultData.getExplanation());
    }

    @Override
    public void terminate() {
        holdOwnValues();
        super.terminate();
    }

    /** A message sent or replied leaves the instance as a copy of its own (see the class comment). */
    @Override
    protected void buildOutgoingMessage(MessageDAO message, Element outgoing) {
        super.buildOutgoingMessage(message, outgoing == null ? null : ownCopy(outgoing));
    }

    private static Element ownCopy(Element e) {
        Document doc = DOMUtils.newDocument();
        Element copy = (Element) doc.importNode(e, true);
        doc.appendChild(copy);
        return copy;
    }
}
