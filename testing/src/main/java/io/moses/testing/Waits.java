package io.moses.testing;

import java.time.Duration;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Waits on a condition, the project's defaults on Awaitility: the first check at once, then one
 * every {@link #POLL}, in the test's thread. A check that throws an exception counts as "not yet"
 * (a broker or a stub still starting or busy); one whose assertion fails ends the wait and the
 * test. A condition that never holds fails the test with an {@link AssertionError} naming what was
 * awaited, the last check's exception as its cause. Other threads are left alone: an uncaught
 * exception in a server's thread does not end the wait.
 */
public final class Waits {
    /** Between two checks. */
    public static final Duration POLL = Duration.ofMillis(100);

    /** A check of what is awaited; an exception it throws counts as "not yet". */
    @FunctionalInterface
    public interface Condition {
        boolean holds() throws Exception;
    }

    private Waits() {
    }

    /** Checks {@code condition} until it holds, at most {@code seconds}; returns the milliseconds waited. */
    public static long until(String what, long seconds, Condition condition) {
        return until(what, seconds, condition, () -> "");
    }

    /**
     * As {@link #until(String, long, Condition)}; on failure, the message ends with {@code context}
     * (a broker's log, its plan), read then.
     */
    public static long until(String what, long seconds, Condition condition, Supplier<String> context) {
        long start = System.nanoTime();
        try {
            await(what, seconds, condition);
        } catch (ConditionTimeoutException e) {
            String more = context.get();
            throw new AssertionError(what + " within " + seconds + " s" + (more.isEmpty() ? "" : "\n" + more), e.getCause());
        }
        return (System.nanoTime() - start) / 1_000_000;
    }

    /**
     * Whether {@code condition} holds within {@code seconds}, checked as by {@link #until}: for a
     * wait that is one step of a scenario (a round of requests, then up to so long for the broker
     * to react, then another round), not the test's verdict.
     */
    public static boolean within(long seconds, Condition condition) {
        try {
            await("the condition", seconds, condition);
            return true;
        } catch (ConditionTimeoutException e) {
            return false;
        }
    }

    private static void await(String what, long seconds, Condition condition) {
        Awaitility.await(what).atMost(Duration.ofSeconds(seconds)).pollDelay(Duration.ZERO).pollInterval(POLL).pollInSameThread()
                .ignoreExceptionsInstanceOf(Exception.class).dontCatchUncaughtExceptions().until(condition::holds);
    }
}
