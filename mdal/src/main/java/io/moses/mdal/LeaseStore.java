package io.moses.mdal;

import static io.moses.mdal.Database.exists;
import static io.moses.mdal.Database.one;
import static io.moses.mdal.Database.query;
import static io.moses.mdal.Database.update;
import static io.moses.mdal.Validation.*;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;

/** Named leases with a holder, a term and an expiry: the optimizer leader's election. */
final class LeaseStore {
    private final Database db;

    LeaseStore(Database db) {
        this.db = db;
    }

    Lease acquireLease(String name, String holder, Instant now, java.time.Duration ttl) {
        name("lease.name", name, NAME_MAX);
        name("lease.holder", holder, 200);
        if (now == null) throw KnowledgeBaseException.invalid("lease.now must not be null");
        if (ttl == null || ttl.isNegative() || ttl.isZero()) throw KnowledgeBaseException.invalid("lease.ttl must be positive, was " + ttl);
        long at = now.toEpochMilli();
        long until = at + ttl.toMillis();
        return db.upsert("acquire lease '" + name + "'", c -> {
            // one statement decides: renew (same holder, term kept) or take over (expired, term + 1)
            int n = update(c, "UPDATE leader_lease SET term = CASE WHEN holder = ? THEN term ELSE term + 1 END, holder = ?, "
                    + "expires_ms = ?, renewed_ms = ? WHERE name = ? AND (holder = ? OR expires_ms < ?)",
                    holder, holder, until, at, name, holder, at);
            if (n == 0 && !exists(c, "SELECT 1 FROM leader_lease WHERE name = ?", name))
                update(c, "INSERT INTO leader_lease (name, holder, term, expires_ms, renewed_ms) VALUES (?, ?, 1, ?, ?)",
                        name, holder, until, at);
            return readLease(c, name).orElseThrow(() -> new SQLException("lease row '" + name + "' missing"));
        });
    }

    boolean releaseLease(String name, String holder) {
        return db.tx("release lease '" + name + "'", c ->
                update(c, "UPDATE leader_lease SET expires_ms = 0 WHERE name = ? AND holder = ?", name, holder) > 0);
    }

    Optional<Lease> lease(String name) {
        return db.tx("read lease '" + name + "'", c -> readLease(c, name));
    }

    private static Optional<Lease> readLease(Connection c, String name) throws SQLException {
        return one(query(c, "SELECT name, holder, term, expires_ms FROM leader_lease WHERE name = ?",
                rs -> new Lease(rs.getString(1), rs.getString(2), rs.getLong(3), Instant.ofEpochMilli(rs.getLong(4))), name));
    }
}
