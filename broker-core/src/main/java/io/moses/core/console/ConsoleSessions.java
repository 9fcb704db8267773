package io.moses.core.console;

import io.moses.mdal.OperatorSessions;
import io.moses.model.User;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.function.LongSupplier;

/**
 * The console's logged-in operators: a random token (the cookie's value) per login, its session
 * kept in the knowledge base (only the token's hash), so that it is valid on every replica and a
 * logout, an idle time, its age (however busy it is) or the user's losing the operator role ends
 * it on every replica. Nothing is cached: each use reads one row (the console's few reads a
 * second), so a session ended on one replica is refused on the others at once. Methods throw
 * KnowledgeBaseException while the knowledge base is unavailable.
 */
final class ConsoleSessions {
    private final SecureRandom random = new SecureRandom();
    private final OperatorSessions store;
    private final long idleMillis;
    /** A session's absolute lifetime: past it the operator logs in again, however recently it was used. */
    static final long MAX_AGE_MILLIS = 12 * 3600_000L;
    private final LongSupplier clock;

    /** @param clock epoch milliseconds (replicas' clocks agree, see the optimizer lease) */
    ConsoleSessions(OperatorSessions store, long idleMillis, LongSupplier clock) {
        this.store = store;
        this.idleMillis = idleMillis;
        this.clock = clock;
    }

    /** A new session for the operator; its token. */
    String open(String user) {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        String token = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        store.open(token, user, clock.getAsLong(), idleMillis);
        return token;
    }

    /** The operator a token belongs to, as stored now; null when unknown, idle too long or no operator (then ended). */
    User user(String token) {
        if (token == null) return null;
        return store.operator(token, clock.getAsLong(), idleMillis, MAX_AGE_MILLIS).orElse(null);
    }

    void close(String token) {
        if (token != null) store.close(token);
    }
}
