package io.moses.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The broker's wall clock and its monotonic one, moved together only when the test says: give the
 * code under test this {@link Clock} and {@link #nanos} as its {@code LongSupplier} of
 * {@code System.nanoTime}. Starts at 2026-01-01T00:00:01Z, one second of nanos after a zero that
 * code may take for "never".
 */
public final class TestClock extends Clock {
    private final Instant start = Instant.parse("2026-01-01T00:00:00Z");
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    public void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
    }

    /** The monotonic clock, in nanoseconds. */
    public long nanos() {
        return nanos.get();
    }

    @Override
    public Instant instant() {
        return start.plusNanos(nanos.get());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException();
    }
}
