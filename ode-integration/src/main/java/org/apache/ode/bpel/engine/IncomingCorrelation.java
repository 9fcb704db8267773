package org.apache.ode.bpel.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.wsdl.Operation;
import javax.xml.namespace.QName;
import org.apache.ode.bpel.common.CorrelationKey;
import org.apache.ode.bpel.iapi.Endpoint;
import org.apache.ode.bpel.iapi.ProcessState;
import org.apache.ode.bpel.o.OMessageVarType;
import org.apache.ode.bpel.o.OPartnerLink;
import org.apache.ode.bpel.o.OProcess;
import org.apache.ode.bpel.o.OScope;
import org.w3c.dom.Element;

/**
 * The correlation keys ODE will compute for an incoming message before it routes it, computed
 * the same way ({@code PartnerLinkMyRoleImpl.computeCorrelationKeys} of ODE 1.3.7: the
 * non-initiating and joining correlation sets of the partner link's operation, each property
 * read through its alias for the input's message type), so that a replica can tell, before the
 * engine sees the message, which instance it is for. In ODE's package because
 * {@code BpelProcess.extractProperty} is package-private.
 */
public final class IncomingCorrelation {
    /**
     * @param process   the process type, as text
     * @param keys      the message's correlation keys, in ODE's canonical form
     * @param mustMatch true when one of them is non-initiating and the operation creates no
     *                  instance: the message can only go to an existing instance
     * @param starts    for an operation that creates instances, the keys of the process's
     *                  correlation sets the message carries values of: what a new instance it
     *                  starts may initiate (a conversation's owner is asked before it competes)
     */
    public record Keys(String process, List<String> keys, boolean mustMatch, List<String> starts) {
        public Keys(String process, List<String> keys, boolean mustMatch) {
            this(process, keys, mustMatch, List.of());
        }
    }

    private IncomingCorrelation() {}

    /**
     * The keys of {@code odeMessage} (ODE's message element, parts as children) sent to
     * {@code operation} of {@code service}; null when the active process of the service
     * correlates nothing on that operation, or the message does not carry the properties.
     */
    public static Keys of(BpelServerImpl server, QName service, String operation, Element odeMessage) {
        BpelProcess process = activeProcessOf((BpelEngineImpl) server.getEngine(), service);
        if (process == null) return null;
        OProcess model = process.getOProcess();
        if (model == null) return null;
        List<String> keys = new ArrayList<>();
        List<String> starts = new ArrayList<>();
        boolean mustMatch = false;
        for (var provide : process.getConf().getProvideEndpoints().entrySet()) {
            Endpoint ep = provide.getValue();
            if (!ep.serviceName.equals(service)) continue;
            OPartnerLink link = model.getPartnerLink(provide.getKey());
            if (link == null || !link.hasMyRole()) continue;
            Operation op = link.getMyRoleOperation(operation);
            if (op == null) continue;
            OMessageVarType type = model.messageTypes.get(op.getInput().getMessage().getQName());
            if (link.isCreateInstanceOperation(op) && model.procesScope != null)
                for (OScope.CorrelationSet cset : model.procesScope.correlationSets.values()) {
                    try {
                        starts.add(key(process, cset, type, odeMessage));
                    } catch (RuntimeException | org.apache.ode.bpel.common.FaultException e) {
                        // a set this message carries no values of: it cannot initiate it
                    }
                }
            Set<OScope.CorrelationSet> nonInitiating = link.getNonInitiatingCorrelationSetsForOperation(op);
            Set<OScope.CorrelationSet> joining = link.getJoinningCorrelationSetsForOperation(op);
            if (nonInitiating.isEmpty() && joining.isEmpty()) continue;
            try {
                for (OScope.CorrelationSet cset : nonInitiating) keys.add(key(process, cset, type, odeMessage));
                for (OScope.CorrelationSet cset : joining) keys.add(key(process, cset, type, odeMessage));
            } catch (RuntimeException | org.apache.ode.bpel.common.FaultException e) {
                return null; // ODE will refuse the message with its own reason
            }
            // an operation that also starts instances (InitSync: the same operation first
            // creates the instance, later is received again, correlated) may be a new instance's
            mustMatch |= !nonInitiating.isEmpty() && !link.isCreateInstanceOperation(op);
        }
        return keys.isEmpty() && starts.isEmpty() ? null
                : new Keys(model.getQName().toString(), List.copyOf(keys), mustMatch, List.copyOf(starts));
    }

    /**
     * For an engine job that routes a request to a durable process ({@code INVOKE_INTERNAL}), in
     * the job's transaction: holds the correlation values its message carries until the job
     * commits ({@code InstanceOrderedScheduler.holdCorrelationKeys}), then, when only an existing
     * instance can take the message, fails the request at once if no unfinished instance of any
     * version holds those values (its conversation ended, or its instance was terminated): ODE
     * would keep it for an instance to come, and its caller would wait for the request's
     * timeout. An instance holds the values too while it initiates them and while it registers
     * the receive that takes them, so what this reads is committed. Any other job: nothing.
     *
     * @return true if the request was failed (ODE must not route it)
     */
    public static boolean holdValuesOrFailEnded(BpelServerImpl server, org.apache.ode.bpel.iapi.Scheduler.JobDetails job,
                                                org.apache.ode.scheduler.simple.InstanceOrderedScheduler scheduler) {
        if (job.getType() != org.apache.ode.bpel.iapi.Scheduler.JobType.INVOKE_INTERNAL || Boolean.TRUE.equals(job.getInMem())
                || job.getMexId() == null) return false;
        BpelEngineImpl engine = (BpelEngineImpl) server.getEngine();
        if (!(engine.getMessageExchange(job.getMexId()) instanceof MyRoleMessageExchangeImpl mex) || mex.getRequest() == null)
            return false;
        Keys keys = of(server, mex.getServiceName(), mex.getOperationName(), mex.getRequest().getMessage());
        if (keys == null) return false;
        List<String> held = new ArrayList<>(keys.keys());
        held.addAll(keys.starts());
        scheduler.holdCorrelationKeys(held);
        if (!keys.mustMatch() || keys.keys().isEmpty()) return false;
        BpelProcess active = activeProcessOf(engine, mex.getServiceName());
        if (active == null || active.isInMemory()) return false;
        for (BpelProcess p : List.copyOf(engine._activeProcesses.values())) {
            if (!p.getProcessType().equals(active.getProcessType()) || p.getProcessDAO() == null) continue;
            for (String k : keys.keys())
                for (org.apache.ode.bpel.dao.ProcessInstanceDAO i : p.getProcessDAO().findInstance(new CorrelationKey(k)))
                    if (!org.apache.ode.bpel.common.ProcessState.isFinished(i.getState())) return false;
        }
        mex.setFailure(org.apache.ode.bpel.iapi.MessageExchange.FailureType.NOMATCH, "no instance of "
                + mex.getServiceName().getLocalPart() + " holds this message's correlation values: its conversation ended", null);
        mex.responseReceived(); // wakes the caller once the job has committed, as a reply does
        return true;
    }

    /** Whether the registered process {@code pid} (a version) keeps its instances in the database; false for one not registered. */
    public static boolean durable(BpelServerImpl server, QName pid) {
        BpelProcess p = pid == null ? null : ((BpelEngineImpl) server.getEngine())._activeProcesses.get(pid);
        return p != null && !p.isInMemory();
    }

    /** Whether {@code operation} of {@code service} may create an instance of the service's active process. */
    public static boolean createsInstances(BpelServerImpl server, QName service, String operation) {
        BpelProcess process = activeProcessOf((BpelEngineImpl) server.getEngine(), service);
        OProcess model = process == null ? null : process.getOProcess();
        if (model == null) return false;
        for (var provide : process.getConf().getProvideEndpoints().entrySet()) {
            if (!provide.getValue().serviceName.equals(service)) continue;
            OPartnerLink link = model.getPartnerLink(provide.getKey());
            Operation op = link == null || !link.hasMyRole() ? null : link.getMyRoleOperation(operation);
            if (op != null && link.isCreateInstanceOperation(op)) return true;
        }
        return false;
    }

    /**
     * An ending durable instance holds the correlation values it holds until its end is committed
     * ({@code BrokerRuntimeContext} says why); nothing under another scheduler.
     */
    public static void holdWhileEnding(org.apache.ode.bpel.iapi.Scheduler scheduler, org.apache.ode.bpel.dao.ProcessInstanceDAO instance) {
        if (scheduler instanceof org.apache.ode.scheduler.simple.InstanceOrderedScheduler s)
            s.holdCorrelationKeys(heldBy(instance));
    }

    /** The correlation values {@code instance} holds, in the form {@link #of} gives a message's. */
    static List<String> heldBy(org.apache.ode.bpel.dao.ProcessInstanceDAO instance) {
        List<String> keys = new ArrayList<>();
        // ODE's JPA instance answers no sets of its own: they are its scopes'
        for (org.apache.ode.bpel.dao.ScopeDAO scope : instance.getScopes())
            for (org.apache.ode.bpel.dao.CorrelationSetDAO set : scope.getCorrelationSets())
                if (set.getValue() != null) keys.add(canonical(set.getValue()));
        return keys;
    }

    /** The key in the form the knowledge base stores, for a key ODE wrote on an instance. */
    public static String canonical(CorrelationKey key) {
        return new CorrelationKey(key.getCorrelationSetName(), key.getValues()).toCanonicalString();
    }

    private static String key(BpelProcess process, OScope.CorrelationSet cset, OMessageVarType type, Element msg)
            throws org.apache.ode.bpel.common.FaultException {
        String[] values = new String[cset.properties.size()];
        int i = 0;
        for (OProcess.OProperty property : cset.properties) {
            OProcess.OPropertyAlias alias = property.getAlias(type);
            if (alias == null) throw new IllegalArgumentException("no alias of " + property.name + " for " + type);
            values[i++] = process.extractProperty(msg, alias, "correlation");
        }
        return new CorrelationKey(cset.name, values).toCanonicalString();
    }

    private static BpelProcess activeProcessOf(BpelEngineImpl engine, QName service) {
        for (int attempt = 0; attempt < 10; attempt++) {
            try {
                for (BpelProcess p : engine._activeProcesses.values()) {
                    if (p.getConf().getState() != ProcessState.ACTIVE) continue;
                    for (Endpoint ep : p.getConf().getProvideEndpoints().values())
                        if (ep.serviceName.equals(service)) return p;
                }
                return null;
            } catch (java.util.ConcurrentModificationException e) {
                Thread.onSpinWait(); // a deployment changed ODE's (unsynchronized) map meanwhile
            }
        }
        return null;
    }
}
