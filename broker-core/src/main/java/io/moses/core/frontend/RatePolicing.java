package io.moses.core.frontend;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.moses.model.User;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Each user's agreed rate {@code l_u}, enforced: a token bucket per user that fills at the user's
 * share of it on this replica ({@code l_u / replicas}) and holds at most {@link RatePolicy#burstSeconds}
 * of that share (at least one request). A request takes a token or is over the rate; what is
 * done then is its class's policy ({@link #overRates}), else the broker's ({@link RatePolicy#overRate}):
 * a class whose policy is off is not policed at all.
 *
 * <p>The request path reads only memory: the user as the authenticator found it in the users
 * cache (so a changed subscription takes effect at the cache's next refresh), the classes'
 * policies and the number of live replicas, set off the request path by {@link #update}. Each
 * bucket is its own lock, held for a few arithmetic operations; users never wait on each other.
 *
 * <p>A user above its rate for longer than {@link #EPISODE_WINDOW_NANOS} (its excess requests
 * coming with gaps shorter than that) is an over-rate episode, given to the listener
 * ({@link #onEpisode}) from {@link #update}, off the request path: at each update while it lasts,
 * the first time marked {@link Episode#first} (in a cluster the listener makes of the replicas'
 * views of it one episode). One log line when an episode begins and one when it ends (quiet for
 * the window), however often the user's requests alternate between conforming and excess meanwhile.
 */
public final class RatePolicing {
    private static final String USER_REQUESTS = "moses.policing.user.requests";
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(RatePolicing.class);
    /** How long a user must run above its rate before it is reported, and the quiet gap that ends an episode: 5 s. */
    static final long EPISODE_WINDOW_NANOS = 5_000_000_000L;
    public static final java.time.Duration EPISODE_WINDOW = java.time.Duration.ofNanos(EPISODE_WINDOW_NANOS);

    private final RatePolicy policy;
    /** The broker's wall clock (when an episode began) and its monotonic one (the buckets, the episodes' lengths). */
    private final java.time.Clock wall;
    private final LongSupplier nanos;
    private final MeterRegistry registry;
    private final boolean usersInMetrics;
    private final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Tally> userTallies = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Tally> classTallies = new ConcurrentHashMap<>();
    private volatile int replicas = 1;
    private volatile Map<String, RatePolicy.OverRate> classPolicies = Map.of();
    private volatile Consumer<Episode> episodes = e -> {};

    /**
     * A request over the rate: the rate the user agreed, this replica's share of it, when a
     * token is back, and whether it is to be served best-effort (else refused).
     */
    record Excess(User user, double share, int replicas, long retryAfterSeconds, boolean bestEffort) {
        String reason() {
            String s = "over the agreed rate: user " + user.name() + " (class " + user.serviceClass() + ") agreed "
                    + fmt(user.rate()) + " req/s";
            if (replicas > 1) s += " (" + fmt(share) + " req/s on each of " + replicas + " replicas)";
            return s + (bestEffort ? "; requests above it are served only with spare capacity"
                    : "; requests above it are refused") + "; retry after " + retryAfterSeconds + " s";
        }
    }

    /**
     * A user that has run above its agreed rate for the episode window: how long so far and how
     * many requests above it, its first and latest request above it (wall clock), and whether
     * this replica gives it for the first time.
     */
    public record Episode(User user, RatePolicy.OverRate overRate, double seconds, long excessRequests,
                          java.time.Instant since, java.time.Instant last, boolean first) {
        public String detail() {
            return "user " + user.name() + " (class " + user.serviceClass() + ") has sent above its agreed rate of " + fmt(user.rate())
                    + " req/s for " + String.format(java.util.Locale.ROOT, "%.1f", seconds) + " s: " + excessRequests + " requests above it, "
                    + (overRate == RatePolicy.OverRate.BEST_EFFORT ? "served only with spare capacity" : "refused with 429");
        }
    }

    /** Conforming, rejected (429), excess served best-effort and excess shed (503) requests of one user or class. */
    static final class Tally {
        final LongAdder conforming = new LongAdder();
        final LongAdder rejected = new LongAdder();
        final LongAdder excess = new LongAdder();
        final LongAdder shed = new LongAdder();

        long conforming() {
            return conforming.sum();
        }

        long rejected() {
            return rejected.sum();
        }

        /** Requests above the rate served best-effort. */
        long excess() {
            return excess.sum();
        }

        /** Requests above the rate refused best-effort for want of spare capacity. */
        long shed() {
            return shed.sum();
        }
    }

    /** Whether any class is policed, kept with the class policies: the request path reads it on every request. */
    private volatile boolean polices;

    /**
     * @param registry      where the per-class counters go (null: none)
     * @param usersInMetrics whether the per-user counters go there too (their series name users,
     *                      which whoever reads the metrics then learns)
     * @param wall          the broker's wall clock
     * @param nanos         the broker's monotonic clock
     */
    public RatePolicing(RatePolicy policy, MeterRegistry registry, boolean usersInMetrics, java.time.Clock wall, LongSupplier nanos) {
        this.policy = policy;
        this.registry = registry;
        this.usersInMetrics = usersInMetrics;
        this.wall = wall;
        this.nanos = nanos;
        this.polices = policy.polices();
    }

    RatePolicy policy() {
        return policy;
    }

    /**
     * Off the request path (each refresh): the number of live replicas the agreed rates are
     * shared by, and the users there are; buckets and counters of users no longer there are
     * dropped (users who come and go must not grow the memory or the metrics without bound).
     */
    public void update(Collection<User> users, int liveReplicas) {
        replicas = Math.max(1, liveReplicas);
        Set<String> names = new HashSet<>();
        for (User u : users) names.add(u.name());
        buckets.keySet().retainAll(names);
        for (String gone : new ArrayList<>(userTallies.keySet())) {
            if (names.contains(gone)) continue;
            userTallies.remove(gone);
            if (registry != null) registry.find(USER_REQUESTS).tag("user", gone).meters().forEach(registry::remove);
        }
        long now = nanos.getAsLong();
        for (var entry : buckets.entrySet()) {
            Bucket b = entry.getValue();
            long ended = b.ended(now);
            if (ended > 0) log.info("user {} is within its agreed rate again; {} requests were above it", entry.getKey(), ended);
            Episode e = b.episodeToReport(now);
            if (e == null) continue;
            try {
                episodes.accept(e);
            } catch (RuntimeException ex) {
                // the listener logs its own failures; the next episode is reported all the same
            }
        }
    }

    public int replicas() {
        return replicas;
    }

    /** Off the request path: the classes that name their own policy (the others follow the broker's). */
    public void overRates(Map<String, io.moses.model.OverRate> byClass) {
        Map<String, RatePolicy.OverRate> m = new HashMap<>();
        byClass.forEach((k, o) -> m.put(k, RatePolicy.OverRate.of(o)));
        classPolicies = Map.copyOf(m);
        polices = policy.polices() || m.values().stream().anyMatch(o -> o != RatePolicy.OverRate.OFF);
    }

    /** The policy for requests above the rate of a user of {@code serviceClass}. */
    RatePolicy.OverRate overRate(String serviceClass) {
        RatePolicy.OverRate own = classPolicies.get(serviceClass);
        return own != null ? own : policy.overRate();
    }

    /** Whether any class is policed (the broker's default or a class's own policy is not off). */
    public boolean polices() {
        return polices;
    }

    /** Where over-rate episodes are reported (from {@link #update}, off the request path). */
    public void onEpisode(Consumer<Episode> listener) {
        this.episodes = listener;
    }

    /**
     * Takes a token of {@code user}'s bucket: null when the request conforms (or its class is
     * not policed), else what it exceeds. A best-effort excess is counted when the overload bound
     * has given it a place or refused it ({@link #bestEffort}).
     */
    Excess take(User user) {
        RatePolicy.OverRate mode = overRate(user.serviceClass());
        if (mode == RatePolicy.OverRate.OFF) return null;
        int n = replicas;
        Bucket b = buckets.computeIfAbsent(user.name(), k -> new Bucket());
        long now = nanos.getAsLong();
        long retryAfter = b.take(user, n, policy.burstSeconds(), now, wall, mode);
        Tally ut = tally(userTallies, user.name(), USER_REQUESTS, "user");
        Tally ct = tally(classTallies, user.serviceClass(), "moses.policing.class.requests", "class");
        if (retryAfter == 0) {
            ut.conforming.increment();
            ct.conforming.increment();
            return null;
        }
        boolean bestEffort = mode == RatePolicy.OverRate.BEST_EFFORT;
        if (b.began(now))
            log.warn("user {} ({}) sends above its agreed rate of {} req/s; {}", user.name(), user.serviceClass(), fmt(user.rate()),
                    bestEffort ? "serving the excess best-effort" : "refusing the excess with 429");
        if (!bestEffort) {
            ut.rejected.increment();
            ct.rejected.increment();
        }
        return new Excess(user, user.rate() / n, n, retryAfter, bestEffort);
    }

    /** A best-effort excess got a place ({@code served}) or was refused for want of spare capacity. */
    void bestEffort(Excess e, boolean served) {
        Tally ut = tally(userTallies, e.user().name(), USER_REQUESTS, "user");
        Tally ct = tally(classTallies, e.user().serviceClass(), "moses.policing.class.requests", "class");
        (served ? ut.excess : ut.shed).increment();
        (served ? ct.excess : ct.shed).increment();
    }

    /** For the admin API's class rows: the class's policy and its requests on this replica by verdict (since start). */
    public Map<String, Object> describe(String serviceClass) {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("overRate", io.moses.model.OverRate.valueOf(overRate(serviceClass).name()).label());
        Tally t = classTallies.get(serviceClass);
        m.put("conforming", t == null ? 0 : t.conforming());
        m.put("excess", t == null ? 0 : t.excess());
        m.put("shed", t == null ? 0 : t.shed());
        m.put("rejected", t == null ? 0 : t.rejected());
        return m;
    }

    Tally user(String name) {
        return userTallies.get(name);
    }

    Tally serviceClass(String name) {
        return classTallies.get(name);
    }

    private Tally tally(ConcurrentHashMap<String, Tally> tallies, String key, String metric, String label) {
        Tally t = tallies.get(key);
        if (t != null) return t;
        return tallies.computeIfAbsent(key, k -> {
            Tally nt = new Tally();
            if (registry != null && (usersInMetrics || tallies != userTallies)) {
                FunctionCounter.builder(metric, nt, x -> x.conforming.sum()).tags(label, k, "verdict", "conforming")
                        .description("composite requests within the agreed rate").register(registry);
                FunctionCounter.builder(metric, nt, x -> x.rejected.sum()).tags(label, k, "verdict", "rejected")
                        .description("composite requests refused above the agreed rate (HTTP 429)").register(registry);
                FunctionCounter.builder(metric, nt, x -> x.excess.sum()).tags(label, k, "verdict", "excess")
                        .description("composite requests above the agreed rate served best-effort").register(registry);
                FunctionCounter.builder(metric, nt, x -> x.shed.sum()).tags(label, k, "verdict", "shed")
                        .description("composite requests above the agreed rate refused best-effort for want of spare capacity (HTTP 503)")
                        .register(registry);
            }
            return nt;
        });
    }

    /**
     * One user's tokens. Its rate and capacity follow the agreed rate and the replica count
     * it is given at each take, so a changed subscription or cluster re-rates it in place
     * (keeping the tokens it has, up to the new capacity). It also keeps the user's current
     * over-rate episode.
     */
    private static final class Bucket {
        private double agreed = Double.NaN;
        private int replicas;
        private double perNano;
        private double capacity;
        private double tokens;
        private long last;
        private User user;
        private RatePolicy.OverRate mode;
        /** The current episode: its first and latest excess request, how many, and whether it was reported. */
        private boolean over;
        private long overSince;
        /** The wall clock when the episode began (its later times follow the monotonic clock from there). */
        private long overSinceWall;
        private long lastOver;
        private long excess;
        private boolean reported;

        /** 0 when a token was taken, else the seconds until one is back (at least 1). */
        synchronized long take(User u, int n, double burstSeconds, long now, java.time.Clock wall, RatePolicy.OverRate mode) {
            double agreedRate = u.rate();
            user = u;
            this.mode = mode;
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
            if (!over || now - lastOver > EPISODE_WINDOW_NANOS) { // a new episode
                over = true;
                overSince = now;
                overSinceWall = wall.millis();
                excess = 0;
                reported = false;
            }
            lastOver = now;
            excess++;
            if (perNano <= 0) return 60; // an agreed rate of 0: no request conforms until the subscription changes
            return Math.max(1, (long) Math.ceil((1 - tokens) / (perNano * 1e9)));
        }

        /** Whether the take at {@code now} began an episode (for one log line per episode). */
        synchronized boolean began(long now) {
            return over && overSince == now && excess == 1;
        }

        /** An episode quiet for the window is over: its count of excess requests, else 0. */
        synchronized long ended(long now) {
            if (!over || now - lastOver <= EPISODE_WINDOW_NANOS) return 0;
            over = false;
            return excess;
        }

        /** The episode while it lasts, once it has lasted the window ({@code first} the first time). */
        synchronized Episode episodeToReport(long now) {
            if (!over) return null;
            if (lastOver - overSince < EPISODE_WINDOW_NANOS) return null;
            boolean first = !reported;
            reported = true;
            java.time.Instant since = java.time.Instant.ofEpochMilli(overSinceWall);
            return new Episode(user, mode, (lastOver - overSince) / 1e9, excess, since, since.plusNanos(lastOver - overSince), first);
        }
    }

    static String fmt(double rate) {
        return new java.math.BigDecimal(rate, new java.math.MathContext(4)).stripTrailingZeros().toPlainString();
    }
}
