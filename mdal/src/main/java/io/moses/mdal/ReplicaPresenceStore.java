package io.moses.mdal;

import static io.moses.mdal.Database.one;
import static io.moses.mdal.Database.query;
import static io.moses.mdal.Database.update;
import static io.moses.mdal.Validation.*;

import java.time.Duration;
import java.time.Instant;

/** The replicas seen alive recently: one row per replica, its last heartbeat (V9). */
final class ReplicaPresenceStore {
    private final Database db;

    ReplicaPresenceStore(Database db) {
        this.db = db;
    }

    int heartbeat(String replica, Instant now, Duration ttl) {
        name("replicaPresence.replica", replica, 200);
        if (now == null) throw KnowledgeBaseException.invalid("replicaPresence.now must not be null");
        if (ttl == null || ttl.isNegative() || ttl.isZero())
            throw KnowledgeBaseException.invalid("replicaPresence.ttl must be positive, was " + ttl);
        long at = now.toEpochMilli();
        return db.upsert("heartbeat of replica '" + replica + "'", c -> {
            if (update(c, "UPDATE replica_presence SET seen_ms = ? WHERE replica = ?", at, replica) == 0)
                update(c, "INSERT INTO replica_presence (replica, seen_ms) VALUES (?, ?)", replica, at);
            return one(query(c, "SELECT COUNT(*) FROM replica_presence WHERE seen_ms >= ?", rs -> rs.getInt(1),
                    at - ttl.toMillis())).orElse(1);
        });
    }

    void leave(String replica) {
        db.tx("remove presence of replica '" + replica + "'", c -> update(c, "DELETE FROM replica_presence WHERE replica = ?", replica));
    }
}
