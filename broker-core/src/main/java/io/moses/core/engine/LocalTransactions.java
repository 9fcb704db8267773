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
 * returns.
 */
final class LocalTransactions implements TransactionManager {
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

    /** One transaction: its synchronizations, run in order of registration, and its resources, if any. */
    private static final class Local implements Transaction {
        private final List<Synchronization> synchronizations = new ArrayList<>(4);
        private int status = Status.STATUS_ACTIVE;
        /** Enlisted resources (a durable store's connection), null while there are none: the in-memory case. */
        private List<XAResource> resources;
        private Xid xid;

        @Override
        public void registerSynchronization(Synchronization sync) throws RollbackException {
            if (status == Status.STATUS_MARKED_ROLLBACK) throw new RollbackException("transaction is marked for rollback");
            if (status != Status.STATUS_ACTIVE && status != Status.STATUS_PREPARING)
                throw new IllegalStateException("transaction is no longer active (status " + status + ")");
            synchronizations.add(sync);
        }

        void complete() throws RollbackException {
            if (status == Status.STATUS_MARKED_ROLLBACK) {
                undo();
                throw new RollbackException("transaction was marked for rollback");
            }
            // JTA keeps a transaction ACTIVE while its beforeCompletion steps run: OpenJPA flushes
            // there, and the pool hands out its enlisted connection only to an active transaction
            RuntimeException failed = null;
            // By index: a beforeCompletion may register further synchronizations.
            for (int i = 0; i < synchronizations.size() && failed == null; i++) {
                try {
                    synchronizations.get(i).beforeCompletion();
                } catch (RuntimeException e) {
                    failed = e;
                }
            }
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
                    } catch (XAException e) {
                        // only the first can fail atomically (one resource is all a store enlists)
                        for (int j = i + 1; j < resources.size(); j++) rollback(resources.get(j));
                        status = Status.STATUS_ROLLEDBACK;
                        afterCompletion();
                        RollbackException r = new RollbackException("the database refused the commit: " + e + " (XA code " + e.errorCode + ")");
                        r.initCause(e);
                        throw r;
                    }
                }
            }
            status = Status.STATUS_COMMITTED;
            afterCompletion();
        }

        void undo() {
            status = Status.STATUS_ROLLEDBACK;
            if (resources != null) for (XAResource r : resources) rollback(r);
            afterCompletion();
        }

        private void rollback(XAResource r) {
            try {
                r.end(xid, XAResource.TMFAIL);
            } catch (XAException e) {
                // ended already (delisted): roll it back all the same
            }
            try {
                r.rollback(xid);
            } catch (XAException e) {
                log.warn("rollback of a database connection failed: {} (XA code {})", e, e.errorCode);
            }
        }

        private void afterCompletion() {
            for (int i = 0; i < synchronizations.size(); i++) {
                try {
                    synchronizations.get(i).afterCompletion(status);
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
                SystemException s = new SystemException("cannot enlist a database connection: " + e + " (XA code " + e.errorCode + ")");
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
