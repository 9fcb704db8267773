package io.moses.adaptation;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

/**
 * A bounded, lock-free ring of {@link ServiceCall}s: writers on the request path never block; a
 * reader that falls more than a ring behind loses the oldest records (and is told how many).
 * One reader at a time.
 */
public final class ServiceCallLog {
    private record Slot(long sequence, ServiceCall outcome) {}

    private final AtomicReferenceArray<Slot> ring;
    private final int mask;
    private final AtomicLong written = new AtomicLong();
    private long read;

    /** @param capacity rounded up to a power of two */
    public ServiceCallLog(int capacity) {
        int size = Integer.highestOneBit(Math.max(2, capacity - 1)) << 1;
        ring = new AtomicReferenceArray<>(size);
        mask = size - 1;
    }

    public void add(ServiceCall outcome) {
        long seq = written.getAndIncrement();
        ring.set((int) (seq & mask), new Slot(seq, outcome));
    }

    /**
     * Hands every record written since the last drain to {@code sink}, oldest first.
     *
     * @return how many records were lost because the reader fell behind
     */
    public synchronized long drain(Consumer<ServiceCall> sink) {
        long end = written.get();
        long lost = 0;
        if (end - read > ring.length()) {
            lost = end - read - ring.length();
            read = end - ring.length();
        }
        for (; read < end; read++) {
            Slot s = ring.get((int) (read & mask));
            // a slot still being written (sequence behind) or already overwritten (ahead)
            if (s == null || s.sequence() != read) {
                if (s != null && s.sequence() > read) lost++;
                else break;
                continue;
            }
            sink.accept(s.outcome());
        }
        return lost;
    }

    long written() {
        return written.get();
    }
}
