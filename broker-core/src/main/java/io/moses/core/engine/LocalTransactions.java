package io.moses.core.engine;

import java.util.ArrayList;
import java.util.List;
import javax.transaction.HeuristicMixedException;
import javax.transaction.HeuristicRollbackException;
import javax.transaction.InvalidTransactionException;
import javax.transaction.NotSupportedException;
import javax.transaction.RollbackException;
import javax.transaction.Status;
import javax.transaction.Synchronization;
import javax.transaction.SystemException;
import javax.transaction.Transaction;
import javax.transaction.TransactionManager;
import javax.transaction.TransactionSynchronizationRegistry;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transactions ODE's engine and scheduler ask for: a transaction is a list of
 * synchronizations run at its end on the thread that began it. An in-memory process's job
 * enlists no resource, so there is nothing to prepare, log or recover, which is all a full
 * transaction manager would add per engine job. A durable process's job enlists the one
 * database connection of its store (its pool enlists it), committed in one phase: with a single
 * resource, one phase is atomic, and nothing needs a log to recover.
 *
 * <p>Like a JTA manager, the transaction stays associated with its thread while its
 * synchronizations' {@code afterCompletion} run; the association ends when commit or rollback
 * returns. Interposed synchronizations (the store's pool registers one per connection handle)
 * run as JTA orders them: their {@code beforeCompletion} after every other, their
 * {@code afterCompletion} before every other. The pool needs that order: when OpenJPA closed a
 * handle between two of the pool's own steps, the handle gave back the connection it shared,
 * still enlisted, and another thread's transaction took it.
 */
final class LocalTransactions implements TransactionManager, TransactionSynchronizationRegistry {
    private static final Logger log = LoggerFactory.getLogger(LocalTransactions.class);

    private final ThreadLocal<Local> current = new ThreadLocal<>();

    @Override
    public void begin() throws NotSupportedException {
        if (current.get() != null) throw new NotSupportedException("a transaction is already active on this thread (no nesting)");
        current.set(new Local());
    }

    @Override
    public void commit() throws RollbackException, HeuristicMixedException, HeuristicRollbackException, SystemException {
        Local t = active();
        try {
            t.complete();
        } finally {
            current.remove();
        }
    }

    @Override
    public void rollback() throws SystemException {
        Local t = active();
        try {
            t.undo();
        } finally {
            current.remove();
        }
    }

    @Override
    public void setRollbackOnly() {
        active().setRollbackOnly();
    }

    @Override
    public int getStatus() {
        Local t = current.get();
        return t == null ? Status.STATUS_NO_TRANSACTION : t.status;
    }

    @Override
    public Transaction getTransaction() {
        return current.get();
    }

    @Override
    public void setTransactionTimeout(int seconds) {
        // In-memory jobs are bounded by the request timeout, not by a transaction timeout.
    }

    @Override
    public Transaction suspend() {
        Local t = current.get();
        current.remove();
        return t;
    }

    @Override
    public void resume(Transaction tx) throws InvalidTransactionException {
        if (tx != null && !(tx instanceof Local)) throw new InvalidTransactionException("not a transaction of this manager");
        if (current.get() != null) throw new IllegalStateException("a transaction is already active on this thread");
        if (tx != null) current.set((Local) tx);
    }

    @Override
    public Object getTransactionKey() {
        return current.get();
    }

    @Override
    public void putResource(Object key, Object value) {
        active().resources().put(key, value);
    }

    @Override
    public Object getResource(Object key) {
        return active().resources().get(key);
    }

    @Override
    public void registerInterposedSynchronization(Synchronization sync) {
        try {
            active().register(sync, true);
        } catch (RollbackException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    @Override
    public int getTransactionStatus() {
        return getStatus();
    }

    @Override
    public boolean getRollbackOnly() {
        return active().status == Status.STATUS_MARKED_ROLLBACK;
    }

    private Local active() {
        Local t = current.get();
        if (t == null) throw new IllegalStateException("no transaction on this thread");
        return t;
    }

    private static final java.util.concurrent.atomic.AtomicLong XIDS = new java.util.concurrent.atomic.AtomicLong();

    /** A transaction's id, as XA resources want one. */
    private record LocalXid(long number) implements Xid {
        @Override public int getFormatId() { return 0x4d4f5345; } // "MOSE"
        @Override public byte[] getGlobalTransactionId() { return java.nio.ByteBuffer.allocate(8).putLong(number).array(); }
        @Override public byte[] getBranchQualifier() { return new byte[] {1}; }
    }

    /** An exception and its causes, on one line: an XAException says little more than its code. */
    static String describe(Exception e) {
        StringBuilder b = new StringBuilder(e.toString());
        if (e instanceof XAException x) b.append(" (XA code ").append(x.errorCode).append(')');
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) b.append("; caused by ").append(c);
        return b.toString();
    }

    /** One transaction: its synchronizations, run in order of registration, and its resources, if any. */
    private static final class Local implements Transaction {
        private final List<Synchronization> synchronizations = new ArrayList<>(4);
        /** Interposed synchronizations, null while there are none: the in-memory case. */
        private List<Synchronization> interposed;
        private java.util.Map<Object, Object> resourceMap;
        private int status = Status.STATUS_ACTIVE;
        /** Enlisted resources (a durable store's connection), null while there are none: the in-memory case. */
        private List<XAResource> resources;
        private Xid xid;

        @Override
        public void registerSynchronization(Synchronization sync) throws RollbackException {
            register(sync, false);
        }

        void register(Synchronization sync, boolean interposedSync) throws RollbackException {
            if (status == Status.STATUS_MARKED_ROLLBACK) throw new RollbackException("transaction is marked for rollback");
            if (status != Status.STATUS_ACTIVE && status != Status.STATUS_PREPARING)
                throw new IllegalStateException("transaction is no longer active (status " + status + ")");
            if (!interposedSync) synchronizations.add(sync);
            else (interposed == null ? interposed = new ArrayList<>(4) : interposed).add(sync);
        }

        java.util.Map<Object, Object> resources() {
            return resourceMap == null ? resourceMap = new java.util.HashMap<>() : resourceMap;
        }

        void complete() throws RollbackException {
            if (status == Status.STATUS_MARKED_ROLLBACK) {
                undo();
                throw new RollbackException("transaction was marked for rollback");
            }
            // JTA keeps a transaction ACTIVE while its beforeCompletion steps run: OpenJPA flushes
            // there, and the pool hands out its enlisted connection only to an active transaction
            RuntimeException failed = beforeCompletion(synchronizations);
            if (failed == null && interposed != null) failed = beforeCompletion(interposed);
            if (failed != null || status == Status.STATUS_MARKED_ROLLBACK) {
                undo();
                RollbackException e = new RollbackException("rolled back before completion"
                        + (failed == null ? "" : ": " + failed));
                if (failed != null) e.initCause(failed);
                throw e;
            }
            if (resources != null) {
                status = Status.STATUS_COMMITTING;
                for (int i = 0; i < resources.size(); i++) {
                    try {
                        resources.get(i).end(xid, XAResource.TMSUCCESS);
                        resources.get(i).commit(xid, true);
                    } catch (XAException | RuntimeException e) {
                        // only the first can fail atomically (one resource is all a store enlists)
                        for (int j = i + 1; j < resources.size(); j++) rollback(resources.get(j));
                        status = Status.STATUS_ROLLEDBACK;
                        afterCompletion();
                        RollbackException r = new RollbackException("the database refused the commit: " + describe(e));
                        r.initCause(e);
                        throw r;
                    }
                }
            }
            status = Status.STATUS_COMMITTED;
            afterCompletion();
        }

        /** By index: a beforeCompletion may register further synchronizations. */
        private static RuntimeException beforeCompletion(List<Synchronization> syncs) {
            for (int i = 0; i < syncs.size(); i++) {
                try {
                    syncs.get(i).beforeCompletion();
                } catch (RuntimeException e) {
                    return e;
                }
            }
            return null;
        }

        void undo() {
            status = Status.STATUS_ROLLEDBACK;
            if (resources != null) for (XAResource r : resources) rollback(r);
            afterCompletion();
        }

        private void rollback(XAResource r) {
            try {
                r.end(xid, XAResource.TMFAIL);
            } catch (XAException | RuntimeException e) {
                // ended already (delisted): roll it back all the same
            }
            try {
                r.rollback(xid);
            } catch (XAException | RuntimeException e) {
                // the synchronizations must run all the same: they release the instance's lock and the connection
                log.warn("rollback of a database connection failed: {}", describe(e));
            }
        }

        private void afterCompletion() {
            if (interposed != null) afterCompletion(interposed);
            afterCompletion(synchronizations);
        }

        private void afterCompletion(List<Synchronization> syncs) {
            for (int i = 0; i < syncs.size(); i++) {
                try {
                    syncs.get(i).afterCompletion(status);
                } catch (RuntimeException e) {
                    log.warn("after-completion step failed: {}", e.toString());
                }
            }
        }

        @Override
        public void commit() {
            throw new UnsupportedOperationException("commit through the transaction manager");
        }

        @Override
        public void rollback() {
            throw new UnsupportedOperationException("roll back through the transaction manager");
        }

        @Override
        public void setRollbackOnly() {
            if (status == Status.STATUS_ACTIVE || status == Status.STATUS_PREPARING) status = Status.STATUS_MARKED_ROLLBACK;
        }

        @Override
        public int getStatus() {
            return status;
        }

        @Override
        public boolean enlistResource(XAResource resource) throws RollbackException, SystemException {
            if (status == Status.STATUS_MARKED_ROLLBACK) throw new RollbackException("transaction is marked for rollback");
            if (status != Status.STATUS_ACTIVE && status != Status.STATUS_PREPARING)
                throw new IllegalStateException("transaction is no longer active (status " + status + ")");
            if (resources == null) {
                resources = new ArrayList<>(1);
                xid = new LocalXid(XIDS.incrementAndGet());
            }
            for (XAResource r : resources) if (r == resource) return true;
            try {
                resource.start(xid, XAResource.TMNOFLAGS);
            } catch (XAException e) {
                SystemException s = new SystemException("cannot enlist a database connection: " + describe(e));
                s.initCause(e);
                throw s;
            }
            resources.add(resource);
            return true;
        }

        @Override
        public boolean delistResource(XAResource resource, int flag) {
            return resources != null && resources.contains(resource); // ended at commit or rollback
        }
    }
}
