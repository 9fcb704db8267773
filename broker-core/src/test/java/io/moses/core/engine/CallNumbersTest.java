package io.moses.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.adaptation.ReplyTo;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** A call's number names its conversation's user to whoever holds the key, for its process only; a changed one names nobody. */
class CallNumbersTest {
    static final String KEY = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

    @Test
    void aNumberNamesItsUserForItsProcessToAnyHolderOfTheKey() {
        CallNumbers here = new CallNumbers(KEY), elsewhere = new CallNumbers(KEY);
        String call = here.mint("QuoteAsync", "alice");
        assertEquals("alice", elsewhere.userOf("QuoteAsync", call), "another replica, or this one after a restart");
        assertNull(here.userOf("TripPlanner", call), "another process's services");
        assertNotEquals(call, here.mint("QuoteAsync", "alice"), "a new number per call");
        assertEquals(call, ReplyTo.callIn(ReplyTo.PARAMETER + "=" + call), "a number is what a reply address can carry");
        assertNull(new CallNumbers(KEY.replace('0', '1')).userOf("QuoteAsync", call), "another key");
    }

    @Test
    void aChangedNumberOrAPlainOneNamesNobody() {
        CallNumbers numbers = new CallNumbers(KEY);
        byte[] b = Base64.getUrlDecoder().decode(numbers.mint("QuoteAsync", "alice"));
        for (int i = 0; i < b.length; i++) {
            byte[] changed = b.clone();
            changed[i] ^= 1;
            String forged = Base64.getUrlEncoder().withoutPadding().encodeToString(changed);
            assertNull(numbers.userOf("QuoteAsync", forged), "byte " + i + " changed: " + forged);
        }
        // another user's name in a number made for alice
        byte[] bob = java.util.Arrays.copyOf(b, b.length);
        System.arraycopy("bobby".getBytes(), 0, bob, 21, 5);
        assertNull(numbers.userOf("QuoteAsync", Base64.getUrlEncoder().withoutPadding().encodeToString(bob)));
        assertNull(numbers.userOf("QuoteAsync", numbers.mint("QuoteAsync", null)), "an anonymous conversation's number is no credential");
        assertNull(numbers.userOf("QuoteAsync", ReplyTo.at("http://b/services/").call()));
        assertNull(numbers.userOf("QuoteAsync", "not base64!"));
        assertTrue(numbers.mint("QuoteAsync", "x".repeat(CallNumbers.MAX_USER_BYTES + 1)).length() == 20, "too long a name: a plain number");
        assertThrows(IllegalArgumentException.class, () -> new CallNumbers("00ff"));
    }
}
