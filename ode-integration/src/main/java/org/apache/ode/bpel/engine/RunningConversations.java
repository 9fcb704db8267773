package org.apache.ode.bpel.engine;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.wsdl.Operation;
import org.apache.ode.bpel.common.CorrelationKey;
import org.apache.ode.bpel.common.CorrelationKeySet;
import org.apache.ode.bpel.common.ProcessState;
import org.apache.ode.bpel.dao.CorrelatorDAO;
import org.apache.ode.bpel.dao.ProcessInstanceDAO;
import org.apache.ode.bpel.iapi.Endpoint;
import org.apache.ode.bpel.iapi.MessageExchange;
import org.apache.ode.bpel.iapi.Scheduler;
import org.apache.ode.bpel.o.OPartnerLink;

/**
 * Keeps the next message of a conversation for its instance when it arrives on an operation
 * that also starts instances, before the instance waits for it.
 *
 * <p>ODE decides a message on an instance-creating operation in one step: a route (an instance
 * waiting at a receive, pick or event handler with the message's correlation key) takes it,
 * otherwise it creates a new instance. A process that replies to its first message and then
 * receives a second on the same operation, correlated (betsy's Invoke-Correlation-Pattern-InitSync),
 * is not waiting yet when its caller, having the reply, sends the second: ODE started a new
 * instance with it. Here such a message, when an active instance already holds its correlation
 * key and no route takes it, is queued for that instance instead, as ODE queues a message on
 * an operation that does not create instances; the instance takes it when it reaches its
 * receive (the correlator's matcher, see {@code ConversationCorrelator}).
 *
 * <p>In ODE's package because the process's partner link roles and routing are package-private.
 */
public final class RunningConversations {
    private RunningConversations() {}

    /**
     * For an engine job that routes a request to a process ({@code INVOKE_INTERNAL}): queues its
     * message for the active instance that holds its correlation key, when the operation creates
     * instances and no instance waits for the message yet. Runs in the job's transaction.
     *
     * @return true if the message was queued (ODE must not route it), false to let ODE route it
     */
    public static boolean queueForRunningInstance(BpelServerImpl server, Scheduler.JobDetails job) {
        if (job.getType() != Scheduler.JobType.INVOKE_INTERNAL || job.getProcessId() == null) return false;
        BpelEngineImpl engine = (BpelEngineImpl) server.getEngine(); // under the server's lock until the job ends, as ODE's own job
        BpelProcess process = engine._activeProcesses.get(job.getProcessId());
        if (process == null) return false;
        MessageExchange exchange = engine.getMessageExchange(job.getMexId());
        if (!(exchange instanceof MyRoleMessageExchangeImpl mex)) return false;
        for (Map.Entry<String, Endpoint> provided : process._pconf.getProvideEndpoints().entrySet()) {
            if (!provided.getValue().serviceName.equals(mex.getServiceName())) continue;
            OPartnerLink link = process.getOProcess().getPartnerLink(provided.getKey());
            Operation op = link == null ? null : link.getMyRoleOperation(mex.getOperationName());
            if (op == null) continue;
            // Only instance-creating operations whose messages carry a key a running instance may hold.
            if (!link.isCreateInstanceOperation(op)) return false;
            if (link.getNonInitiatingCorrelationSetsForOperation(op).isEmpty() && link.getJoinningCorrelationSetsForOperation(op).isEmpty())
                return false;
            PartnerLinkMyRoleImpl role = new PartnerLinkMyRoleImpl(process, link, provided.getValue());
            List<PartnerLinkMyRoleImpl.RoutingInfo> routings = role.findRoute(mex);
            if (routings == null || routings.isEmpty() || mex.getStatus() == MessageExchange.Status.FAILURE) return false;
            PartnerLinkMyRoleImpl.RoutingInfo routing = routings.get(routings.size() - 1);
            if (routing.messageRoute != null) return false; // a waiting instance takes it: ODE routes it
            ProcessInstanceDAO instance = holderOf(process, routing.wholeKeySet);
            if (instance == null) return false; // a new conversation
            CorrelatorDAO correlator = instance.getProcess().getCorrelator(routing.correlator.getCorrelatorId());
            mex.getDAO().setProcess(instance.getProcess());
            role.noRoutingMatch(mex, new PartnerLinkMyRoleImpl.RoutingInfo(null, null, correlator, routing.wholeKeySet));
            return true;
        }
        return false;
    }

    /** The active instance holding every one of {@code keys} (as ODE's own look-up for early messages), or null. */
    private static ProcessInstanceDAO holderOf(BpelProcess process, CorrelationKeySet keys) {
        Set<ProcessInstanceDAO> holders = null;
        for (java.util.Iterator<CorrelationKey> i = keys.iterator(); i.hasNext();) {
            CorrelationKey key = i.next();
            Collection<ProcessInstanceDAO> found = process.getProcessDAO().findInstance(key, ProcessState.STATE_ACTIVE);
            if (found.isEmpty()) continue;
            if (holders == null) holders = new LinkedHashSet<>(found);
            else holders.retainAll(found);
        }
        return holders == null || holders.isEmpty() ? null : holders.iterator().next();
    }
}
