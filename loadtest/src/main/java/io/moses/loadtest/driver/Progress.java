package io.moses.loadtest.driver;

import java.util.Locale;

/**
 * A snapshot of a running load. {@link #toString()} is the progress line, so
 * {@code System.err::println} is a ready-made callback.
 *
 * @param seconds  since the measured phase began (since the run began while warming up)
 * @param requests completed measured requests (completed warm-up requests while warming up)
 */
public record Progress(double seconds, long requests, long errors, boolean warmingUp, long warmupRequests) {
    public double throughput() {
        return seconds > 0 ? requests / seconds : 0;
    }

    @Override
    public String toString() {
        if (warmingUp)
            return String.format(Locale.ROOT, "  [%.1fs] warming up: %d/%d requests, %d errors", seconds, requests, warmupRequests, errors);
        return String.format(Locale.ROOT, "  [%.1fs] %d requests, %.0f req/s, %d errors", seconds, requests, throughput(), errors);
    }
}
