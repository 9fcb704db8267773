package io.moses.core.frontend;

import static io.moses.core.frontend.EnginePlaces.Verdict.DISPLACED;
import static io.moses.core.frontend.EnginePlaces.Verdict.PLACED;
import static io.moses.core.frontend.EnginePlaces.Verdict.REFUSED;
import static io.moses.core.frontend.EnginePlaces.Verdict.TIMED_OUT;
import static io.moses.core.frontend.EnginePlaces.Verdict.WAITING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.model.ServiceClass;
import io.moses.testing.Waits;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The class-ordered wait line, on a test clock: order, displacement, first come first served within a class, timeouts. */
class EnginePlacesTest {
    private static final double GOLD = 15, SILVER = 8, BRONZE = 4, NONE = ClassWorth.LEAST, EXCESS = ClassWorth.BEST_EFFORT;
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);

    private EnginePlaces places(int inFlight, int queued) {
        return new EnginePlaces(new OverloadBound(inFlight, queued, Duration.ofSeconds(2)), clock::get);
    }

    @Test
    void freePlacesAreTakenAtOnceWhateverTheClass() {
        EnginePlaces p = places(2, 2);
        assertEquals(PLACED, p.enter(NONE).verdict());
        assertTrue(p.tryTake());
        assertFalse(p.tryTake(), "both places are taken");
        assertEquals(2, p.running());
        assertEquals(WAITING, p.enter(GOLD).verdict());
        assertFalse(p.tryTake(), "a newcomer does not jump a waiting request even when a place frees");
    }

    @Test
    void waitersAreServedHighestClassFirstAndInArrivalOrderWithinAClass() {
        EnginePlaces p = places(1, 5);
        assertTrue(p.tryTake());
        EnginePlaces.Ticket bronze1 = p.enter(BRONZE);
        EnginePlaces.Ticket gold1 = p.enter(GOLD);
        EnginePlaces.Ticket bronze2 = p.enter(BRONZE);
        EnginePlaces.Ticket silver = p.enter(SILVER);
        EnginePlaces.Ticket gold2 = p.enter(GOLD);
        List<EnginePlaces.Ticket> expected = List.of(gold1, gold2, silver, bronze1, bronze2);
        for (int i = 0; i < expected.size(); i++) {
            p.release();
            for (int j = 0; j < expected.size(); j++)
                assertEquals(j <= i ? PLACED : WAITING, expected.get(j).verdict(), "after release " + (i + 1) + ", waiter " + j);
            assertEquals(1, p.running(), "the place passes on");
        }
        p.release();
        assertEquals(0, p.running());
        assertEquals(0, p.waiting());
    }

    @Test
    void aFullLineDisplacesTheLastOfTheLeastClassForAHigherOne() {
        EnginePlaces p = places(1, 3);
        assertTrue(p.tryTake());
        EnginePlaces.Ticket bronze1 = p.enter(BRONZE);
        EnginePlaces.Ticket bronze2 = p.enter(BRONZE);
        EnginePlaces.Ticket silver = p.enter(SILVER);

        EnginePlaces.Ticket gold = p.enter(GOLD);
        assertEquals(WAITING, gold.verdict());
        assertEquals(DISPLACED, bronze2.verdict(), "the last bronze in line makes room");
        assertEquals(WAITING, bronze1.verdict(), "the bronze that came first keeps its place");
        assertEquals(DISPLACED, p.await(bronze2), "a displaced waiter's wait is over at once");
        assertEquals(3, p.waiting());

        EnginePlaces.Ticket silver2 = p.enter(SILVER);
        assertEquals(DISPLACED, bronze1.verdict(), "bronze goes before any silver");
        EnginePlaces.Ticket bronze3 = p.enter(BRONZE);
        assertEquals(REFUSED, bronze3.verdict(), "no class below bronze waits: refused at once");
        EnginePlaces.Ticket silver3 = p.enter(SILVER);
        assertEquals(REFUSED, silver3.verdict(), "a class no higher than the least waiting is refused, not swapped");
        assertEquals(WAITING, silver2.verdict());
        assertEquals(WAITING, silver.verdict());

        p.release();
        assertEquals(PLACED, gold.verdict());
        p.release();
        assertEquals(PLACED, silver.verdict(), "within silver, first come first served");
        assertEquals(WAITING, silver2.verdict());
    }

    @Test
    void callersOfNoClassGoFirstEvenBeforeAClassPricedZero() {
        ClassWorth worth = new ClassWorth();
        worth.update(List.of(new ServiceClass("free", 3, 0.5, 10, 0), new ServiceClass("gold", 1, 0.9, 10, 15)));
        assertTrue(worth.of("free") < worth.of("gold"));
        assertTrue(worth.of("free") >= 0);
        assertEquals(NONE, worth.of(null));
        assertEquals(NONE, worth.of("unknown"));
        assertTrue(NONE < 0);

        EnginePlaces p = places(1, 1);
        assertTrue(p.tryTake());
        EnginePlaces.Ticket anonymous = p.enter(worth.of(null));
        EnginePlaces.Ticket free = p.enter(worth.of("free"));
        assertEquals(DISPLACED, anonymous.verdict());
        assertEquals(WAITING, free.verdict());
    }

    @Test
    void anOperatorsPriorityRanksBeforeThePriceAndThePriceBreaksTies() {
        List<ServiceClass> classes = List.of(new ServiceClass("gold", 1, 0.9, 20, 15), new ServiceClass("silver", 2, 0.8, 20, 8),
                new ServiceClass("bronze", 3, 0.5, 20, 4), new ServiceClass("bronze2", 3, 0.5, 20, 4));
        ClassWorth byPrice = new ClassWorth();
        byPrice.update(classes);
        assertTrue(byPrice.of("bronze") < byPrice.of("silver") && byPrice.of("silver") < byPrice.of("gold"));
        assertEquals(byPrice.of("bronze"), byPrice.of("bronze2"), "equal price, equal worth");

        ClassWorth.Parsed parsed = ClassWorth.parse(new String[] {"--port", "0", "--class-priority", "bronze=2, silver=1"});
        assertEquals(List.of("--port", "0"), List.of(parsed.rest()));
        assertEquals(java.util.Map.of("bronze", 2.0, "silver", 1.0), parsed.worth().priorities());
        ClassWorth w = parsed.worth();
        w.update(classes);
        assertTrue(w.of("gold") < w.of("silver"), "gold (priority 0) below silver (1) despite its price");
        assertTrue(w.of("silver") < w.of("bronze"));
        assertTrue(w.of("bronze2") < w.of("gold"), "priority 0, price 4 below priority 0, price 15");
        assertTrue(NONE < w.of("bronze2"));
    }

    @Test
    void equalWorthRefusesAndServesInArrivalOrderWhateverTheClass() {
        ClassWorth.Parsed parsed = ClassWorth.parse(new String[] {"--class-priority", "equal", "--port", "0"});
        assertEquals(List.of("--port", "0"), List.of(parsed.rest()));
        ClassWorth w = parsed.worth();
        w.update(List.of(new ServiceClass("gold", 1, 0.9, 20, 15), new ServiceClass("bronze", 3, 0.5, 20, 4)));
        assertEquals(w.of("bronze"), w.of("gold"));
        assertEquals(w.of(null), w.of("gold"), "no class is no different either");

        EnginePlaces p = places(1, 1);
        assertTrue(p.tryTake());
        EnginePlaces.Ticket bronze = p.enter(w.of("bronze"));
        EnginePlaces.Ticket gold = p.enter(w.of("gold"));
        assertEquals(WAITING, bronze.verdict());
        assertEquals(REFUSED, gold.verdict(), "the line is full: a later gold request does not displace an earlier bronze one");
        p.release();
        assertEquals(PLACED, bronze.verdict());
        EnginePlaces.Ticket gold2 = p.enter(w.of("gold"));
        assertEquals(WAITING, gold2.verdict());

        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> ClassWorth.parse(new String[] {"--class-priority", "equal", "--class-priority", "gold=2"}));
        assertTrue(e.getMessage().startsWith("--class-priority equal"), e.getMessage());
    }

    @Test
    void aPriorityOutOfRangeIsRefusedWithTheOptionsName() {
        for (String bad : new String[] {"gold", "gold=", "gold=high", "gold=-1", "=2", " =2", "gold=NaN"}) {
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> ClassWorth.parse(new String[] {"--class-priority", bad}), bad);
            assertTrue(e.getMessage().startsWith("--class-priority"), e.getMessage());
        }
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> ClassWorth.parse(new String[] {"--class-priority"}));
        assertTrue(e.getMessage().startsWith("--class-priority"), e.getMessage());
    }

    @Test
    void withoutAQueueEveryoneBeyondTheBoundIsRefused() {
        EnginePlaces p = places(1, 0);
        assertTrue(p.tryTake());
        assertEquals(REFUSED, p.enter(GOLD).verdict());
        assertEquals(REFUSED, p.enter(NONE).verdict());
    }

    @Test
    void aWaiterPastItsDeadlineLeavesTheLineAndIsNotGivenAPlace() {
        EnginePlaces p = places(1, 3);
        assertTrue(p.tryTake());
        EnginePlaces.Ticket early = p.enter(GOLD);
        clock.addAndGet(Duration.ofSeconds(1).toNanos());
        EnginePlaces.Ticket late = p.enter(BRONZE);
        clock.addAndGet(Duration.ofMillis(1_500).toNanos()); // early has waited 2.5 s, late 1.5 s

        assertEquals(TIMED_OUT, p.await(early), "past the 2 s wait");
        assertEquals(1, p.waiting());
        p.release();
        assertEquals(PLACED, late.verdict(), "the place goes to the waiter still in line");
        assertEquals(PLACED, p.await(late));
        assertEquals(TIMED_OUT, early.verdict(), "a verdict is final");
        p.release();
        assertEquals(0, p.running());
    }

    @Test
    void bestEffortTakesAPlaceOnlyWhileFewerThanItsShareRun() {
        EnginePlaces p = places(4, 4);
        p.bestEffortPlaces(2);
        assertEquals(PLACED, p.enter(EXCESS).verdict(), "0 of 4 running: room to spare");
        assertEquals(PLACED, p.enter(EXCESS).verdict(), "1 running: still below 2");
        EnginePlaces.Ticket third = p.enter(EXCESS);
        assertEquals(WAITING, third.verdict(), "2 running: the other 2 places are kept for conforming requests");
        assertEquals(PLACED, p.enter(BRONZE).verdict(), "a conforming request takes a free place past waiting excess");
        assertEquals(PLACED, p.enter(NONE).verdict(), "so does a caller of no class");
        assertEquals(4, p.running());
        p.release();
        assertEquals(WAITING, third.verdict(), "3 running after the release: no spare place");
        assertEquals(3, p.running());
        p.release();
        assertEquals(WAITING, third.verdict(), "2 running");
        p.release();
        assertEquals(PLACED, third.verdict(), "1 running: the freed place goes to the excess");
        assertEquals(2, p.running());
    }

    @Test
    void bestEffortIsServedLastAndDisplacedFirst() {
        EnginePlaces p = places(1, 3);
        p.bestEffortPlaces(1);
        assertTrue(p.tryTake());
        EnginePlaces.Ticket excess1 = p.enter(EXCESS);
        EnginePlaces.Ticket anonymous = p.enter(NONE);
        EnginePlaces.Ticket excess2 = p.enter(EXCESS);
        assertEquals(REFUSED, p.enter(EXCESS).verdict(), "a full line of excess takes no more excess");
        EnginePlaces.Ticket bronze = p.enter(BRONZE);
        assertEquals(DISPLACED, excess2.verdict(), "a conforming newcomer displaces the last excess waiting");
        assertEquals(WAITING, excess1.verdict());
        EnginePlaces.Ticket gold = p.enter(GOLD);
        assertEquals(DISPLACED, excess1.verdict(), "excess goes before even a caller of no class");
        assertEquals(WAITING, anonymous.verdict());
        EnginePlaces.Ticket excess3 = p.enter(EXCESS);
        assertEquals(REFUSED, excess3.verdict());
        p.release();
        assertEquals(PLACED, gold.verdict());
        p.release();
        assertEquals(PLACED, bronze.verdict());
        p.release();
        assertEquals(PLACED, anonymous.verdict());
        EnginePlaces.Ticket excess4 = p.enter(EXCESS);
        assertEquals(WAITING, excess4.verdict(), "1 running, and excess may run only while none does");
        p.release();
        assertEquals(PLACED, excess4.verdict(), "served from the line last, once the broker is idle");
    }

    private static void awaitQueued(EnginePlaces p) {
        Waits.until("the waiter queued", 30, () -> p.waiting() > 0);
    }

    @Test
    void aParkedWaiterWakesWhenAPlaceIsReleasedToIt() throws Exception {
        EnginePlaces p = new EnginePlaces(new OverloadBound(1, 1, Duration.ofMinutes(5)), System::nanoTime);
        assertTrue(p.tryTake());
        CompletableFuture<EnginePlaces.Verdict> waiter = CompletableFuture.supplyAsync(() -> p.await(p.enter(GOLD)));
        awaitQueued(p);
        p.release();
        assertEquals(PLACED, waiter.get(60, TimeUnit.SECONDS));
    }

    @Test
    void aParkedWaiterWakesWhenDisplaced() throws Exception {
        EnginePlaces p = new EnginePlaces(new OverloadBound(1, 1, Duration.ofMinutes(5)), System::nanoTime);
        assertTrue(p.tryTake());
        CompletableFuture<EnginePlaces.Verdict> bronze = CompletableFuture.supplyAsync(() -> p.await(p.enter(BRONZE)));
        awaitQueued(p);
        EnginePlaces.Ticket gold = p.enter(GOLD);
        assertEquals(DISPLACED, bronze.get(60, TimeUnit.SECONDS));
        assertEquals(WAITING, gold.verdict());
    }
}
