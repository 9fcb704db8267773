package io.moses.mdal;

import static io.moses.mdal.Database.query;
import static io.moses.mdal.Database.update;
import static io.moses.mdal.Validation.name;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.Predicate;

/** Which replica runs each durable instance (V14), and the takeover of a replica that is gone. */
final class DurableOwnerStore {
    private final Database db;

    DurableOwnerStore(Database db) {
        this.db = db;
    }

    /** Replicas that own durable work: instances (V14) or jobs (ODE_JOB). */
    Set<String> owners() {
        return db.tx("read owners of durable instances", c -> {
            Set<String> owners = new LinkedHashSet<>(query(c, "SELECT DISTINCT replica FROM instance_owner", rs -> rs.getString(1)));
            owners.addAll(query(c, "SELECT DISTINCT nodeid FROM ODE_JOB WHERE nodeid IS NOT NULL", rs -> rs.getString(1)));
            return owners;
        });
    }

    /** Replicas whose heartbeat (V9) is no older than {@code ttl} at {@code now}. */
    Set<String> seen(Instant now, Duration ttl) {
        long since = now.toEpochMilli() - ttl.toMillis();
        return db.tx("read live replicas", c ->
                new LinkedHashSet<>(query(c, "SELECT replica FROM replica_presence WHERE seen_ms >= ?", rs -> rs.getString(1), since)));
    }

    /** Moves everything durable of {@code gone} to {@code to}, in one transaction. */
    DurableTakeover takeOver(String gone, String to, String toAddress, Predicate<String> durableProcess) {
        name("takeover.gone", gone, 200);
        name("takeover.to", to, 200);
        name("takeover.address", toAddress, 400);
        if (gone.equals(to)) throw KnowledgeBaseException.invalid("a replica cannot take over its own instances");
        return db.tx("take over the durable instances of replica '" + gone + "'", c -> {
            int instances = update(c, "UPDATE instance_owner SET replica = ?, writes = writes + 1 WHERE replica = ?", to, gone);
            int jobs = update(c, "UPDATE ODE_JOB SET nodeid = ?, scheduled = 0 WHERE nodeid = ?", to, gone);
            int conversations = 0;
            for (String process : query(c, "SELECT DISTINCT process FROM conversation_owner WHERE replica = ?", rs -> rs.getString(1), gone))
                if (durableProcess.test(process))
                    conversations += update(c, "UPDATE conversation_owner SET replica = ?, address = ? WHERE replica = ? AND process = ?",
                            to, toAddress, gone, process);
            return new DurableTakeover(gone, to, instances, jobs, conversations);
        });
    }

    /** Removes the correlation values {@code replica} registered for the processes {@code ofProcess} accepts. */
    int forgetConversations(String replica, Predicate<String> ofProcess) {
        return db.tx("forget replica conversations", c -> {
            int n = 0;
            for (String process : query(c, "SELECT DISTINCT process FROM conversation_owner WHERE replica = ?", rs -> rs.getString(1), replica))
                if (ofProcess.test(process))
                    n += update(c, "DELETE FROM conversation_owner WHERE replica = ? AND process = ?", replica, process);
            return n;
        });
    }
}
