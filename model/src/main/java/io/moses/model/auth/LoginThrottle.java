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
 * ... up to 5 minutes); a successful login clears the count. And the slow hashes themselves run
 * a few at a time: a login that cannot start its hash within a short wait is refused as busy, so
 * guesses at many names at once queue for a hashing place instead of taking every request thread.
 * Logins that are already known (a verified password kept in memory) never come here.
 */
public final class LoginThrottle {
    /** Failed logins in a row a user name gets before its attempts are delayed. */
    public static final int FREE_FAILURES = 5;
    static final long FIRST_DELAY_NANOS = TimeUnit.SECONDS.toNanos(1);
    static final long MAX_DELAY_NANOS = TimeUnit.MINUTES.toNanos(5);
    /** Names tracked at most; past it, those whose delay is over are forgotten first. */
    static final int MAX_TRACKED = 100_000;

    private final Semaphore hashing;
    private final long hashWaitNanos;
    private final LongSupplier nanos;
    private final Map<String, Failures> failures = new ConcurrentHashMap<>();

    private record Failures(int count, long lastNanos) {}

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

    /** Half the cores hash at once (at least one: the other half serves requests), waiting up to 5 s for a place. */
    public static LoginThrottle defaults() {
        return new LoginThrottle(Math.max(1, Runtime.getRuntime().availableProcessors() / 2), Duration.ofSeconds(5), System::nanoTime);
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
        Failures f = failures.get(name);
        if (f != null && f.count() >= FREE_FAILURES) {
            long wait = f.lastNanos() + delayAfter(f.count()) - nanos.getAsLong();
            if (wait > 0) {
                long seconds = Math.max(1, TimeUnit.NANOSECONDS.toSeconds(wait + 999_999_999L));
                throw new Refused("too many failed logins for user '" + name + "': retry after " + seconds + " s", seconds);
            }
        }
        boolean placed;
        try {
            placed = hashing.tryAcquire(hashWaitNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            placed = false;
        }
        if (!placed) throw new Refused("too many logins are being checked at once: retry after 1 s", 1);
        boolean ok;
        try {
            ok = check.getAsBoolean();
        } finally {
            hashing.release();
        }
        if (ok) failures.remove(name);
        else failed(name);
        return ok;
    }

    private void failed(String name) {
        long now = nanos.getAsLong();
        if (failures.size() >= MAX_TRACKED) failures.values().removeIf(x -> now - x.lastNanos() > MAX_DELAY_NANOS);
        if (failures.size() >= MAX_TRACKED) failures.clear(); // a flood of names: forget rather than grow
        failures.merge(name, new Failures(1, now), (a, b) -> new Failures(a.count() + 1, now));
    }

    /** The delay after {@code count} failures in a row (count at least FREE_FAILURES). */
    static long delayAfter(int count) {
        int doublings = Math.min(30, count - FREE_FAILURES);
        return Math.min(MAX_DELAY_NANOS, FIRST_DELAY_NANOS << doublings);
    }
}
