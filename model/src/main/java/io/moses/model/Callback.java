package io.moses.model;

import java.time.Duration;

/**
 * How an asynchronous task answers (docs/model.md, "Asynchronous tasks"): its one-way request is
 * answered later by the provider's call of {@code operation}, an operation of the process's own
 * role on the task's partner link. The task's response time is the time to that callback, and a
 * callback that has not come within {@code timeout} is the call's failure.
 *
 * @param operation the callback operation's name
 * @param timeout   how long a call waits for its callback, &gt; 0
 */
public record Callback(String operation, Duration timeout) {
    /** When a declaration names no timeout. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
    /** The longest wait: every call waiting for its callback is held in the broker's memory. */
    public static final Duration MAX_TIMEOUT = Duration.ofDays(7);

    public Callback {
        Domain.name("operation", operation);
        if (timeout == null || timeout.isNegative() || timeout.isZero() || timeout.compareTo(MAX_TIMEOUT) > 0)
            throw new IllegalArgumentException("timeout must be in (0, " + MAX_TIMEOUT + "], was " + timeout);
    }
}
