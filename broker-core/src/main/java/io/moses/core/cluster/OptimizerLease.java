package io.moses.core.cluster;

import io.moses.core.loop.Replicas;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.KnowledgeBaseException;
import io.moses.mdal.Lease;
import io.moses.mdal.ReplicaWindow;
import io.moses.monitor.QosMonitor;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One optimizer leader among the replicas sharing a knowledge base: a lease row that the
 * holder renews every {@code ttl / 3}; when the holder dies or cannot reach the database, the
 * lease runs out and the next replica to try takes it (within {@code ttl} plus one renewal
 * period). A holder that cannot renew steps down on its own clock before the lease can have
 * passed to another, so two replicas never both believe they lead (given clocks that agree to
 * well within {@link #SAFETY}).
 *
 * <p>Also carries the replicas' monitoring windows: each replica replaces its own rows once
 * per monitor period; the leader reads the recent rows of the others and merges them into
 * its own window, sample-weighted.
 */
public final class OptimizerLease implements Replicas {
    private static final Logger log = LoggerFactory.getLogger(OptimizerLease.class);
    public static final String NAME = "optimizer";
    /** Stop leading this long before the lease could expire in the database. */
    static final Duration SAFETY = Duration.ofMillis(500);

    private final KnowledgeBase kb;
    private final String replica;
    private final Duration ttl;
    private final Duration windowMaxAge;
    private final Runnable onLeadership;
    /** The wall clock the lease's expiry in the database is written and compared on. */
    private final Clock wall;
    /** A monotonic nanosecond clock (System.nanoTime in production) for this replica's own step-down. */
    private final LongSupplier nanos;
    /** {@link #nanos} until which this replica may act as leader; 0 when it does not lead. */
    private volatile long leadsUntil;
    private volatile Lease last;
    private volatile boolean databaseUp = true;
    /** Whether the last renewal's outcome was "this replica leads", for one log line per change. */
    private boolean reportedLeading;

    /**
     * On the system's clocks: tests; the broker passes its own.
     *
     * @param replica      this replica's name, unique in the cluster
     * @param ttl          how long a lease lasts without renewal
     * @param windowMaxAge other replicas' windows older than this are ignored (a replica gone)
     * @param onLeadership run when this replica takes the lease (not on renewals)
     */
    OptimizerLease(KnowledgeBase kb, String replica, Duration ttl, Duration windowMaxAge, Runnable onLeadership) {
        this(kb, replica, ttl, windowMaxAge, onLeadership, Clock.systemUTC(), System::nanoTime);
    }

    /** On the broker's clocks (the wiring's), so that a test can also let a lease run out without waiting. */
    public OptimizerLease(KnowledgeBase kb, String replica, Duration ttl, Duration windowMaxAge, Runnable onLeadership,
                   Clock wall, LongSupplier nanos) {
        this.wall = wall;
        this.nanos = nanos;
        this.kb = kb;
        this.replica = replica;
        this.ttl = ttl;
        this.windowMaxAge = windowMaxAge;
        this.onLeadership = onLeadership;
    }

    /** How often {@link #renew} should run. */
    public Duration renewPeriod() {
        return ttl.dividedBy(3);
    }

    /** Takes or renews the lease; called on a timer, off the request path. */
    public synchronized void renew() {
        long started = nanos.getAsLong();
        if (reportedLeading && !leads()) {
            // the lease ran out here before a renewal got through (database away, or this process stalled)
            reportedLeading = false;
            log.warn("this replica ({}) stopped leading the optimizer: its lease ran out before it could be renewed", replica);
        }
        boolean before = leads();
        try {
            Lease l = kb.acquireLease(NAME, replica, wall.instant(), ttl);
            last = l;
            if (!databaseUp) {
                databaseUp = true;
                log.info("optimizer lease: knowledge base reachable again, lease held by {} (term {})", l.holder(), l.term());
            }
            if (l.heldBy(replica)) {
                leadsUntil = started + ttl.minus(SAFETY).toNanos();
                if (!before) {
                    reportedLeading = true;
                    log.info("this replica ({}) leads the optimizer (term {})", replica, l.term());
                    onLeadership.run();
                }
            } else {
                leadsUntil = 0;
                if (reportedLeading) log.warn("this replica ({}) lost the optimizer lease to {} (term {})", replica, l.holder(), l.term());
                reportedLeading = false;
            }
        } catch (KnowledgeBaseException e) {
            if (databaseUp) {
                databaseUp = false;
                log.warn("optimizer lease cannot be renewed ({}); {}", e.getMessage(),
                        before ? "this replica stops leading when its lease runs out" : "no takeover while the database is away");
            }
        }
    }

    @Override
    public boolean leads() {
        long until = leadsUntil;
        return until != 0 && nanos.getAsLong() - until < 0;
    }

    /** The lease as last seen, or null. */
    public Lease lastSeen() {
        return last;
    }

    String replica() {
        return replica;
    }

    /** Gives the lease up (a replica that stops), so another takes over at once. */
    public synchronized void release() {
        boolean was = leads();
        leadsUntil = 0;
        reportedLeading = false;
        if (!was) return;
        try {
            if (kb.releaseLease(NAME, replica)) log.info("this replica ({}) released the optimizer lease", replica);
        } catch (KnowledgeBaseException e) {
            // it runs out by itself
        }
    }

    @Override
    public void publish(Map<String, QosMonitor.ServiceStats> local) {
        if (!databaseUp) return; // the lease's renewals find out when it is back; no second error per period
        Instant now = wall.instant();
        List<ReplicaWindow> windows = new ArrayList<>();
        for (QosMonitor.ServiceStats s : local.values())
            windows.add(new ReplicaWindow(replica, s.service(), s.successes(), s.failures(),
                    s.successes() > 0 ? s.responseTime() : 0, now));
        try {
            kb.putReplicaWindows(replica, windows);
        } catch (KnowledgeBaseException e) {
            // the database is away: the next period publishes again
        }
    }

    @Override
    public Map<String, QosMonitor.ServiceStats> merged(Map<String, QosMonitor.ServiceStats> local) {
        if (!leads()) return local;
        List<ReplicaWindow> others;
        try {
            others = kb.replicaWindows(wall.instant().minus(windowMaxAge)).stream().filter(w -> !w.replica().equals(replica)).toList();
        } catch (KnowledgeBaseException e) {
            return local;
        }
        return merge(local, others);
    }

    /**
     * Sums successes and failures per service; the mean response time is weighted by successes.
     * Percentiles and latency samples stay the local ones (a window summary does not carry them).
     */
    static Map<String, QosMonitor.ServiceStats> merge(Map<String, QosMonitor.ServiceStats> local, List<ReplicaWindow> others) {
        if (others.isEmpty()) return local;
        Map<String, long[]> counts = new HashMap<>();
        Map<String, Double> weightedTime = new HashMap<>();
        for (QosMonitor.ServiceStats s : local.values()) {
            counts.put(s.service(), new long[] {s.successes(), s.failures()});
            weightedTime.put(s.service(), s.successes() > 0 ? s.responseTime() * s.successes() : 0.0);
        }
        for (ReplicaWindow w : others) {
            long[] c = counts.computeIfAbsent(w.service(), k -> new long[2]);
            c[0] += w.successes();
            c[1] += w.failures();
            weightedTime.merge(w.service(), w.responseTime() * w.successes(), Double::sum);
        }
        Map<String, QosMonitor.ServiceStats> out = new LinkedHashMap<>();
        counts.forEach((service, c) -> {
            QosMonitor.ServiceStats mine = local.get(service);
            long samples = c[0] + c[1];
            double r = c[0] > 0 ? weightedTime.get(service) / c[0] : Double.NaN;
            double a = samples > 0 ? (double) c[0] / samples : 1;
            // censored samples and failure times stay the local ones too: a summary carries neither
            out.put(service, new QosMonitor.ServiceStats(service, (int) c[0], (int) c[1], mine == null ? 0 : mine.censored(), r, a,
                    mine == null ? Double.NaN : mine.failureTime(), mine == null ? r : mine.p50(), mine == null ? r : mine.p95(), mine == null ? r : mine.p99(),
                    mine == null ? new double[0] : mine.successLatencies()));
        });
        return out;
    }
}
