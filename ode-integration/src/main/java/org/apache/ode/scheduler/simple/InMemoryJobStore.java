package org.apache.ode.scheduler.simple;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The job table of ODE's scheduler, kept in memory. Processes run in memory, so their jobs
 * are volatile and rarely reach this store; what does (persisted jobs a process may still ask
 * for: ODE schedules a persisted reply-timeout check for every partner invoke) lives as long
 * as this broker does. One node: no reassignment.
 *
 * <p>In ODE's package because the scheduler's Job type is package-private (it replaces no class of ODE's).
 */
public final class InMemoryJobStore implements DatabaseDelegate {
    private final Map<String, Stored> jobs = new ConcurrentHashMap<>();

    private record Stored(Job job, String node) {}

    private static String id(Job job) {
        return job.jobId;
    }

    private static long scheduledAt(Job job) {
        return job.schedDate;
    }

    @Override
    public boolean insertJob(Job job, String nodeId, boolean loaded) {
        return jobs.putIfAbsent(id(job), new Stored(job, loaded ? nodeId : null)) == null;
    }

    @Override
    public boolean updateJob(Job job) {
        return jobs.computeIfPresent(id(job), (id, s) -> new Stored(job, s.node())) != null;
    }

    @Override
    public boolean deleteJob(String jobid, String nodeId) {
        return jobs.remove(jobid) != null;
    }

    @Override
    public List<String> getNodeIds() {
        return jobs.values().stream().map(Stored::node).filter(n -> n != null).distinct().toList();
    }

    @Override
    public List<Job> dequeueImmediate(String nodeId, long maxtime, int maxjobs) {
        List<Job> due = new ArrayList<>();
        jobs.values().stream()
                .filter(s -> nodeId.equals(s.node()) && scheduledAt(s.job()) <= maxtime)
                .sorted(Comparator.comparingLong(s -> scheduledAt(s.job())))
                .limit(maxjobs)
                .forEach(s -> due.add(s.job()));
        return due;
    }

    @Override
    public int updateAssignToNode(String nodeId, int i, int numNodes, long maxtime) {
        int n = 0;
        for (var e : jobs.entrySet()) {
            Stored s = e.getValue();
            if (s.node() == null && scheduledAt(s.job()) <= maxtime) {
                e.setValue(new Stored(s.job(), nodeId));
                n++;
            }
        }
        return n;
    }

    @Override
    public int updateReassign(String oldnode, String newnode) {
        int n = 0;
        for (var e : jobs.entrySet()) {
            if (oldnode.equals(e.getValue().node())) {
                e.setValue(new Stored(e.getValue().job(), newnode));
                n++;
            }
        }
        return n;
    }

    @Override
    public void acquireTransactionLocks() {
        // one node, no database: nothing to lock
    }
}
