package org.apache.ode.bpel.memdao;

import java.util.ArrayList;
import java.util.Collection;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.xml.namespace.QName;
import org.apache.ode.bpel.common.CorrelationKey;
import org.apache.ode.bpel.dao.BpelDAOConnection;
import org.apache.ode.bpel.dao.CorrelationSetDAO;
import org.apache.ode.bpel.dao.CorrelatorDAO;
import org.apache.ode.bpel.dao.ProcessDAO;
import org.apache.ode.bpel.dao.ProcessInstanceDAO;
import org.apache.ode.bpel.iapi.Scheduler;

/**
 * ODE's in-memory store of processes and their instances (the DAO factory the broker hands to
 * ODE's {@code setDaoConnectionFactory} and {@code setInMemDaoConnectionFactory}), with two
 * changes: instances keep their variables in the broker's {@code io.moses.ode.VariableStore}
 * ({@link InMemoryInstance}), and the one query ODE 1.3.7 left unimplemented there is answered:
 * the active instances whose correlation set has a given value.
 *
 * <p>Why it matters: a message for an existing instance that arrives before the instance
 * waits for it (typically the second message of a conversation a one-way operation started:
 * the broker answers the one-way call as soon as it is queued, so the caller may send the
 * next message before the instance has reached its receive or pick) is not routable at once.
 * ODE then keeps it for the instance: it looks the instance up by correlation key
 * ({@code ProcessDAO.findInstance(key, state)}) and queues the message on it, or, if no
 * instance has the key yet, queues it for a future one. ODE's in-memory DAO answers that
 * look-up with null, and ODE's engine dereferences it: a NullPointerException that failed
 * the request (betsy's {@code Scope-CorrelationSets-InitAsync} and
 * {@code Pick-Correlations-InitAsync}; ODE alone passes them with its database DAO).
 *
 * <p>In ODE's package because the in-memory DAO's classes and constructors are package-private.
 */
public final class InMemoryProcesses extends BpelDAOConnectionFactoryImpl {
    /** ODE's default lifetime of an in-memory message exchange. */
    private static final long MEX_TTL_MILLIS = 10 * 60 * 1000;

    private final Map<QName, ProcessDaoImpl> store = new ConcurrentHashMap<>();
    private final Scheduler scheduler;

    public InMemoryProcesses(Scheduler scheduler) {
        super(scheduler, MEX_TTL_MILLIS);
        this.scheduler = scheduler;
    }

    /** The instances of process version {@code pid} not yet completed (a retired version is unregistered at 0). */
    public int instances(QName pid) {
        ProcessDaoImpl process = store.get(pid);
        return process == null ? 0 : process._instances.size();
    }

    /** Drops an unregistered process version's store (ODE's in-memory DAO keeps it otherwise). */
    public void forget(QName pid) {
        store.remove(pid);
    }

    @Override
    public BpelDAOConnection getConnection() {
        return new Connection(store, scheduler);
    }

    private static final class Connection extends BpelDAOConnectionImpl {
        private final Map<QName, ProcessDaoImpl> store;
        private final Scheduler scheduler;

        Connection(Map<QName, ProcessDaoImpl> store, Scheduler scheduler) {
            super(store, scheduler, MEX_TTL_MILLIS);
            this.store = store;
            this.scheduler = scheduler;
        }

        @Override
        public ProcessDAO createProcess(QName pid, QName type, String guid, long version) {
            ProcessDaoImpl process = new Process(this, store, pid, type, guid, version, scheduler);
            store.put(pid, process);
            return process;
        }
    }

    /**
     * A process whose instances keep their variables in the broker's store ({@link InMemoryInstance}),
     * can be found by correlation key and state, and whose correlators keep a message routed while
     * its instance's job runs ({@link ConversationCorrelator}).
     */
    static final class Process extends ProcessDaoImpl {
        private final BpelDAOConnectionImpl conn;
        private final Scheduler scheduler;
        private final AtomicInteger created = new AtomicInteger();

        Process(BpelDAOConnectionImpl conn, Map<QName, ProcessDaoImpl> store, QName pid, QName type, String guid, long version,
                Scheduler scheduler) {
            super(conn, store, pid, type, guid, version);
            this.conn = conn;
            this.scheduler = scheduler;
        }

        /**
         * As ODE's, but the instance is the broker's ({@link InMemoryInstance}: its variables
         * are {@code VariableStore}s). Registered when the creating job commits, dropped if it
         * rolls back, as ODE does.
         */
        @Override
        public ProcessInstanceDAO createInstance(CorrelatorDAO correlator) {
            InMemoryInstance instance = new InMemoryInstance(conn, this, correlator);
            Long id = instance.getInstanceId();
            conn.defer(() -> {
                _instances.put(id, instance);
                _instancesAge.put(id, System.currentTimeMillis());
            });
            discardOldInstances();
            conn.onRollback(() -> {
                _instances.remove(id);
                _instancesAge.remove(id);
            });
            created.incrementAndGet();
            return instance;
        }

        /** As ODE's: the instances created so far (completed ones are removed from the store). */
        @Override
        public int getNumInstances() {
            return created.get();
        }

        @Override
        public CorrelatorDAO addCorrelator(String correlatorId) {
            ConversationCorrelator correlator = new ConversationCorrelator(correlatorId, conn, scheduler);
            _correlators.put(correlatorId, correlator);
            return correlator;
        }

        /** The instances in {@code state} with a correlation set whose value is {@code key}; never null. */
        @Override
        public Collection<ProcessInstanceDAO> findInstance(CorrelationKey key, short state) {
            List<ProcessInstanceDAO> found = new ArrayList<>();
            for (ProcessInstanceDAO instance : _instances.values())
                if (instance.getState() == state && correlatedBy(instance, key)) found.add(instance);
            return found;
        }

        /**
         * Whether one of the instance's correlation sets has the value {@code key}. The instance
         * may be running on another thread, creating scopes in ODE's unsynchronized maps: a
         * read that meets a change is read again.
         */
        private static boolean correlatedBy(ProcessInstanceDAO instance, CorrelationKey key) {
            for (int attempt = 0; ; attempt++) {
                try {
                    for (CorrelationSetDAO set : instance.getCorrelationSets())
                        if (set.getValue() != null && set.getValue().equals(key)) return true;
                    return false;
                } catch (ConcurrentModificationException e) {
                    if (attempt == 10) throw e;
                    Thread.onSpinWait();
                }
            }
        }
    }
}
