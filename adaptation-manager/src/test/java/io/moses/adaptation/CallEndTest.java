package io.moses.adaptation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The one classification of partner calls: which ends are answers, which may be sent elsewhere, which blame the provider. */
class CallEndTest {

    static Set<CallEnd> where(java.util.function.Predicate<CallEnd> p) {
        return Stream.of(CallEnd.values()).filter(p).collect(Collectors.toCollection(() -> EnumSet.noneOf(CallEnd.class)));
    }

    @Test
    void onlyCallsThatProvablyNeverReachedTheProviderMayBeSentElsewhere() {
        assertEquals(EnumSet.of(CallEnd.CONNECT, CallEnd.UNAVAILABLE, CallEnd.REFUSED_LOCALLY), where(CallEnd::neverProcessed));
    }

    @Test
    void answersAndFailuresThatBlameTheProviderAreApart() {
        assertEquals(EnumSet.of(CallEnd.REPLY, CallEnd.FAULT), where(CallEnd::answered));
        assertEquals(EnumSet.of(CallEnd.TIMEOUT, CallEnd.CONNECT, CallEnd.UNAVAILABLE, CallEnd.PROTOCOL), where(CallEnd::blamesProvider));
    }

    @Test
    void aFailedCallCannotSayItWasAnswered() {
        assertThrows(IllegalArgumentException.class, () -> new CallOutcome.CallFailure(CallEnd.REPLY, "x"));
        assertThrows(IllegalArgumentException.class, () -> new CallOutcome.CallFailure(CallEnd.FAULT, "x"));
        assertEquals(CallEnd.TIMEOUT, new CallOutcome.CallFailure(CallEnd.TIMEOUT, "x").kind());
        assertEquals(CallEnd.REPLY, new CallOutcome.CallReply(null).kind());
    }
}
