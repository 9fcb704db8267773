package io.moses.mdal;

import static io.moses.mdal.Database.query;
import static io.moses.mdal.Database.update;
import static io.moses.mdal.Validation.*;

import java.time.Instant;
import java.util.List;

/** Each replica's last window of observations per concrete service, merged by the leader. */
final class ReplicaWindowStore {
    private final Database db;

    ReplicaWindowStore(Database db) {
        this.db = db;
    }

    void putReplicaWindows(String replica, List<ReplicaWindow> windows) {
        name("replicaWindow.replica", replica, 200);
        for (ReplicaWindow w : windows) {
            if (!replica.equals(w.replica()))
                throw KnowledgeBaseException.invalid("replicaWindow.replica: a window of '" + w.replica() + "' in the windows of '" + replica + "'");
            name("replicaWindow.service", w.service(), NAME_MAX);
            if (w.at() == null) throw KnowledgeBaseException.invalid("replicaWindow.at must not be null");
        }
        db.tx("put windows of replica '" + replica + "'", c -> {
            update(c, "DELETE FROM replica_window WHERE replica = ?", replica);
            for (ReplicaWindow w : windows)
                update(c, "INSERT INTO replica_window (replica, service, successes, failures, response_time, at_ms) VALUES (?, ?, ?, ?, ?, ?)",
                        replica, w.service(), w.successes(), w.failures(), w.responseTime(), w.at().toEpochMilli());
            return null;
        });
    }

    List<ReplicaWindow> replicaWindows(Instant since) {
        long from = since == null ? Long.MIN_VALUE : since.toEpochMilli();
        return db.tx("list replica windows", c -> query(c,
                "SELECT replica, service, successes, failures, response_time, at_ms FROM replica_window WHERE at_ms >= ? ORDER BY replica, service",
                rs -> new ReplicaWindow(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getLong(4), rs.getDouble(5),
                        Instant.ofEpochMilli(rs.getLong(6))), from));
    }
}
