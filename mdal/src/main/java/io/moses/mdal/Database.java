package io.moses.mdal;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pooled database under the record stores: one transaction per call on a pooled
 * connection, deadlocks and lock timeouts retried, connection failures surfaced at once as
 * UNAVAILABLE; and the few statement helpers every store uses.
 */
final class Database {
    private static final Logger LOG = LoggerFactory.getLogger(Database.class);
    /**
     * Attempts of a transaction that lost a lock. On a Galera cluster the writers on different
     * nodes do not see each other's row locks: they meet at commit, where certification lets
     * the first one through and fails the others with a deadlock error, so a hot row (a plan
     * head, the subscriptions version, a lease) written on three nodes at once needs more
     * attempts than on one server, with a back-off that grows (GaleraConcurrencyTest).
     */
    private static final int RETRIES = 30;
    /** Attempts while a Galera node answers "not ready", {@link #NOT_READY_BACKOFF_MS} apart: about 2 s. */
    private static final int NOT_READY_ATTEMPTS = 10;
    private static final int NOT_READY_BACKOFF_MS = 200;
    /** The longest back-off between two attempts, in milliseconds. */
    private static final int MAX_BACKOFF_MS = 200;

    private final HikariDataSource dataSource;
    private final String description;
    private final boolean h2InMemory;
    private volatile boolean closed;
    /** Whether an outage was logged and no transaction has succeeded since: one line per outage. */
    private volatile boolean reportedDown;

    Database(HikariDataSource dataSource, String description, boolean h2InMemory) {
        this.dataSource = dataSource;
        this.description = description;
        this.h2InMemory = h2InMemory;
    }

    String description() {
        return description;
    }

    /** The pool, for tests of its settings. */
    HikariDataSource pool() {
        return dataSource;
    }

    // ------------------------------------------------------------------ transactions

    @FunctionalInterface
    interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    <T> T tx(String what, Work<T> work) {
        return tx(what, false, work);
    }

    /**
     * An insert-or-replace (UPDATE, then INSERT if no row matched): two writers may both find no
     * row and both insert; the loser's duplicate-key error is retried, and then it updates. It
     * writes the same row whatever came before, so it is also run again when its connection dies
     * during the commit.
     */
    <T> T upsert(String what, Work<T> work) {
        return tx(what, true, work);
    }

    private <T> T tx(String what, boolean retryDuplicates, Work<T> work) {
        for (int attempt = 1; ; attempt++) {
            if (closed) throw new KnowledgeBaseException(KnowledgeBaseException.Kind.UNAVAILABLE, what + ": knowledge base is closed");
            Connection c;
            try {
                c = dataSource.getConnection(); // waits at most connectionTimeout (2 s) when the database is down
            } catch (SQLException e) {
                throw unavailableOrOther(what, e);
            }
            boolean committing = false;
            try (c) {
                try {
                    T result = work.run(c);
                    committing = true;
                    c.commit();
                    if (reportedDown) {
                        reportedDown = false;
                        LOG.info("knowledge base reachable again ({})", what);
                    }
                    return result;
                } catch (SQLException | RuntimeException | Error e) {
                    // a node that left the primary component keeps answering "not ready" (its
                    // rollback too): the next attempt takes a new connection, to a node that is
                    // Synced (GaleraNodes)
                    if (SqlErrors.nodeNotReady(e)) dataSource.evictConnection(c);
                    else rollbackQuietly(c);
                    throw e;
                }
            } catch (SQLException e) {
                if (attempt < RETRIES && (SqlErrors.retryable(e) || retryDuplicates && SqlErrors.duplicateKey(e))) {
                    sleepQuietly(ThreadLocalRandom.current().nextInt(1, Math.min(MAX_BACKOFF_MS, 4 << Math.min(attempt, 6)) + 2));
                    continue;
                }
                // A Galera node that is joining (or has lost quorum) answers every query with
                // "not ready": its connection was dropped, and the next attempt's goes to a node
                // that is Synced; with none, wait about 2 s for one before calling it UNAVAILABLE.
                if (attempt < NOT_READY_ATTEMPTS && !committing && SqlErrors.nodeNotReady(e)) {
                    sleepQuietly(NOT_READY_BACKOFF_MS);
                    continue;
                }
                // A pooled connection that died with the server (for example after a database
                // restart, or a Galera node killed) fails: one retry on a fresh connection when
                // nothing was committed, or when the connection died during the commit of an
                // upsert, whose outcome is unknown but which writes the same row again
                // (GaleraFailoverTest once killed a node in the middle of such a commit).
                if (attempt == 1 && (!committing || retryDuplicates) && SqlErrors.connectionProblem(e)) {
                    LOG.info("{}: connection lost ({}); retrying once on a new connection", what, e.getClass().getSimpleName());
                    // the pool's other connections most likely went to the same server: without
                    // this the retry takes one of them, dead too (to one Galera node each, with
                    // GaleraNodes, where the driver's own failover no longer hides a dead node)
                    var pool = dataSource.getHikariPoolMXBean();
                    if (pool != null) pool.softEvictConnections();
                    continue;
                }
                throw unavailableOrOther(what, e);
            }
        }
    }

    /** The first UNAVAILABLE of an outage is logged, the rest not (every caller gets its exception). */
    private KnowledgeBaseException unavailableOrOther(String what, SQLException e) {
        KnowledgeBaseException k = SqlErrors.translate(what, description, e);
        if (k.kind() == KnowledgeBaseException.Kind.UNAVAILABLE && !reportedDown) {
            reportedDown = true;
            LOG.warn("{} (no further line until it is reachable again)", k.getMessage());
        }
        return k;
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // the connection is broken; the pool will evict it
        }
    }

    /** A randomised back-off between two attempts of a transaction that lost a lock. */
    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ------------------------------------------------------------------ connection

    boolean isAvailable() {
        if (closed) return false;
        try (Connection c = dataSource.getConnection()) {
            return c.isValid(1);
        } catch (SQLException | RuntimeException e) {
            return false;
        }
    }

    void close() {
        if (closed) return;
        closed = true;
        if (h2InMemory) {
            // DB_CLOSE_DELAY=-1 keeps a named in-memory database alive; drop it with its last user
            try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
                s.execute("SHUTDOWN");
            } catch (SQLException ignored) {
                // already gone
            }
        }
        dataSource.close();
        LOG.info("knowledge base closed: {}", description);
    }

    // ------------------------------------------------------------------ statement helpers

    static PreparedStatement prepare(Connection c, String sql, Object... args) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql);
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            if (a instanceof Double d) ps.setDouble(i + 1, d);
            else if (a instanceof Long l) ps.setLong(i + 1, l);
            else if (a instanceof Integer n) ps.setInt(i + 1, n);
            else if (a instanceof Boolean b) ps.setBoolean(i + 1, b);
            else ps.setObject(i + 1, a);
        }
        return ps;
    }

    static int update(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = prepare(c, sql, args)) {
            return ps.executeUpdate();
        }
    }

    static boolean exists(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = prepare(c, sql, args); ResultSet rs = ps.executeQuery()) {
            return rs.next();
        }
    }

    @FunctionalInterface
    interface Row<T> {
        T map(ResultSet rs) throws SQLException;
    }

    static <T> List<T> query(Connection c, String sql, Row<T> row, Object... args) throws SQLException {
        return query(c, 0, sql, row, args);
    }

    static <T> List<T> query(Connection c, int maxRows, String sql, Row<T> row, Object... args) throws SQLException {
        try (PreparedStatement ps = prepare(c, sql, args)) {
            if (maxRows > 0) ps.setMaxRows(maxRows);
            try (ResultSet rs = ps.executeQuery()) {
                List<T> out = new ArrayList<>();
                while (rs.next()) out.add(row.map(rs));
                return out;
            }
        }
    }

    static <T> Optional<T> one(List<T> rows) {
        return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
    }
}
