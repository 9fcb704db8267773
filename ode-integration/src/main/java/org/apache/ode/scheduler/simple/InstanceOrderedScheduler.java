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
     * job (every partner's reply is one): ~2 % of the broker's CPU at full load (issue 26).
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

    /** Loads the jobs due now from the job table at once, instead of at the next periodic load. */
    public void loadJobsNow() {
        doLoadImmediate();
    }

    /** Jobs that waited for an earlier job of their instance, since start. */
    public long jobsQueued() {
        return queued.get();
    }
}
