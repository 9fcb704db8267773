package io.moses.core.engine;

import io.moses.ode.InstanceFence;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import javax.sql.DataSource;
import javax.transaction.RollbackException;
import javax.transaction.Synchronization;
import org.apache.ode.bpel.dao.ProcessInstanceDAO;

/**
 * Which replica runs each durable instance (the knowledge base's instance_owner table). A
 * transaction that runs an instance writes the instance's row before it commits, on the
 * transaction's own connection, and is refused when the row names another replica: a survivor
 * took the instance over while this replica was presumed dead (its presence expired), and this
 * replica, back, must not continue it. The write is a real one (a counter) so that on Galera it
 * certifies against the takeover's; on one server the row's lock orders the two.
 */
final class InstanceOwners implements InstanceFence {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(InstanceOwners.class);
    private static final Object RUNS = new Object();

    private final LocalTransactions tx;
    private final DataSource enlisted;
    private final String replica;

    /** @param enlisted the durable store's connections, which join the engine's transaction */
    InstanceOwners(LocalTransactions tx, DataSource enlisted, String replica) {
        this.tx = tx;
        this.enlisted = enlisted;
        this.replica = replica;
    }

    @Override
    public void runs(ProcessInstanceDAO instance) {
        if (tx.getTransaction() == null) return; // ODE reads outside a transaction: nothing is written
        @SuppressWarnings("unchecked")
        Set<ProcessInstanceDAO> run = (Set<ProcessInstanceDAO>) tx.getResource(RUNS);
        if (run == null) {
            Set<ProcessInstanceDAO> instances = Collections.newSetFromMap(new IdentityHashMap<>());
            tx.putResource(RUNS, instances);
            try {
                // registered after OpenJPA's (its entity manager joined the transaction before any
                // instance was read), so it runs after the flush: a new instance has its id
                tx.getTransaction().registerSynchronization(new Synchronization() {
                    @Override
                    public void beforeCompletion() {
                        for (ProcessInstanceDAO i : instances) own(i.getInstanceId());
                    }

                    @Override
                    public void afterCompletion(int status) {}
                });
            } catch (RollbackException | javax.transaction.SystemException e) {
                return; // rolls back anyway: nothing to fence
            }
            run = instances;
        }
        run.add(instance);
    }

    private void own(Long instance) {
        if (instance == null) return;
        try (Connection c = enlisted.getConnection()) {
            try (PreparedStatement ps = c.prepareStatement("UPDATE instance_owner SET writes = writes + 1 WHERE instance_id = ? AND replica = ?")) {
                ps.setLong(1, instance);
                ps.setString(2, replica);
                if (ps.executeUpdate() == 1) return;
            }
            String owner = null;
            try (PreparedStatement ps = c.prepareStatement("SELECT replica FROM instance_owner WHERE instance_id = ?")) {
                ps.setLong(1, instance);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) owner = rs.getString(1);
                }
            }
            if (owner != null) {
                log.warn("instance {} is not continued here: replica {} took it over while this replica ({}) was presumed gone",
                        instance, owner, replica);
                throw new IllegalStateException("instance " + instance + " was taken over by replica " + owner
                        + " while this replica (" + replica + ") was presumed gone: it continues there, not here");
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO instance_owner (instance_id, replica, writes) VALUES (?, ?, 1)")) {
                ps.setLong(1, instance);
                ps.setString(2, replica);
                ps.executeUpdate();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot record that replica " + replica + " runs instance " + instance + ": " + e.getMessage(), e);
        }
    }
}
