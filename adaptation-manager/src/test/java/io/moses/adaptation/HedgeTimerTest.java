package io.moses.adaptation;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The hedges' timer on a clock and a timer the test moves: which second calls run, and how often the timer is armed. */
class HedgeTimerTest {
    private static final long MS = 1_000_000;

    /** A timer whose tasks run when the test says. */
    private static final class ManualTimer implements HedgeTimer.Scheduler {
        final List<long[]> delays = new ArrayList<>();
        final List<Runnable> tasks = new ArrayList<>();

        @Override
        public void schedule(Runnable task, long delayNanos) {
            delays.add(new long[] {delayNanos});
            tasks.add(task);
        }

        void runAll() {
            List<Runnable> now = new ArrayList<>(tasks);
            tasks.clear();
            now.forEach(Runnable::run);
        }
    }

    private final AtomicLong clock = new AtomicLong(1_000 * MS);
    private final ManualTimer timer = new ManualTimer();
    private final List<String> sent = new ArrayList<>();
    private final HedgeTimer hedges = new HedgeTimer(timer, Runnable::run, clock::get);

    @Test
    void oneTimerStandsForEveryHedgeWaitingAndClearedHedgesNeverSendTheirSecondCall() {
        HedgeTimer.Entry a = hedges.after(4 * MS, () -> sent.add("a"));
        clock.addAndGet(MS);
        HedgeTimer.Entry b = hedges.after(4 * MS, () -> sent.add("b"));
        hedges.after(4 * MS, () -> sent.add("c"));
        assertEquals(1, timer.delays.size(), "armed once, for the earliest deadline");
        assertEquals(4 * MS, timer.delays.get(0)[0]);
        a.clear(); // a's first call answered in time
        b.clear();
        clock.addAndGet(3 * MS); // a's deadline
        timer.runAll();
        assertEquals(List.of(), sent, "cleared hedges are dropped, c is not due yet");
        assertEquals(1, hedges.waiting());
        assertEquals(2, timer.delays.size(), "armed again for c");
        assertEquals(MS, timer.delays.get(1)[0]);
        clock.addAndGet(MS);
        timer.runAll();
        assertEquals(List.of("c"), sent, "c's first call has not answered by its deadline");
        assertEquals(0, hedges.waiting());
        assertEquals(2, timer.delays.size(), "nothing left: not armed");
    }

    @Test
    void anEarlierDeadlineArmsItsOwnTimerAndALaterOneFindsNothingDue() {
        hedges.after(10 * MS, () -> sent.add("slow"));
        hedges.after(2 * MS, () -> sent.add("fast"));
        assertEquals(2, timer.delays.size());
        assertEquals(2 * MS, timer.delays.get(1)[0]);
        clock.addAndGet(2 * MS);
        timer.runAll(); // both timers run: the one armed for slow is not armed any more and does nothing
        assertEquals(List.of("fast"), sent);
        assertEquals(1, hedges.waiting());
        assertEquals(3, timer.delays.size(), "armed for slow, which is left");
        clock.addAndGet(8 * MS);
        timer.runAll();
        assertEquals(List.of("fast", "slow"), sent);
    }

    @Test
    void aHedgeThatComesWhileTheTimerRunsIsNotLost() {
        HedgeTimer.Entry[] late = new HedgeTimer.Entry[1];
        hedges.after(MS, () -> {
            sent.add("first");
            late[0] = hedges.after(MS, () -> sent.add("late")); // added while the timer runs
        });
        clock.addAndGet(MS);
        timer.runAll();
        assertEquals(List.of("first"), sent);
        assertEquals(1, hedges.waiting());
        clock.addAndGet(MS);
        timer.runAll();
        assertEquals(List.of("first", "late"), sent);
    }
}
