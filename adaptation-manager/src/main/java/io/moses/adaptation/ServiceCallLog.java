package io.moses.adaptation;

import io.moses.model.TaskRef;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;

/**
 * A bounded, lock-free queue of {@link ServiceCall}s between the request path and the monitors:
 * writers never block; when the reader has fallen a whole capacity behind, the calls that find
 * the queue full are not recorded, and the reader is told how many. One reader at a time.
 *
 * <p>It holds each record's fields, not a record object. A record waits here until the monitor's
 * next period drains it, about a second; as an object it would outlive several young collections
 * and be copied, then promoted, with every one of the thousands of calls a second (a live broker
 * promoted twice what a static one did, and ran full collections twice as often). The fields
 * refer only to long-lived values (names, tasks, the end's kind).
 *
 * <p>Each slot carries a sequence (a bounded multi-producer queue after D. Vyukov): a writer
 * claims position p when its slot says p (free since the reader took p minus the capacity),
 * writes the fields, then says p + 1; the reader takes position p when its slot says p + 1, then
 * frees it for p plus the capacity. So a record is read only whole, and a writer that stalls
 * between its claim and its fields holds the reader up, not the other writers.
 */
public final class ServiceCallLog {
    private final AtomicLongArray sequences;
    private final String[] services;
    private final TaskRef[] tasks;
    private final String[] classes;
    private final long[] nanos;
    private final CallEnd[] kinds;
    private final boolean[] winners;
    private final long[] ends;
    private final int mask;
    private final AtomicLong claimed = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private long read;

    /** @param capacity rounded up to a power of two */
    public ServiceCallLog(int capacity) {
        int size = Integer.highestOneBit(Math.max(2, capacity - 1)) << 1;
        sequences = new AtomicLongArray(size);
        for (int i = 0; i < size; i++) sequences.set(i, i); // every slot free for the first lap
        services = new String[size];
        tasks = new TaskRef[size];
        classes = new String[size];
        nanos = new long[size];
        kinds = new CallEnd[size];
        winners = new boolean[size];
        ends = new long[size];
        mask = size - 1;
    }

    public void add(ServiceCall c) {
        add(c.service(), c.task(), c.serviceClass(), c.nanos(), c.kind(), c.winner(), c.atNanos());
    }

    /** {@link #add(ServiceCall)} of a call's fields, without the record. */
    public void add(String service, TaskRef task, String serviceClass, long latencyNanos, CallEnd kind, boolean winner, long atNanos) {
        long p = claimed.get();
        int i;
        while (true) {
            i = (int) (p & mask);
            long s = sequences.getAcquire(i);
            if (s == p) {
                if (claimed.compareAndSet(p, p + 1)) break;
                p = claimed.get();
            } else if (s < p) {
                dropped.incrementAndGet(); // full: the reader is a capacity behind
                return;
            } else {
                p = claimed.get(); // another writer took p
            }
        }
        services[i] = service;
        tasks[i] = task;
        classes[i] = serviceClass;
        nanos[i] = latencyNanos;
        kinds[i] = kind;
        winners[i] = winner;
        ends[i] = atNanos;
        sequences.setRelease(i, p + 1); // the fields before the sequence
    }

    /**
     * Hands every record written since the last drain to {@code sink}, oldest first, up to the
     * first one still being written.
     *
     * @return how many calls were not recorded since the last drain because the queue was full
     */
    public synchronized long drain(Consumer<ServiceCall> sink) {
        long lost = dropped.getAndSet(0);
        long end = claimed.get();
        int size = sequences.length();
        for (; read < end; read++) {
            int i = (int) (read & mask);
            if (sequences.getAcquire(i) != read + 1) break; // still being written: the next drain takes it
            ServiceCall c = new ServiceCall(services[i], tasks[i], classes[i], nanos[i], kinds[i], winners[i], ends[i]);
            sequences.setRelease(i, read + size); // the fields read before the slot is free
            sink.accept(c);
        }
        return lost;
    }
}
