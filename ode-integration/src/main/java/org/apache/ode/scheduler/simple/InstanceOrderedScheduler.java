package org.apache.ode.scheduler.simple;

import java.util.ArrayDeque;
import java.util.Date;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ode.bpel.iapi.Scheduler;

/**
 * ODE's scheduler, with the jobs of one process instance run one after the other. ODE runs an
 * instance's job only under the instance's lock and, when the lock is taken, rolls the job back
 * and retries it later; the replies of a flow's parallel invokes arrive together, so they kept
 * colliding and retrying. Here a job of a busy instance waits in the instance's queue and
 * starts when the running one's transaction has ended: no collision, no retry, same order.
 *
 * <p>In ODE's package because the scheduler's job type is package-private.
 */
public final class InstanceOrderedScheduler extends SimpleScheduler {
    /** Instances with a job running: the jobs waiting behind it, in arrival order. */
    private final ConcurrentHashMap<Long, Lane> busy = new ConcurrentHashMap<>();
    private final AtomicLong queued = new AtomicLong();

    public InstanceOrderedScheduler(String nodeId, DatabaseDelegate store, Properties props) {
        super(nodeId, store, props);
    }

    /** The job of an instance that runs now, and those waiting behind it. */
    private static final class Lane {
        volatile String running;
        final ArrayDeque<Job> waiting = new ArrayDeque<>(2);
    }

    @Override
    protected void runJob(Job job) {
        Long instance = job.detail == null ? null : job.detail.getInstanceId();
        // Persisted jobs (ODE's reply-timeout checks) may be dropped before they run: never
        // let one hold an instance's lane.
        if (instance == null || job.persisted) {
            super.runJob(job);
            return;
        }
        boolean[] first = {false};
        busy.compute(instance, (id, lane) -> {
            if (lane == null) {
                lane = new Lane();
                lane.running = job.jobId;
                first[0] = true;
            } else {
                lane.waiting.add(job);
            }
            return lane;
        });
        if (first[0]) super.runJob(job);
        else queued.incrementAndGet();
    }

    /**
     * As ODE's, but answers the job's id, as {@link Scheduler} promises: ODE answers a description
     * of the job (its time formatted, its details printed) that no caller reads, built for every
     * job (every partner's reply is one): ~2 % of the broker's CPU at full load.
     */
    @Override
    public String scheduleVolatileJob(boolean transacted, JobDetails jobDetail, Date when) {
        Job job = new Job(when == null ? System.currentTimeMillis() : when.getTime(), transacted, jobDetail);
        job.persisted = false;
        registerSynchronizer(new Synchronizer() {
            @Override
            public void afterCompletion(boolean success) {
                if (success) enqueue(job);
            }

            @Override
            public void beforeCompletion() {}
        });
        return job.jobId;
    }

    /**
     * Wraps the engine's job processor: once a job's transaction of an instance has ended
     * (committed or not), the instance's next waiting job starts.
     */
    @Override
    public void setJobProcessor(JobProcessor processor) {
        super.setJobProcessor(job -> {
            Long instance = job.jobDetail.getInstanceId();
            try {
                processor.onScheduledJob(job);
            } finally {
                // Registered last, so that ODE's own after-completion steps (the instance lock's
                // release among them) have run when the next job starts.
                if (instance != null) release(instance, job.jobName);
            }
        });
    }

    private void release(Long instance, String jobId) {
        Lane lane = busy.get(instance);
        if (lane == null || !jobId.equals(lane.running)) return; // not a job this lane ordered
        try {
            registerSynchronizer(new Synchronizer() {
                @Override
                public void afterCompletion(boolean success) {
                    next(instance);
                }

                @Override
                public void beforeCompletion() {}
            });
        } catch (RuntimeException e) {
            // The transaction cannot take it (already marked for rollback): the job ends now.
            next(instance);
        }
    }

    private void next(Long instance) {
        Job[] next = {null};
        busy.computeIfPresent(instance, (id, lane) -> {
            next[0] = lane.waiting.poll();
            if (next[0] == null) return null;
            lane.running = next[0].jobId;
            return lane;
        });
        if (next[0] != null) super.runJob(next[0]);
    }

    /**
     * As ODE's, with the retries told apart. A job that found its instance's lock taken (a
     * message for an instance that runs another job) is retried soon and for up to a minute,
     * longer than a request waits for its reply: dropping it would lose the message. A durable
     * job another thread already ran ({@code JobNoLongerInDbException}: ODE may load a job from
     * its table while the same job waits in its queue) is not retried: ODE retried every
     * failure alike, and a thread spun a minute on each such job while the instances' real work
     * waited for a free thread. Any other failure (a database's deadlock or refused commit) is
     * retried three times, as ODE does, a little later each time.
     */
    @Override
    public <T> T execTransaction(java.util.concurrent.Callable<T> transaction, int timeout) throws Exception {
        javax.transaction.TransactionManager txm = _txm;
        if (txm == null) throw new org.apache.ode.bpel.iapi.ContextException("no transaction manager: the scheduler is stopped");
        if (txm.getTransaction() != null) return transaction.call();
        long busyUntil = 0;
        for (int failures = 0; ; ) {
            try {
                txm.begin();
            } catch (Exception e) {
                throw new org.apache.ode.bpel.iapi.ContextException("cannot begin a transaction", e);
            }
            Exception failed;
            try {
                T result = transaction.call();
                txm.commit();
                return result;
            } catch (Exception e) {
                failed = e;
                if (txm.getTransaction() != null) txm.rollback();
            }
            if (failed instanceof JobNoLongerInDbException) throw failed;
            if (failed instanceof JobProcessorException j && j.retry && j.getCause() == null) {
                long now = System.nanoTime();
                if (busyUntil == 0) busyUntil = now + BUSY_RETRY_NANOS;
                if (now - busyUntil > 0) throw failed;
                Thread.sleep(1);
            } else {
                if (++failures > 3) throw failed;
                Thread.sleep(50L * failures);
            }
        }
    }

    /** How long a job retries while its instance runs another job. */
    private static final long BUSY_RETRY_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(60);

    /** Stripes of locks on correlation keys (a key's stripe is its hash's), for {@link #holdCorrelationKeys}. */
    private final java.util.concurrent.locks.ReentrantLock[] keyLocks = new java.util.concurrent.locks.ReentrantLock[128];

    {
        for (int i = 0; i < keyLocks.length; i++) keyLocks[i] = new java.util.concurrent.locks.ReentrantLock();
    }

    /**
     * Holds correlation keys (canonical, as {@code IncomingCorrelation} gives them) until the
     * transaction on this thread ends. A durable instance registers the route of its receive and
     * a message for it is queued (no instance waits yet) in two transactions, and ODE checks for
     * the other one only once: an instance checks for queued messages once its route is
     * committed (ODE's matcher job), a message for waiting routes when it arrives. When both
     * committed meanwhile, each missed the other and the message waited for nobody. The
     * delivery of a message and the registration of a route for the same key therefore hold the
     * key, from before they read until their commit: whichever comes second sees the first.
     * In-memory instances need none of this (their correlator changes under one lock).
     *
     * <p>Stripes already held by this thread are skipped; others are taken in order. A stripe
     * held for over {@link #KEY_WAIT_SECONDS} s (two transactions each holding a stripe the other
     * wants) fails this transaction, which is retried.
     */
    public void holdCorrelationKeys(java.util.Collection<String> keys) {
        if (keys.isEmpty()) return;
        java.util.TreeSet<Integer> stripes = new java.util.TreeSet<>();
        for (String key : keys) stripes.add(Math.floorMod(key.hashCode(), keyLocks.length));
        java.util.List<java.util.concurrent.locks.ReentrantLock> taken = new java.util.ArrayList<>(stripes.size());
        try {
            for (int stripe : stripes) {
                java.util.concurrent.locks.ReentrantLock lock = keyLocks[stripe];
                if (lock.isHeldByCurrentThread()) continue;
                if (!lock.tryLock(KEY_WAIT_SECONDS, java.util.concurrent.TimeUnit.SECONDS))
                    throw new IllegalStateException("correlation keys " + keys + " held by another transaction for over " + KEY_WAIT_SECONDS + " s");
                taken.add(lock);
            }
            registerSynchronizer(new Synchronizer() {
                @Override
                public void afterCompletion(boolean success) {
                    taken.forEach(java.util.concurrent.locks.ReentrantLock::unlock);
                }

                @Override
                public void beforeCompletion() {}
            });
        } catch (InterruptedException e) {
            taken.forEach(java.util.concurrent.locks.ReentrantLock::unlock);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for correlation keys " + keys, e);
        } catch (RuntimeException e) {
            taken.forEach(java.util.concurrent.locks.ReentrantLock::unlock);
            throw e;
        }
    }

    private static final int KEY_WAIT_SECONDS = 10;

    /** Loads the jobs due now from the job table at once, instead of at the next periodic load. */
    public void loadJobsNow() {
        doLoadImmediate();
    }

    /** Jobs that waited for an earlier job of their instance, since start. */
    public long jobsQueued() {
        return queued.get();
    }
}
