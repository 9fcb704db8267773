package io.moses.mdal;

import static io.moses.mdal.Database.one;
import static io.moses.mdal.Database.query;
import static io.moses.mdal.Database.update;
import static io.moses.mdal.Validation.NAME_MAX;
import static io.moses.mdal.Validation.name;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import io.moses.model.User;
import java.util.Optional;

/** {@link OperatorSessions} on the knowledge base's table {@code console_session} (V5). */
final class OperatorSessionStore implements OperatorSessions {
    /** A session's last use is written when it is older than this (or a quarter of the idle time): reads stay reads. */
    static final long TOUCH_MILLIS = 60_000;
    private final Database db;

    OperatorSessionStore(Database db) {
        this.db = db;
    }

    /** The stored form of a token: the hex SHA-256 (a token is 256 random bits: no salt needed). */
    static String hash(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    @Override
    public void open(String token, String user, long nowMillis, long idleMillis) {
        name("session.token", token, 1000);
        name("session.user", user, NAME_MAX);
        db.tx("open a console session of '" + user + "'", c -> {
            if (one(query(c, "SELECT role FROM app_user WHERE name = ?", rs -> rs.getString(1), user)).filter("operator"::equals).isEmpty())
                throw KnowledgeBaseException.invalid("session.user: '" + user + "' is not an operator");
            update(c, "DELETE FROM console_session WHERE last_used_ms < ?", nowMillis - idleMillis);
            long open = one(query(c, "SELECT COUNT(*) FROM console_session", rs -> rs.getLong(1))).orElse(0L);
            if (open >= MAX_SESSIONS) {
                // still full of sessions in use: the least recently used go
                Long cutoff = one(query(c, 1, "SELECT last_used_ms FROM console_session ORDER BY last_used_ms DESC LIMIT 1 OFFSET "
                        + (MAX_SESSIONS - 2), rs -> rs.getLong(1))).orElse(null);
                if (cutoff != null) update(c, "DELETE FROM console_session WHERE last_used_ms < ?", cutoff);
            }
            update(c, "INSERT INTO console_session (token_hash, user_name, created_ms, last_used_ms) VALUES (?, ?, ?, ?)",
                    hash(token), user, nowMillis, nowMillis);
            return null;
        });
    }

    /** A session found: its last use, its opening, and its user (null if gone). */
    private record Found(User user, long lastUsed, long created) {}

    @Override
    public Optional<User> operator(String token, long nowMillis, long idleMillis, long maxAgeMillis) {
        if (token == null || token.isEmpty() || token.length() > 1000) return Optional.empty();
        String h = hash(token);
        return db.tx("check a console session", c -> {
            Optional<Found> f = one(query(c, "SELECT u.name, u.class_name, u.rate, u.password_hash, u.role, s.last_used_ms, s.created_ms "
                    + "FROM console_session s LEFT JOIN app_user u ON u.name = s.user_name WHERE s.token_hash = ?",
                    rs -> new Found(rs.getString(1) == null ? null : UserStore.user(rs), rs.getLong(6), rs.getLong(7)), h));
            if (f.isEmpty()) return Optional.empty();
            Found s = f.get();
            if (nowMillis - s.lastUsed() > idleMillis || nowMillis - s.created() > maxAgeMillis || s.user() == null
                    || !s.user().isOperator()) {
                update(c, "DELETE FROM console_session WHERE token_hash = ?", h);
                return Optional.empty();
            }
            if (nowMillis - s.lastUsed() > Math.min(TOUCH_MILLIS, idleMillis / 4))
                update(c, "UPDATE console_session SET last_used_ms = ? WHERE token_hash = ? AND last_used_ms < ?", nowMillis, h, nowMillis);
            return Optional.of(s.user());
        });
    }

    @Override
    public boolean close(String token) {
        if (token == null || token.isEmpty() || token.length() > 1000) return false;
        return db.tx("end a console session", c -> update(c, "DELETE FROM console_session WHERE token_hash = ?", hash(token)) > 0);
    }

    @Override
    public int closeAll(String user) {
        return db.tx("end the console sessions of '" + user + "'", c -> update(c, "DELETE FROM console_session WHERE user_name = ?", user));
    }

    @Override
    public int count() {
        return db.tx("count console sessions", c -> one(query(c, "SELECT COUNT(*) FROM console_session", rs -> rs.getLong(1))).orElse(0L).intValue());
    }
}
