package io.moses.core.engine;

import io.moses.core.engine.InstanceRefusal.Reason;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import javax.xml.namespace.QName;
import org.apache.ode.bpel.common.ProcessState;
import org.apache.ode.bpel.dao.BpelDAOConnection;
import org.apache.ode.bpel.dao.MessageExchangeDAO;
import org.apache.ode.bpel.dao.ProcessInstanceDAO;
import org.apache.ode.bpel.dao.ScopeDAO;
import org.apache.ode.bpel.dao.XmlDataDAO;
import org.apache.ode.bpel.engine.BpelEngineImpl;
import org.apache.ode.bpel.engine.BpelProcess;
import org.apache.ode.bpel.engine.BpelServerImpl;
import org.apache.ode.bpel.evt.ProcessInstanceEvent;
import org.apache.ode.bpel.evt.ProcessInstanceStateChangeEvent;
import org.apache.ode.bpel.evt.ProcessTerminationEvent;
import org.apache.ode.bpel.iapi.ProcessConf.CLEANUP_CATEGORY;
import org.apache.ode.bpel.iapi.Scheduler;
import org.apache.ode.utils.DOMUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable instances in the knowledge base, for operators: listed, shown, suspended, resumed,
 * terminated, and purged once finished. Each operation is one engine transaction (the
 * scheduler's, as the engine's jobs run in). State changes are ODE's own ({@code DebuggerSupport}
 * of ODE 1.3.7: the state set, a state-change event saved and told to the engine's listeners, a
 * resume job); a terminated instance also loses its message routes and jobs, so that no message
 * is taken by an instance that will never run again.
 *
 * <p>Reads are SQL over ODE's tables, bounded by the database: ODE's {@code instanceQuery} writes
 * its filter's values into the query text and reads every match before it cuts the list off.
 */
final class Instances {
    private static final Logger log = LoggerFactory.getLogger(Instances.class);

    static final int MAX_LIMIT = 1000;
    /** State names as operators see them, ODE's codes (bpel-api's ProcessState). */
    static final Map<String, Short> STATES = states();
    static final String FINISHED = ProcessState.STATE_COMPLETED_OK + ", " + ProcessState.STATE_COMPLETED_WITH_FAULT + ", "
            + ProcessState.STATE_TERMINATED;

    private final DurableStore store;
    private final Scheduler scheduler;
    private final BpelServerImpl server;

    Instances(DurableStore store, Scheduler scheduler, BpelServerImpl server) {
        this.store = store;
        this.scheduler = scheduler;
        this.server = server;
    }

    private static Map<String, Short> states() {
        Map<String, Short> s = new LinkedHashMap<>();
        s.put("new", ProcessState.STATE_NEW);
        s.put("ready", ProcessState.STATE_READY);
        s.put("active", ProcessState.STATE_ACTIVE);
        s.put("suspended", ProcessState.STATE_SUSPENDED);
        s.put("completed", ProcessState.STATE_COMPLETED_OK);
        s.put("faulted", ProcessState.STATE_COMPLETED_WITH_FAULT);
        s.put("terminated", ProcessState.STATE_TERMINATED);
        return Collections.unmodifiableMap(s);
    }

    static String stateName(short code) {
        for (var e : STATES.entrySet()) if (e.getValue() == code) return e.getKey();
        return "state-" + code;
    }

    /**
     * @param process a process type, {@code {namespace}name} or its name alone, or null: every process
     * @param state   one of {@link #STATES}' names, or null: every state
     * @return newest first, at most {@code limit}
     */
    List<InstanceSummary> list(String process, String state, int limit) {
        if (limit < 1 || limit > MAX_LIMIT) throw new InstanceRefusal(Reason.BAD_INPUT, "limit must be 1 to " + MAX_LIMIT + ", was " + limit);
        Short code = null;
        if (state != null) {
            code = STATES.get(state);
            if (code == null) throw new InstanceRefusal(Reason.BAD_INPUT, "no state '" + state + "' (one of " + STATES.keySet() + ")");
        }
        if (process != null && (process.isBlank() || process.length() > 400))
            throw new InstanceRefusal(Reason.BAD_INPUT, "process must name a process type, {namespace}name or name");
        Short wanted = code;
        return transaction(() -> sql(c -> {
            StringBuilder q = new StringBuilder(SUMMARY).append(" WHERE 1 = 1");
            List<Object> args = new ArrayList<>();
            if (process != null) {
                if (process.startsWith("{")) {
                    q.append(" AND p.PROCESS_TYPE = ?");
                    args.add(process);
                } else {
                    q.append(" AND p.PROCESS_TYPE LIKE ? ESCAPE '!'");
                    args.add("%}" + process.replace("!", "!!").replace("%", "!%").replace("_", "!_"));
                }
            }
            if (wanted != null) {
                q.append(" AND i.INSTANCE_STATE = ?");
                args.add(wanted);
            }
            q.append(" ORDER BY i.ID DESC LIMIT ").append(limit); // a whole number checked above
            return summaries(c, q.toString(), args);
        }));
    }

    InstanceDetails show(long id) {
        return transaction(() -> {
            InstanceSummary summary = sql(c -> one(c, id));
            ProcessInstanceDAO instance = dao().getInstance(id);
            Map<String, String> variables = new TreeMap<>();
            if (instance != null) {
                ScopeDAO root = instance.getRootScope();
                for (ScopeDAO scope : instance.getScopes())
                    for (XmlDataDAO v : scope.getVariables()) {
                        if (v.isNull()) continue;
                        String name = scope.equals(root) ? v.getName() : scope.getName() + "/" + v.getName();
                        if (variables.containsKey(name)) name += "#" + scope.getScopeInstanceId(); // an event handler's scope, once per event
                        variables.put(name, DOMUtils.domToString(v.get()));
                    }
            }
            List<InstanceDetails.Wait> waits = sql(c -> waits(c, id));
            org.apache.ode.bpel.dao.FaultDAO f = instance == null ? null : instance.getFault();
            InstanceDetails.Fault fault = f == null || f.getName() == null ? null
                    : new InstanceDetails.Fault(f.getName().toString(), f.getExplanation(), f.getLineNo());
            return new InstanceDetails(summary, variables, waits, fault);
        });
    }

    /** An instance that can run (new, ready, active) stops running; messages and timers for it wait. */
    InstanceSummary suspend(long id) {
        return change(id, instance -> {
            short was = instance.getState();
            if (!ProcessState.canExecute(was)) throw notNow(id, was, "suspended", "a new, ready or active one");
            BpelProcess process = registered(instance, "suspended");
            instance.setState(ProcessState.STATE_SUSPENDED);
            stateChanged(process, instance, was, ProcessState.STATE_SUSPENDED);
        });
    }

    /** A suspended instance goes back to its state before and runs what came for it meanwhile. */
    InstanceSummary resume(long id) {
        return change(id, instance -> {
            short was = instance.getState();
            if (was != ProcessState.STATE_SUSPENDED) throw notNow(id, was, "resumed", "a suspended one");
            BpelProcess process = registered(instance, "resumed");
            short before = instance.getPreviousState();
            instance.setState(before);
            stateChanged(process, instance, was, before);
            org.apache.ode.bpel.iapi.Scheduler.JobDetails job = new org.apache.ode.bpel.iapi.Scheduler.JobDetails();
            job.setType(org.apache.ode.bpel.iapi.Scheduler.JobType.RESUME);
            job.setInstanceId(id);
            job.setProcessId(instance.getProcess().getProcessId());
            job.setInMem(false);
            scheduler.schedulePersistedJob(job, null);
        });
    }

    /** An unfinished instance ends, terminated; its routes and jobs go with it. */
    InstanceSummary terminate(long id) {
        return change(id, instance -> {
            short was = instance.getState();
            if (ProcessState.isFinished(was)) throw notNow(id, was, "terminated", "an unfinished one");
            // as an instance that ends by itself: a message for it is routed before, or failed after
            org.apache.ode.bpel.engine.IncomingCorrelation.holdWhileEnding(scheduler, instance);
            BpelProcess process = activeProcess(instance.getProcess().getProcessId());
            instance.setState(ProcessState.STATE_TERMINATED);
            instance.setLastActiveTime(new java.util.Date()); // its retention counts from now
            stateChanged(process, instance, was, ProcessState.STATE_TERMINATED);
            ProcessTerminationEvent ended = new ProcessTerminationEvent();
            describe(ended, instance);
            save(process, ended, instance);
            sql(c -> {
                update(c, "DELETE FROM ODE_MESSAGE_ROUTE WHERE PROCESS_INSTANCE_ID = ?", id);
                update(c, "DELETE FROM ODE_JOB WHERE instanceId = ?", id);
                return null;
            });
        });
    }

    /**
     * Deletes up to {@code batch} finished instances (completed, faulted, terminated) last active
     * before {@code before}, with their variables, correlations, routes, events, message exchanges
     * and jobs, in one transaction.
     *
     * @return the ids deleted
     */
    List<Long> purge(Instant before, int batch) {
        return transaction(() -> {
            List<Long> ids = sql(c -> {
                List<Long> found = new ArrayList<>();
                try (PreparedStatement s = c.prepareStatement("SELECT ID FROM ODE_PROCESS_INSTANCE WHERE INSTANCE_STATE IN (" + FINISHED
                        + ") AND COALESCE(LAST_ACTIVE_TIME, DATE_CREATED) < ? ORDER BY ID LIMIT " + batch)) {
                    s.setTimestamp(1, new Timestamp(before.toEpochMilli()));
                    try (ResultSet r = s.executeQuery()) {
                        while (r.next()) found.add(r.getLong(1));
                    }
                }
                return found;
            });
            BpelDAOConnection conn = dao();
            for (long id : ids) {
                ProcessInstanceDAO instance = conn.getInstance(id);
                if (instance == null) continue;
                for (String mex : List.copyOf(instance.getMessageExchangeIds())) {
                    MessageExchangeDAO m = conn.getMessageExchange(mex);
                    if (m != null) m.release(true); // with its messages and properties
                }
                instance.delete(EnumSet.allOf(CLEANUP_CATEGORY.class));
                sql(c -> update(c, "DELETE FROM ODE_JOB WHERE instanceId = ?", id));
                sql(c -> update(c, "DELETE FROM instance_owner WHERE instance_id = ?", id));
            }
            return ids;
        });
    }

    private interface Change {
        void apply(ProcessInstanceDAO instance) throws Exception;
    }

    private InstanceSummary change(long id, Change change) {
        transaction(() -> {
            ProcessInstanceDAO instance = dao().getInstance(id);
            if (instance == null) throw noSuch(id);
            change.apply(instance);
            return null;
        });
        return transaction(() -> sql(c -> one(c, id))); // as committed
    }

    private BpelProcess registered(ProcessInstanceDAO instance, String action) {
        BpelProcess process = activeProcess(instance.getProcess().getProcessId());
        if (process == null)
            throw new InstanceRefusal(Reason.NOT_IN_THIS_STATE, "instance " + instance.getInstanceId() + " cannot be " + action
                    + ": its process " + instance.getProcess().getProcessId() + " is not deployed on this replica");
        return process;
    }

    private BpelProcess activeProcess(QName pid) {
        return ((BpelEngineImpl) server.getEngine())._activeProcesses.get(pid);
    }

    private static void stateChanged(BpelProcess process, ProcessInstanceDAO instance, short from, short to) {
        ProcessInstanceStateChangeEvent e = new ProcessInstanceStateChangeEvent();
        e.setOldState(from);
        e.setNewState(to);
        describe(e, instance);
        save(process, e, instance);
    }

    private static void describe(ProcessInstanceEvent e, ProcessInstanceDAO instance) {
        e.setProcessInstanceId(instance.getInstanceId());
        e.setProcessName(instance.getProcess().getType());
        e.setProcessId(instance.getProcess().getProcessId());
    }

    /** As ODE: told to the engine's listeners (which release what they hold for an instance that ended) and stored. */
    private static void save(BpelProcess process, ProcessInstanceEvent e, ProcessInstanceDAO instance) {
        if (process != null) process.saveEvent(e, instance);
        else instance.insertBpelEvent(e); // its process is not deployed here: nothing here holds anything for it
    }

    private static InstanceRefusal noSuch(long id) {
        return new InstanceRefusal(Reason.NO_SUCH_INSTANCE, "no durable instance " + id);
    }

    private static InstanceRefusal notNow(long id, short state, String action, String which) {
        return new InstanceRefusal(Reason.NOT_IN_THIS_STATE, "instance " + id + " is " + stateName(state) + ": only " + which
                + " can be " + action);
    }

    private BpelDAOConnection dao() {
        return store.dao().getConnection();
    }

    /**
     * {@code work} in one engine transaction. A refusal is handed out of it as a value: the
     * scheduler retries a transaction that throws, and a refusal changed nothing.
     */
    private <T> T transaction(Callable<T> work) {
        Object result;
        try {
            result = scheduler.execTransaction(() -> {
                try {
                    return work.call();
                } catch (InstanceRefusal r) {
                    return r;
                }
            });
        } catch (Exception e) {
            log.warn("instance operation failed: {}", e.toString());
            throw new InstanceRefusal(Reason.UNAVAILABLE, "the knowledge base did not answer: " + e.getMessage());
        }
        if (result instanceof InstanceRefusal r) throw r;
        @SuppressWarnings("unchecked") T t = (T) result;
        return t;
    }

    private interface Sql<T> {
        T run(Connection c) throws SQLException;
    }

    /** {@code work} on the transaction's own connection (the one ODE's DAO and job table write through). */
    private <T> T sql(Sql<T> work) throws SQLException {
        try (Connection c = store.enlisted().getConnection()) {
            return work.run(c);
        }
    }

    private static final String SUMMARY = "SELECT i.ID, p.PROCESS_TYPE, p.VERSION, i.INSTANCE_STATE, i.DATE_CREATED, i.LAST_ACTIVE_TIME"
            + " FROM ODE_PROCESS_INSTANCE i JOIN ODE_PROCESS p ON p.ID = i.PROCESS_ID";

    private static InstanceSummary one(Connection c, long id) throws SQLException {
        List<InstanceSummary> found = summaries(c, SUMMARY + " WHERE i.ID = ?", List.of(id));
        if (found.isEmpty()) throw noSuch(id);
        return found.get(0);
    }

    private record Row(long id, String process, long version, short state, Instant started, Instant lastActive) {}

    private static List<InstanceSummary> summaries(Connection c, String query, List<Object> args) throws SQLException {
        List<Row> rows = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(query)) {
            for (int i = 0; i < args.size(); i++) s.setObject(i + 1, args.get(i));
            try (ResultSet r = s.executeQuery()) {
                while (r.next())
                    rows.add(new Row(r.getLong(1), r.getString(2), r.getLong(3), r.getShort(4), instant(r.getTimestamp(5)),
                            instant(r.getTimestamp(6))));
            }
        }
        if (rows.isEmpty()) return List.of();
        String ids = String.join(", ", rows.stream().map(r -> Long.toString(r.id())).toList()); // numbers read above
        Map<Long, Map<String, Map<String, String>>> correlation = new HashMap<>();
        try (PreparedStatement s = c.prepareStatement("SELECT sc.PROCESS_INSTANCE_ID, cs.NAME, p.PROP_KEY, p.PROP_VALUE"
                + " FROM ODE_CORRELATION_SET cs JOIN ODE_SCOPE sc ON sc.SCOPE_ID = cs.SCOPE_ID"
                + " JOIN ODE_CORSET_PROP p ON p.CORRSET_ID = cs.CORRELATION_SET_ID WHERE sc.PROCESS_INSTANCE_ID IN (" + ids + ")");
             ResultSet r = s.executeQuery()) {
            while (r.next())
                correlation.computeIfAbsent(r.getLong(1), k -> new TreeMap<>()).computeIfAbsent(r.getString(2), k -> new TreeMap<>())
                        .put(localName(r.getString(3)), r.getString(4));
        }
        Map<Long, String> owners = new HashMap<>();
        // who holds its conversation, unless a replica has jobs of it scheduled: that one runs it
        try (PreparedStatement s = c.prepareStatement("SELECT instance_id, replica, process FROM conversation_owner WHERE instance_id IN ("
                + ids + ")"); ResultSet r = s.executeQuery()) {
            Map<Long, String> types = new HashMap<>();
            for (Row row : rows) types.put(row.id(), row.process());
            while (r.next()) if (r.getString(3).equals(types.get(r.getLong(1)))) owners.put(r.getLong(1), r.getString(2));
        }
        try (PreparedStatement s = c.prepareStatement("SELECT instanceId, nodeid FROM ODE_JOB WHERE nodeid IS NOT NULL AND instanceId IN ("
                + ids + ")"); ResultSet r = s.executeQuery()) {
            while (r.next()) owners.put(r.getLong(1), r.getString(2));
        }
        // the replica whose transactions may write it (InstanceOwners): what a takeover moves
        try (PreparedStatement s = c.prepareStatement("SELECT instance_id, replica FROM instance_owner WHERE instance_id IN (" + ids + ")");
             ResultSet r = s.executeQuery()) {
            while (r.next()) owners.put(r.getLong(1), r.getString(2));
        }
        List<InstanceSummary> out = new ArrayList<>();
        for (Row row : rows) {
            boolean finished = ProcessState.isFinished(row.state());
            out.add(new InstanceSummary(row.id(), row.process(), row.version(), stateName(row.state()), row.started(), row.lastActive(),
                    correlation.getOrDefault(row.id(), Map.of()), finished ? null : owners.get(row.id())));
        }
        return out;
    }

    private static List<InstanceDetails.Wait> waits(Connection c, long id) throws SQLException {
        List<InstanceDetails.Wait> waits = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT co.CORRELATOR_KEY, r.CORRELATION_KEY FROM ODE_MESSAGE_ROUTE r"
                + " JOIN ODE_CORRELATOR co ON co.CORRELATOR_ID = r.CORR_ID WHERE r.PROCESS_INSTANCE_ID = ? ORDER BY r.MESSAGE_ROUTE_ID")) {
            s.setLong(1, id);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) waits.add(new InstanceDetails.Wait("message", r.getString(1), r.getString(2), null));
            }
        }
        try (PreparedStatement s = c.prepareStatement("SELECT type, channel, ts FROM ODE_JOB WHERE instanceId = ? ORDER BY ts")) {
            s.setLong(1, id);
            try (ResultSet r = s.executeQuery()) {
                while (r.next())
                    waits.add(new InstanceDetails.Wait(String.valueOf(r.getString(1)).toLowerCase(java.util.Locale.ROOT), r.getString(2), null,
                            Instant.ofEpochMilli(r.getLong(3))));
            }
        }
        return waits;
    }

    private static int update(Connection c, String sql, long id) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setLong(1, id);
            return s.executeUpdate();
        }
    }

    private static Instant instant(java.util.Date t) {
        return t == null ? null : t.toInstant();
    }

    private static String localName(String qname) {
        int end = qname == null ? -1 : qname.indexOf('}');
        return end < 0 ? qname : qname.substring(end + 1);
    }
}
