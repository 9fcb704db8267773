package io.moses.mdal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PasswordHasherTest {
    @Test
    void verifiesTheRightPasswordOnly() {
        String h = PasswordHasher.hash("correct horse".toCharArray());
        assertTrue(h.startsWith("pbkdf2-sha256$" + PasswordHasher.DEFAULT_ITERATIONS + "$"), h);
        assertFalse(h.contains("correct"));
        assertTrue(PasswordHasher.verify("correct horse".toCharArray(), h));
        assertFalse(PasswordHasher.verify("correct horse ".toCharArray(), h));
        assertFalse(PasswordHasher.verify("".toCharArray(), h));
        assertTrue(PasswordHasher.isHash(h));
    }

    @Test
    void saltsDifferAndTheIterationCountTravelsWithTheHash() {
        String a = PasswordHasher.hash("pw".toCharArray(), 2000), b = PasswordHasher.hash("pw".toCharArray(), 2000);
        assertNotEquals(a, b, "random salt");
        assertTrue(PasswordHasher.verify("pw".toCharArray(), a));
        assertTrue(PasswordHasher.verify("pw".toCharArray(), b));
    }

    @Test
    void malformedHashesNeverVerify() {
        assertFalse(PasswordHasher.verify("pw".toCharArray(), null));
        assertFalse(PasswordHasher.verify("pw".toCharArray(), "pw"));
        assertFalse(PasswordHasher.verify("pw".toCharArray(), "pbkdf2-sha256$x$y$z"));
        assertFalse(PasswordHasher.verify("pw".toCharArray(), "pbkdf2-sha256$1000$!!$??"));
        assertFalse(PasswordHasher.isHash("secret"));
    }

    @Test
    void aStoredIterationCountOutsideTheBoundsNeverVerifiesAndCostsNothing() {
        String h = PasswordHasher.hash("pw".toCharArray(), 2000);
        String rest = h.substring(h.indexOf('$', PasswordHasher.PREFIX.length()));
        // the right password's hash with a count too large to compute (hours at 2^31: the guard
        // ends a hang, it measures nothing) or too small to mean anything
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofMinutes(2), () -> {
            assertFalse(PasswordHasher.verify("pw".toCharArray(), PasswordHasher.PREFIX + Integer.MAX_VALUE + rest));
            assertFalse(PasswordHasher.verify("pw".toCharArray(), PasswordHasher.PREFIX + (PasswordHasher.MAX_ITERATIONS + 1) + rest));
        });
        assertFalse(PasswordHasher.verify("pw".toCharArray(), PasswordHasher.PREFIX + 999 + rest));
        assertTrue(PasswordHasher.verify("pw".toCharArray(), h));
    }
}
