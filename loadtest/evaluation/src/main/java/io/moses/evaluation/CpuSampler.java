package io.moses.evaluation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * CPU time of other processes (user + system, what /proc/PID/stat fields 14 and 15 hold; summed
 * over the processes, e.g. a cluster's replicas, HAProxy and MariaDB), sampled on a daemon thread, so the CPU spent in any wall-clock window can be read afterwards. CPU per
 * request is steadier than throughput on a machine others are using.
 */
final class CpuSampler implements AutoCloseable {
    private final List<ProcessHandle> processes;
    private final List<long[]> samples = new ArrayList<>(); // {wall ms, cpu ns}
    private final Thread thread;
    private volatile boolean running = true;

    CpuSampler(List<Long> pids, long periodMs) {
        this.processes = pids.stream().map(ProcessHandle::of).flatMap(Optional::stream).toList();
        thread = new Thread(() -> {
            while (running) {
                sample();
                try {
                    Thread.sleep(periodMs);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "cpu-sampler-" + pids);
        thread.setDaemon(true);
        thread.start();
    }

    private void sample() {
        if (processes.isEmpty()) return;
        long ns = 0;
        for (ProcessHandle p : processes) {
            Optional<Duration> cpu = p.info().totalCpuDuration();
            if (cpu.isEmpty()) return; // one gone: a sum without it would read as a drop
            ns += cpu.get().toNanos();
        }
        synchronized (samples) {
            samples.add(new long[]{System.currentTimeMillis(), ns});
        }
    }

    /** CPU milliseconds spent between two wall-clock times, from the nearest samples; NaN if unknown. */
    double cpuMs(long fromMs, long toMs) {
        long[] a = nearest(fromMs);
        long[] b = nearest(toMs);
        if (a == null || b == null || b[0] <= a[0]) return Double.NaN;
        // scale to the window asked for: the samples are up to one period off
        return (b[1] - a[1]) / 1e6 * (toMs - fromMs) / (double) (b[0] - a[0]);
    }

    private long[] nearest(long t) {
        synchronized (samples) {
            long[] best = null;
            for (long[] s : samples)
                if (best == null || Math.abs(s[0] - t) < Math.abs(best[0] - t)) best = s;
            return best;
        }
    }

    @Override
    public void close() {
        sample();
        running = false;
        thread.interrupt();
    }
}
