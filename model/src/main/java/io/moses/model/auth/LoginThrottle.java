package io.moses.model.auth;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Makes password guessing slow and cheap for the broker. After {@link #FREE_FAILURES} failed
 * logins in a row for one user name (known or not), every further attempt for that name is
 * refused at once, without hashing, for a delay that doubles with each failure (1 s, 2 s, 4 s
 * ... up to 5 minutes); a successful login clears the count. One client address is held to the
 * same rule after {@link #FREE_CLIENT_FAILURES} failures at any names (so that one client cannot
 * try one password against many names), and a success does not clear its count (a client with
 * one account of its own could otherwise reset it between guesses): it is forgotten after
 * {@link #CLIENT_MEMORY_NANOS} without a failure. And the slow hashes themselves run a few at a
 * time: a login that cannot start its hash within a short wait is refused as busy, so guesses at
 * many names at once queue for a hashing place instead of taking every request thread. Logins
 * that are already known (a verified password kept in memory) never come here.
 *
 * <p>The client is the one the current thread serves, named by {@link #fromClient} where the
 * request arrives: the authenticators below see a request's credentials, not its connection.
 */
public final class LoginThrottle {
    /** Failed logins in a row a user name gets before its attempts are delayed. */
    public static final int FREE_FAILURES = 5;
    /** Failed logins, at any names, one client address gets before its attempts are delayed. */
    public static final int FREE_CLIENT_FAILURES = 20;
    static final long FIRST_DELAY_NANOS = TimeUnit.SECONDS.toNanos(1);
    static final long MAX_DELAY_NANOS = TimeUnit.MINUTES.toNanos(5);
    static final long CLIENT_MEMORY_NANOS = TimeUnit.MINUTES.toNanos(15);
    /** Names (and client addresses) tracked at most; past it, those whose delay is over are forgotten first. */
    static final int MAX_TRACKED = 100_000;

    private final Semaphore hashing;
    private final long hashWaitNanos;
    private final LongSupplier nanos;
    private final Map<String, Failures> failures = new ConcurrentHashMap<>();
    private final Map<String, Failures> clientFailures = new ConcurrentHashMap<>();
    private final ThreadLocal<String> client = new ThreadLocal<>();

    private record Failures(int count, long lastNanos) {}

    /** While open, the logins this thread checks are {@code address}'s; closing restores the one before. */
    public interface ClientScope extends AutoCloseable {
        @Override
        void close();
    }

    /** Refused without a check: too many failures for the name, or no hashing place in time. */
    public static final class Refused extends RuntimeException {
        private final long retryAfterSeconds;

        Refused(String message, long retryAfterSeconds) {
            super(message, null, false, false);
            this.retryAfterSeconds = retryAfterSeconds;
        }

        public long retryAfterSeconds() {
            return retryAfterSeconds;
        }
    }

    /**
     * @param hashes   slow hashes run at once
     * @param hashWait how long a login waits for a hashing place before it is refused as busy
     * @param nanos    a monotonic clock in nanoseconds
     */
    public LoginThrottle(int hashes, Duration hashWait, LongSupplier nanos) {
        if (hashes < 1) throw new IllegalArgumentException("at least one hash at a time, got " + hashes);
        this.hashing = new Semaphore(hashes, true);
        this.hashWaitNanos = hashWait.toNanos();
        this.nanos = nanos;
    }

    /**
     * Half the cores hash at once, at least two, waiting up to 10 s for a place. A hash takes a
     * few hundred ms of a core at 600,000 iterations (more on a loaded machine), and only a
     * user's first login on a replica needs one: on two cores, with one place and 5 s, four
     * users' first logins at once on a loaded machine were refused as busy (ClusterTest, in CI).
     */
    public static LoginThrottle defaults() {
        return new LoginThrottle(Math.max(2, Runtime.getRuntime().availableProcessors() / 2), Duration.ofSeconds(10), System::nanoTime);
    }

    /**
     * Checks a login for {@code user} with {@code check} (the slow hash; false for a wrong password
     * or an unknown user), unless the name's failures or a busy hashing pool refuse it first.
     *
     * @return the check's answer
     * @throws Refused with the reason and when to retry; the check did not run
     */
    public boolean check(String user, BooleanSupplier check) {
        String name = user == null ? "" : user;
        String from = client.get();
        long now = nanos.getAsLong();
        long wait = from == null ? 0 : waitFor(clientFailures.get(from), FREE_CLIENT_FAILURES, now);
        if (wait > 0) throw refused("too many failed logins from " + from, wait);
        wait = waitFor(failures.get(name), FREE_FAILURES, now);
        if (wait > 0) throw refused("too many failed logins for user '" + name + "'", wait);
        boolean placed;
        try {
            placed = hashing.tryAcquire(hashWaitNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            placed = false;
        }
        if (!placed) {
            // it held a request thread while it waited: a client sending many such logins is
            // delayed as one that guesses, or it could hold the threads without ever failing
            if (from != null) failed(clientFailures, from, CLIENT_MEMORY_NANOS);
            throw new Refused("too many logins are being checked at once: retry after 1 s", 1);
        }
        boolean ok;
        try {
            ok = check.getAsBoolean();
        } finally {
            hashing.release();
        }
        if (ok) {
            failures.remove(name);
        } else {
            failed(failures, name, Long.MAX_VALUE);
            if (from != null) failed(clientFailures, from, CLIENT_MEMORY_NANOS);
        }
        return ok;
    }

    /**
     * Names the client whose logins this thread checks until the scope is closed (a request's
     * address, where it arrives; null: none).
     */
    public ClientScope fromClient(String address) {
        String before = client.get();
        client.set(address);
        return () -> {
            if (before == null) client.remove();
            else client.set(before);
        };
    }

    /** Nanoseconds until {@code f}'s delay is over (0 or less: none). */
    private static long waitFor(Failures f, int free, long now) {
        if (f == null || f.count() < free) return 0;
        return f.lastNanos() + delayAfter(f.count() - free + FREE_FAILURES) - now;
    }

    private static Refused refused(String what, long waitNanos) {
        long seconds = Math.max(1, TimeUnit.NANOSECONDS.toSeconds(waitNanos + 999_999_999L));
        return new Refused(what + ": retry after " + seconds + " s", seconds);
    }

    /** Counts a failure for {@code key}; a count older than {@code memoryNanos} starts again. */
    private void failed(Map<String, Failures> counts, String key, long memoryNanos) {
        long now = nanos.getAsLong();
        if (counts.size() >= MAX_TRACKED) counts.values().removeIf(x -> now - x.lastNanos() > MAX_DELAY_NANOS);
        if (counts.size() >= MAX_TRACKED) counts.clear(); // a flood of names: forget rather than grow
        counts.merge(key, new Failures(1, now),
                (a, b) -> now - a.lastNanos() > memoryNanos ? new Failures(1, now) : new Failures(a.count() + 1, now));
    }

    /** The delay after {@code count} failures in a row (count at least FREE_FAILURES). */
    static long delayAfter(int count) {
        int doublings = Math.min(30, count - FREE_FAILURES);
        return Math.min(MAX_DELAY_NANOS, FIRST_DELAY_NANOS << doublings);
    }
}
