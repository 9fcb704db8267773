package io.moses.mdal;

import static io.moses.mdal.Database.one;
import static io.moses.mdal.Database.query;
import static io.moses.mdal.Database.update;
import static io.moses.mdal.Validation.*;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;

/** What the replicas share to police as one (V11): each user's over-rate episode, and the secrets they seal their hops with. */
final class ClusterPolicingStore {
    private static final SecureRandom RANDOM = new SecureRandom();
    private final Database db;

    ClusterPolicingStore(Database db) {
        this.db = db;
    }

    boolean overRateEpisode(String user, Instant since, Instant last, Duration window) {
        name("overRateEpisode.user", user, NAME_MAX);
        if (since == null || last == null) throw KnowledgeBaseException.invalid("overRateEpisode.since and .last must not be null");
        if (last.isBefore(since)) throw KnowledgeBaseException.invalid("overRateEpisode.last must not be before .since");
        if (window == null || window.isNegative())
            throw KnowledgeBaseException.invalid("overRateEpisode.window must not be negative, was " + window);
        long from = since.toEpochMilli(), to = last.toEpochMilli(), recent = from - window.toMillis();
        // racing replicas: the loser of two inserts retries, finds the winner's row and only moves it on
        return db.upsert("over-rate episode of '" + user + "'", c -> {
            if (update(c, "UPDATE over_rate_episode SET last_ms = GREATEST(last_ms, ?) WHERE user_name = ? AND last_ms >= ?", to, user, recent) > 0)
                return false;
            if (update(c, "UPDATE over_rate_episode SET started_ms = ?, last_ms = ? WHERE user_name = ? AND last_ms < ?", from, to, user, recent) > 0)
                return true;
            update(c, "INSERT INTO over_rate_episode (user_name, started_ms, last_ms) VALUES (?, ?, ?)", user, from, to);
            return true;
        });
    }

    String clusterSecret(String name) {
        name("clusterSecret.name", name, NAME_MAX);
        return db.upsert("cluster secret '" + name + "'", c -> {
            var stored = one(query(c, "SELECT secret_hex FROM cluster_secret WHERE name = ?", rs -> rs.getString(1), name));
            if (stored.isPresent()) return stored.get();
            byte[] key = new byte[32];
            RANDOM.nextBytes(key);
            String secret = HexFormat.of().formatHex(key);
            update(c, "INSERT INTO cluster_secret (name, secret_hex) VALUES (?, ?)", name, secret);
            return secret;
        });
    }
}
