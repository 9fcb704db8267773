package io.moses.core.frontend;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.moses.model.User;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Each user's agreed rate {@code l_u}, enforced: a token bucket per user that fills at the user's
 * share of it on this replica ({@code l_u / replicas}) and holds at most {@link RatePolicy#burstSeconds}
 * of that share (at least one request). A request takes a token or is over the rate.
 *
 * <p>The request path reads only memory: the user as the authenticator found it in the users
 * cache (so a changed subscription takes effect at the cache's next refresh) and the number
 * of live replicas, set off the request path by {@link #update}. Each bucket is its own lock,
 * held for a few arithmetic operations; users never wait on each other.
 */
public final class RatePolicing {
    private final RatePolicy policy;
    private final LongSupplier nanos;
    private final MeterRegistry registry;
    private final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Tally> userTallies = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Tally> classTallies = new ConcurrentHashMap<>();
    private volatile int replicas = 1;

    /** A request over the rate: the rate the user agreed, this replica's share of it, and when a token is back. */
    public record Excess(User user, double share, int replicas, long retryAfterSeconds) {
        String reason() {
            String s = "over the agreed rate: user " + user.name() + " (class " + user.serviceClass() + ") agreed "
                    + fmt(user.rate()) + " req/s";
            if (replicas > 1) s += " (" + fmt(share) + " req/s on each of " + replicas + " replicas)";
            return s + "; requests above it are refused; retry after " + retryAfterSeconds + " s";
        }
    }

    /** Conforming and rejected requests of one user or class. */
    public static final class Tally {
        final LongAdder conforming = new LongAdder();
        final LongAdder rejected = new LongAdder();

        public long conforming() {
            return conforming.sum();
        }

        public long rejected() {
            return rejected.sum();
        }
    }

    /** @param registry where the per-user and per-class counters go (null: none) */
    public RatePolicing(RatePolicy policy, MeterRegistry registry) {
        this(policy, registry, System::nanoTime);
    }

    RatePolicing(RatePolicy policy, MeterRegistry registry, LongSupplier nanos) {
        this.policy = policy;
        this.registry = registry;
        this.nanos = nanos;
    }

    public RatePolicy policy() {
        return policy;
    }

    /**
     * Off the request path (each refresh): the number of live replicas the agreed rates are
     * shared by, and the users there are; buckets of users no longer there are dropped.
     */
    public void update(Collection<User> users, int liveReplicas) {
        replicas = Math.max(1, liveReplicas);
        Set<String> names = new HashSet<>();
        for (User u : users) names.add(u.name());
        buckets.keySet().retainAll(names);
    }

    public int replicas() {
        return replicas;
    }

    /** Takes a token of {@code user}'s bucket: null when the request conforms, else what it exceeds. */
    public Excess take(User user) {
        int n = replicas;
        Bucket b = buckets.computeIfAbsent(user.name(), k -> new Bucket());
        long retryAfter = b.take(user.rate(), n, policy.burstSeconds(), nanos.getAsLong());
        Tally ut = tally(userTallies, user.name(), "moses.policing.user.requests", "user");
        Tally ct = tally(classTallies, user.serviceClass(), "moses.policing.class.requests", "class");
        if (retryAfter == 0) {
            ut.conforming.increment();
            ct.conforming.increment();
            return null;
        }
        ut.rejected.increment();
        ct.rejected.increment();
        return new Excess(user, user.rate() / n, n, retryAfter);
    }

    public Tally user(String name) {
        return userTallies.get(name);
    }

    public Tally serviceClass(String name) {
        return classTallies.get(name);
    }

    private Tally tally(ConcurrentHashMap<String, Tally> tallies, String key, String metric, String label) {
        Tally t = tallies.get(key);
        if (t != null) return t;
        return tallies.computeIfAbsent(key, k -> {
            Tally nt = new Tally();
            if (registry != null) {
                FunctionCounter.builder(metric, nt, x -> x.conforming.sum()).tags(label, k, "verdict", "conforming")
                        .description("composite requests within the agreed rate").register(registry);
                FunctionCounter.builder(metric, nt, x -> x.rejected.sum()).tags(label, k, "verdict", "rejected")
                        .description("composite requests refused above the agreed rate (HTTP 429)").register(registry);
            }
            return nt;
        });
    }

    /**
     * One user's tokens. Its rate and capacity follow the agreed rate and the replica count
     * it is given at each take, so a changed subscription or cluster re-rates it in place
     * (keeping the tokens it has, up to the new capacity).
     */
    private static final class Bucket {
        private double agreed = Double.NaN;
        private int replicas;
        private double perNano;
        private double capacity;
        private double tokens;
        private long last;

        /** 0 when a token was taken, else the seconds until one is back (at least 1). */
        synchronized long take(double agreedRate, int n, double burstSeconds, long now) {
            if (agreedRate != agreed || n != replicas) {
                boolean first = Double.isNaN(agreed);
                double share = agreedRate / n;
                agreed = agreedRate;
                replicas = n;
                perNano = share / 1e9;
                capacity = share > 0 ? Math.max(1, share * burstSeconds) : 0;
                tokens = first ? capacity : Math.min(tokens, capacity);
                if (first) last = now;
            }
            tokens = Math.min(capacity, tokens + (now - last) * perNano);
            last = now;
            if (tokens >= 1) {
                tokens -= 1;
                return 0;
            }
            if (perNano <= 0) return 60; // an agreed rate of 0: no request conforms until the subscription changes
            return Math.max(1, (long) Math.ceil((1 - tokens) / (perNano * 1e9)));
        }
    }

    static String fmt(double rate) {
        return new java.math.BigDecimal(rate, new java.math.MathContext(4)).stripTrailingZeros().toPlainString();
    }
}
