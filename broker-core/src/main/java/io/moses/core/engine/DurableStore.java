package io.moses.core.engine;

import io.moses.mdal.ProcessDatabase;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Properties;
import javax.sql.DataSource;
import org.apache.commons.dbcp2.PoolableConnection;
import org.apache.commons.dbcp2.managed.LocalXAConnectionFactory;
import org.apache.commons.dbcp2.managed.ManagedDataSource;
import org.apache.commons.dbcp2.managed.PoolableManagedConnectionFactory;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.apache.ode.dao.jpa.BPELDAOConnectionFactoryImpl;
import org.apache.ode.scheduler.simple.JdbcDelegate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where durable process instances live: Apache ODE's own JPA DAO (ode-dao-jpa, OpenJPA 1.2.3)
 * and its scheduler's job table, in the knowledge base's database (their tables come with MDAL's
 * migrations). Both write through one pool whose connections join the engine's transaction, so
 * that an engine job's instance state, messages and next jobs commit together or not at all.
 *
 * <p>The connections are local transactions enlisted as one-phase XA resources (dbcp2's
 * {@code LocalXAConnectionFactory}): no XA on the database's side, which Galera does not offer.
 * Without an enlisting pool OpenJPA's managed mode would auto-commit every statement (a rollback
 * would undo nothing) and say nothing of it.
 */
final class DurableStore implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DurableStore.class);
    /** OpenJPA 1.2.3's MySQL dictionary writes "TYPE=InnoDB", which MariaDB refuses, and 64 KB LOBs: too small for a process's state. */
    private static final String MYSQL_DICTIONARY = "mysql(TableType=,BlobTypeName=LONGBLOB,ClobTypeName=LONGTEXT)";

    private static final int MAX_CONNECTIONS = 48;

    private final GenericObjectPool<PoolableConnection> pool;
    private final DataSource managed;
    private final BPELDAOConnectionFactoryImpl dao;
    private final String description;
    /** Connections handed to ODE's DAO and job table: what an in-memory request must never take. */
    private final java.util.concurrent.atomic.LongAdder taken = new java.util.concurrent.atomic.LongAdder();

    DurableStore(ProcessDatabase db, LocalTransactions tm) {
        this.description = db.description();
        // the pool's steps at a transaction's end are interposed (LocalTransactions says why)
        DataSource raw = db.connections();
        LocalXAConnectionFactory xa = new LocalXAConnectionFactory(tm, tm, () -> readCommittedOnce(raw.getConnection()));
        PoolableManagedConnectionFactory connections = new PoolableManagedConnectionFactory(xa, null);
        connections.setValidationQueryTimeout(2);
        connections.setDefaultReadOnly(false);
        GenericObjectPoolConfig<PoolableConnection> cfg = new GenericObjectPoolConfig<>();
        // every engine thread, reply thread and front-end request may hold one in its transaction
        cfg.setMaxTotal(MAX_CONNECTIONS);
        cfg.setMaxIdle(MAX_CONNECTIONS);
        cfg.setMaxWaitMillis(10_000);
        // a database restarted, or a Galera node killed, leaves dead connections in the pool
        cfg.setTestOnBorrow(true);
        cfg.setJmxEnabled(false);
        this.pool = new GenericObjectPool<>(connections, cfg);
        connections.setPool(pool);
        this.managed = counting(new ManagedDataSource<>(pool, xa.getTransactionRegistry()));
        this.dao = new BPELDAOConnectionFactoryImpl();
        dao.setDataSource(managed);
        dao.setTransactionManager(tm);
        dao.setDBDictionary(db.mysql() ? MYSQL_DICTIONARY : "h2");
        Properties p = new Properties();
        // the schema is MDAL's (migrations): OpenJPA checks nothing and creates nothing
        p.put("openjpa.jdbc.SynchronizeMappings", "false");
        // OpenJPA's id sequence commits on its own connection, outside the engine's transaction
        p.put("openjpa.ConnectionFactory2", counting(db.connections()));
        dao.init(p);
        log.info("durable processes in {} (Apache ODE's JPA DAO and job table)", description);
    }

    /**
     * The connection at READ COMMITTED (what OpenJPA and ODE's job table ask for), and deaf to
     * being asked again: H2 commits the open transaction at every {@code setTransactionIsolation},
     * even to the level it has, and both set it on every connection they take within a
     * transaction. Each such call committed a job's work half done (a job's row deleted while its
     * message was never delivered, an instance deleted without its routes).
     */
    private static Connection readCommittedOnce(Connection c) throws SQLException {
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        int level = c.getTransactionIsolation();
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("setTransactionIsolation") && (int) args[0] == level) return null;
                    try {
                        return method.invoke(c, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** Connections taken from the store since it opened (statements of the durable processes, their jobs, their ids). */
    long connectionsTaken() {
        return taken.sum();
    }

    private DataSource counting(DataSource ds) {
        return (DataSource) java.lang.reflect.Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getConnection")) taken.increment();
                    try {
                        return method.invoke(ds, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** ODE's DAO for the durable processes (BpelServerImpl's persistent DAO factory). */
    BPELDAOConnectionFactoryImpl dao() {
        return dao;
    }

    /** Connections that join the engine's transaction: what ODE's DAO and job table write through, for SQL of our own in it. */
    DataSource enlisted() {
        return managed;
    }

    /** ODE's job table over the same connections. */
    JdbcDelegate jobs() {
        return new JdbcDelegate(managed);
    }

    @Override
    public void close() {
        try {
            dao.shutdown();
        } catch (RuntimeException e) {
            log.warn("closing ODE's JPA DAO: {}", e.toString());
        }
        pool.close();
    }
}
