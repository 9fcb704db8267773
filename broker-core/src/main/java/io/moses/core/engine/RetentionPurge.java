package io.moses.core.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes finished durable instances once they are older than the retention, and the files of
 * replaced versions that no instance runs on any more: at start, then
 * periodically, in batches of one transaction each, and at most {@link #BATCHES_PER_RUN} batches a
 * run, so that a long backlog never holds the database for long. Every replica of a cluster runs
 * it; two deleting the same instance at once cost one of them a failed batch, taken again at its next run.
 */
final class RetentionPurge implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RetentionPurge.class);
    static final int BATCH = 100;
    static final int BATCHES_PER_RUN = 50;

    private final Instances instances;
    private final DurableVersions versions;
    private final Duration retention;
    private final LongConsumer purged;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "instance-purge");
        t.setDaemon(true);
        return t;
    });

    /** @param purged told each instance deleted (on the purge's thread) */
    RetentionPurge(Instances instances, DurableVersions versions, Duration retention, LongConsumer purged) {
        if (retention.isNegative() || retention.isZero()) throw new IllegalArgumentException("retention must be positive, was " + retention);
        this.instances = instances;
        this.versions = versions;
        this.retention = retention;
        this.purged = purged;
    }

    /** A tenth of the retention, between one second and one hour: an instance stays at most 10 % longer than asked. */
    static Duration period(Duration retention) {
        Duration p = retention.dividedBy(10);
        if (p.compareTo(Duration.ofSeconds(1)) < 0) return Duration.ofSeconds(1);
        return p.compareTo(Duration.ofHours(1)) > 0 ? Duration.ofHours(1) : p;
    }

    void start() {
        timer.scheduleWithFixedDelay(this::run, 0, period(retention).toMillis(), TimeUnit.MILLISECONDS);
    }

    /** One run: the batches due now. */
    int run() {
        int total = 0;
        try {
            Instant before = Instant.now().minus(retention);
            for (int b = 0; b < BATCHES_PER_RUN; b++) {
                List<Long> ids = instances.purge(before, BATCH);
                total += ids.size();
                for (long id : ids) purged.accept(id);
                if (ids.size() < BATCH) break;
            }
            // a replaced version's files go with its last instance
            for (var pid : versions.forgetReplaced(before)) log.info("files of {} deleted: a replaced version no instance runs on", pid);
        } catch (RuntimeException e) {
            log.warn("purging finished instances failed (taken again in {}): {}", period(retention), e.getMessage());
        }
        if (total > 0) log.info("purged {} finished instance(s) older than {}", total, retention);
        return total;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
