package org.apache.ode.scheduler.simple;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The scheduler's job table in two: the jobs of in-memory processes in memory (they die with the
 * broker, as their instances do), those of durable processes in the knowledge base (ODE's
 * {@code JdbcDelegate}, table ODE_JOB), so that a durable instance's timers and messages outlive
 * a restart and can be taken over.
 *
 * <p>Every durable job belongs to the replica that scheduled it: ODE would leave a far-future job
 * unassigned for any node to take, but an instance must run on one replica at a time, the one
 * that owns it. And no replica is ever told of another (no node ids): ODE's scheduler would take
 * the jobs of every node it hears no heartbeat from, and nothing sends heartbeats; the broker
 * must decide takeovers from its replicas' presence instead (not built yet: {@link #updateReassign} is what it would call).
 *
 * <p>In ODE's package because the scheduler's Job type is package-private.
 */
public final class SplitJobStore implements DatabaseDelegate {
    private final DatabaseDelegate memory;
    private final DatabaseDelegate durable;
    private final String node;
    /** Until the broker has deployed its units, the durable jobs wait: ODE drops a job whose process it does not know. */
    private volatile boolean open;

    /**
     * @param durable ODE's {@code JdbcDelegate} over connections that join the engine's transactions
     * @param node    this replica's id in the job table
     */
    public SplitJobStore(DatabaseDelegate memory, DatabaseDelegate durable, String node) {
        this.memory = memory;
        this.durable = durable;
        this.node = node;
    }

    private static boolean inMemory(Job job) {
        return job.detail != null && Boolean.TRUE.equals(job.detail.getInMem());
    }

    @Override
    public boolean insertJob(Job job, String nodeId, boolean loaded) throws DatabaseException {
        return inMemory(job) ? memory.insertJob(job, nodeId, loaded) : durable.insertJob(job, node, loaded);
    }

    @Override
    public boolean updateJob(Job job) throws DatabaseException {
        return inMemory(job) ? memory.updateJob(job) : durable.updateJob(job);
    }

    @Override
    public boolean deleteJob(String jobid, String nodeId) throws DatabaseException {
        return memory.deleteJob(jobid, nodeId) || durable.deleteJob(jobid, nodeId);
    }

    /** No other nodes, ever: see the class comment. */
    @Override
    public List<String> getNodeIds() {
        return List.of();
    }

    @Override
    public List<Job> dequeueImmediate(String nodeId, long maxtime, int maxjobs) throws DatabaseException {
        List<Job> jobs = new ArrayList<>(memory.dequeueImmediate(nodeId, maxtime, maxjobs));
        if (open && jobs.size() < maxjobs) jobs.addAll(durable.dequeueImmediate(nodeId, maxtime, maxjobs - jobs.size()));
        jobs.sort(Comparator.comparingLong(j -> j.schedDate));
        return jobs;
    }

    @Override
    public int updateAssignToNode(String nodeId, int i, int numNodes, long maxtime) throws DatabaseException {
        return memory.updateAssignToNode(nodeId, i, numNodes, maxtime); // durable jobs are never unassigned
    }

    @Override
    public int updateReassign(String oldnode, String newnode) throws DatabaseException {
        return durable.updateReassign(oldnode, newnode);
    }

    /**
     * Lets the durable jobs run from the next load on.
     *
     * @return whether they ran already
     */
    public boolean open() {
        boolean was = open;
        open = true;
        return was;
    }

    @Override
    public void acquireTransactionLocks() {
        durable.acquireTransactionLocks();
    }
}
