package org.apache.ode.bpel.memdao;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import org.apache.ode.bpel.common.CorrelationKey;
import org.apache.ode.bpel.common.CorrelationKeySet;
import org.apache.ode.bpel.dao.CorrelatorMessageDAO;
import org.apache.ode.bpel.dao.MessageExchangeDAO;
import org.apache.ode.bpel.dao.MessageRouteDAO;
import org.apache.ode.bpel.dao.ProcessInstanceDAO;
import org.apache.ode.bpel.iapi.Scheduler;

/**
 * ODE's in-memory correlator (the routes instances wait on, for one partner link operation,
 * and the messages that arrived before their instance waited), made safe for messages routed
 * while their instance's job runs.
 *
 * <p>ODE's own class keeps both in plain lists with no lock, and its engine routes a message in
 * two steps on the message's own thread: it looks for a route and, finding none, queues the
 * message. An instance reaching a receive adds its route when its job commits, then runs a
 * matcher job that takes a queued message. A message queued after that matcher ran, but whose
 * route search ran before the route was added, was never taken: the caller timed out. Here
 * routes and messages change under one lock, and a message queued while a route for it exists
 * schedules a matcher job for the route's instance (after the queuing job commits), so either
 * the instance's own matcher or this one takes it.
 *
 * <p>Extends ODE's class only because its process DAO keeps correlators in a map of that type.
 */
final class ConversationCorrelator extends CorrelatorDaoImpl {
    private final Scheduler scheduler;
    private final List<Queued> messages = new ArrayList<>();
    private final List<MessageRouteDaoImpl> routes = new ArrayList<>();
    private final BpelDAOConnectionImpl conn;
    private volatile String id;

    ConversationCorrelator(String id, BpelDAOConnectionImpl conn, Scheduler scheduler) {
        super(id, conn);
        this.id = id;
        this.conn = conn;
        this.scheduler = scheduler;
    }

    /** A message that arrived before an instance waited for it, with the keys it carries. */
    private record Queued(MessageExchangeDAO message, CorrelationKeySet keys) implements CorrelatorMessageDAO {
        @Override
        public CorrelationKey getCorrelationKey() {
            return keys.iterator().next();
        }

        @Override
        public void setCorrelationKey(CorrelationKey key) {
            throw new UnsupportedOperationException("a queued message's keys do not change");
        }
    }

    @Override
    public synchronized MessageExchangeDAO dequeueMessage(CorrelationKeySet instanceKeys) {
        for (Iterator<Queued> i = messages.iterator(); i.hasNext();) {
            Queued q = i.next();
            if (q.keys().isRoutableTo(instanceKeys, false)) {
                i.remove();
                return q.message();
            }
        }
        return null;
    }

    @Override
    public synchronized void enqueueMessage(MessageExchangeDAO mex, CorrelationKeySet keys) {
        messages.add(new Queued(mex, keys));
        // A route added since the message's route search ran: its instance's matcher may have
        // run already, so another one takes the message once this job has committed.
        for (MessageRouteDaoImpl route : routesFor(keys)) {
            Scheduler.JobDetails matcher = new Scheduler.JobDetails();
            matcher.setInstanceId(route._instance.getInstanceId());
            matcher.setType(Scheduler.JobType.MATCHER);
            matcher.setCorrelatorId(id);
            matcher.setCorrelationKeySet(route._ckeySet);
            matcher.setInMem(true);
            scheduler.scheduleVolatileJob(true, matcher);
        }
    }

    @Override
    public void addRoute(String groupId, ProcessInstanceDAO target, int index, CorrelationKeySet keys, String policy) {
        MessageRouteDaoImpl route = new MessageRouteDaoImpl((ProcessInstanceDaoImpl) target, groupId, keys, index, policy);
        // As ODE: the route exists once the instance's job commits (its matcher job runs after).
        conn.defer(() -> {
            synchronized (this) {
                routes.add(route);
            }
        });
    }

    @Override
    public List<MessageRouteDAO> findRoute(CorrelationKeySet keys) {
        return findRoute(keys, false);
    }

    @Override
    public synchronized List<MessageRouteDAO> findRoute(CorrelationKeySet keys, boolean preInitialized) {
        return new ArrayList<>(routesFor(keys));
    }

    /** ODE's rule: every route with policy "all" that matches, else the first that matches. */
    private List<MessageRouteDaoImpl> routesFor(CorrelationKeySet keys) {
        List<MessageRouteDaoImpl> found = new ArrayList<>(1);
        boolean routed = false;
        for (MessageRouteDaoImpl route : routes) {
            boolean all = "all".equals(route.getRoute());
            if (keys.isRoutableTo(route._ckeySet, all)) {
                if (all) found.add(route);
                else if (!routed) found.add(route);
                routed = routed || !all;
            }
        }
        return found;
    }

    @Override
    public void removeRoutes(String groupId, ProcessInstanceDAO target) {
        ((ProcessInstanceDaoImpl) target).removeRoutes(groupId);
    }

    @Override
    synchronized void _removeRoutes(String groupId, ProcessInstanceDaoImpl target) {
        routes.removeIf(r -> (groupId == null || r._groupId.equals(groupId)) && r._instance == target);
    }

    @Override
    public synchronized Collection<MessageRouteDAO> getAllRoutes() {
        return new ArrayList<>(routes);
    }

    @Override
    public synchronized Collection<CorrelatorMessageDAO> getAllMessages() {
        return new ArrayList<>(messages);
    }

    @Override
    public boolean checkRoute(CorrelationKey key) {
        return true;
    }

    @Override
    public boolean checkRoute(CorrelationKeySet keys) {
        return true;
    }

    @Override
    public String getCorrelatorId() {
        return id;
    }

    @Override
    public void setCorrelatorId(String id) {
        this.id = id;
    }

    @Override
    public synchronized String toString() {
        return "{correlator " + id + " routes=" + routes.size() + " messages=" + messages.size() + "}";
    }
}
