package io.moses.core.console;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The console's logged-in operators: a random token (the cookie's value) to the operator's
 * name, forgotten after an idle time. In memory: a restart logs everybody out, and each
 * replica has its own (a balancer in front of a cluster keeps a console on one replica, or the
 * operator logs in again).
 */
final class ConsoleSessions {
    static final int MAX_SESSIONS = 1_000;
    private final SecureRandom random = new SecureRandom();
    private final Map<String, Session> sessions = new ConcurrentHashMap<>();
    private final long idleNanos;
    private final LongSupplier clock;

    private static final class Session {
        final String user;
        volatile long lastUsed;

        Session(String user, long now) {
            this.user = user;
            this.lastUsed = now;
        }
    }

    ConsoleSessions(long idleMillis, LongSupplier nanoClock) {
        this.idleNanos = idleMillis * 1_000_000;
        this.clock = nanoClock;
    }

    /** A new session for the operator; its token. */
    String open(String user) {
        long now = clock.getAsLong();
        if (sessions.size() >= MAX_SESSIONS) {
            sessions.values().removeIf(s -> now - s.lastUsed > idleNanos);
            // still full: the least recently used goes
            if (sessions.size() >= MAX_SESSIONS)
                sessions.entrySet().stream().min((x, y) -> Long.compare(x.getValue().lastUsed, y.getValue().lastUsed))
                        .ifPresent(e -> sessions.remove(e.getKey()));
        }
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        String token = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        sessions.put(token, new Session(user, now));
        return token;
    }

    /** The operator a token belongs to, null when unknown or idle too long (then forgotten). */
    String user(String token) {
        if (token == null) return null;
        Session s = sessions.get(token);
        if (s == null) return null;
        long now = clock.getAsLong();
        if (now - s.lastUsed > idleNanos) {
            sessions.remove(token);
            return null;
        }
        s.lastUsed = now;
        return s.user;
    }

    void close(String token) {
        if (token != null) sessions.remove(token);
    }

    int size() {
        return sessions.size();
    }
}
