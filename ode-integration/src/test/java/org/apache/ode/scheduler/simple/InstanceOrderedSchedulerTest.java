package org.apache.ode.scheduler.simple;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.geronimo.transaction.manager.GeronimoTransactionManager;
import org.apache.ode.bpel.iapi.Scheduler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class InstanceOrderedSchedulerTest {
    private ExecutorService threads;
    private InstanceOrderedScheduler scheduler;

    @BeforeEach
    void start() throws Exception {
        threads = Executors.newFixedThreadPool(8);
        Properties props = new Properties();
        props.setProperty("ode.scheduler.immediateTransactionRetryInterval", "1"); // a failed transaction's retries
        scheduler = new InstanceOrderedScheduler("test", new InMemoryJobStore(), props);
        scheduler.setTransactionManager(new GeronimoTransactionManager(30));
        scheduler.setExecutorService(threads);
    }

    @AfterEach
    void stop() {
        scheduler.stop();
        threads.shutdownNow();
    }

    private void schedule(long instance, int n) throws Exception {
        scheduler.execTransaction(() -> {
            for (int i = 0; i < n; i++) {
                Scheduler.JobDetails d = new Scheduler.JobDetails();
                d.setInstanceId(instance);
                d.getDetailsExt().put("seq", i);
                scheduler.scheduleVolatileJob(true, d);
            }
            return null;
        });
    }

    @Test
    void jobsOfOneInstanceRunOneAtATimeInOrderWhileOtherInstancesRunAlongside() throws Exception {
        Map<Long, AtomicInteger> running = new ConcurrentHashMap<>();
        Map<Long, List<Integer>> order = new ConcurrentHashMap<>();
        AtomicInteger maxSameInstance = new AtomicInteger();
        AtomicInteger total = new AtomicInteger();
        AtomicInteger maxTotal = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(12);
        scheduler.setJobProcessor(job -> {
            long iid = job.jobDetail.getInstanceId();
            int same = running.computeIfAbsent(iid, k -> new AtomicInteger()).incrementAndGet();
            maxSameInstance.accumulateAndGet(same, Math::max);
            maxTotal.accumulateAndGet(total.incrementAndGet(), Math::max);
            try {
                Thread.sleep(30); // a job that takes time, so that overlapping jobs would be seen
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            order.computeIfAbsent(iid, k -> new CopyOnWriteArrayList<>()).add((Integer) job.jobDetail.getDetailsExt().get("seq"));
            total.decrementAndGet();
            running.get(iid).decrementAndGet();
            done.countDown();
        });
        scheduler.start();
        schedule(1, 6);
        schedule(2, 6);
        assertTrue(done.await(20, TimeUnit.SECONDS), "all jobs ran");
        assertEquals(1, maxSameInstance.get(), "two jobs of one instance ran at the same time");
        assertTrue(maxTotal.get() >= 2, "jobs of two instances never overlapped");
        assertEquals(List.of(0, 1, 2, 3, 4, 5), order.get(1L));
        assertEquals(List.of(0, 1, 2, 3, 4, 5), order.get(2L));
        assertTrue(scheduler.jobsQueued() > 0, "no job waited behind another of its instance");
    }

    @Test
    void aVolatileJobRunsOnlyOnceItsTransactionCommitsUnderTheIdTheSchedulerAnswered() throws Exception {
        List<String> ran = new CopyOnWriteArrayList<>();
        CountDownLatch first = new CountDownLatch(1);
        scheduler.setJobProcessor(job -> {
            ran.add(job.jobName);
            first.countDown();
        });
        scheduler.start();
        // Both of one instance: had the rolled-back job been queued, it would run first.
        assertThrows(IllegalStateException.class, () -> scheduler.execTransaction(() -> {
            scheduler.scheduleVolatileJob(true, detailsOf(7));
            throw new IllegalStateException("rolled back");
        }));
        String id = scheduler.execTransaction(() -> {
            String answered = scheduler.scheduleVolatileJob(true, detailsOf(7));
            assertTrue(ran.isEmpty(), "a job ran before its transaction ended");
            return answered;
        });
        assertTrue(first.await(10, TimeUnit.SECONDS), "the committed job ran");
        assertEquals(List.of(id), ran, "the job that ran is the committed one, under the id answered");
    }

    private static Scheduler.JobDetails detailsOf(long instance) {
        Scheduler.JobDetails d = new Scheduler.JobDetails();
        d.setInstanceId(instance);
        return d;
    }
}
