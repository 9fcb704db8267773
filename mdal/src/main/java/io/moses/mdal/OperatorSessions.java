package io.moses.mdal;

import io.moses.model.User;
import java.util.Optional;

/**
 * Console logins, valid on every replica. A session is known by its token, a random
 * secret the browser holds in a cookie; only the token's SHA-256 is stored, so the table gives
 * nobody a way in. A session ends at logout, after an idle time, or when its user is removed or
 * stops being an operator: every replica checks that on each use. Times are the caller's clock in
 * epoch milliseconds (replicas' clocks must agree to well within the idle time). Errors as in
 * {@link KnowledgeBase}.
 */
public interface OperatorSessions {
    /** At most this many sessions are kept; a login beyond drops the least recently used. */
    int MAX_SESSIONS = 1_000;

    /**
     * Stores a new session of operator {@code user} under {@code token}; also forgets sessions
     * idle longer than {@code idleMillis}. INVALID when the user does not exist or is no operator.
     */
    void open(String token, String user, long nowMillis, long idleMillis);

    /**
     * The operator (as stored now) whose session {@code token} is, if it was used within
     * {@code idleMillis} and its user still is an operator; the session is then marked used (at most once a minute, to
     * keep reads cheap). A session found idle too long, or whose user is no operator, is ended.
     */
    default Optional<User> operator(String token, long nowMillis, long idleMillis) {
        return operator(token, nowMillis, idleMillis, Long.MAX_VALUE);
    }

    /** As above, and a session opened more than {@code maxAgeMillis} ago is ended however recently it was used. */
    Optional<User> operator(String token, long nowMillis, long idleMillis, long maxAgeMillis);

    /** Ends the session {@code token} (a logout); true when there was one. */
    boolean close(String token);

    /** Ends every session of {@code user}; how many there were. */
    int closeAll(String user);

    /** How many sessions are stored. */
    int count();
}
