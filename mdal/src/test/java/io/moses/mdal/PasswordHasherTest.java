package io.moses.mdal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PasswordHasherTest {
    @Test
    void verifiesTheRightPasswordOnly() {
        String h = PasswordHasher.hash("correct horse".toCharArray());
        assertTrue(h.startsWith("pbkdf2-sha256$" + PasswordHasher.iterations() + "$"), h);
        assertFalse(h.contains("correct"));
        assertTrue(PasswordHasher.verify("correct horse".toCharArray(), h));
        assertFalse(PasswordHasher.verify("correct horse ".toCharArray(), h));
        assertFalse(PasswordHasher.verify("".toCharArray(), h));
        assertTrue(PasswordHasher.isHash(h));
    }

    @Test
    void newHashesTakeTheDefaultIterationsUnlessTheEnvironmentSaysOtherwise() {
        assertEquals(600_000, PasswordHasher.iterationsFrom(null));
        assertEquals(600_000, PasswordHasher.iterationsFrom(" "));
        assertEquals(10_000, PasswordHasher.iterationsFrom("10000"));
        for (String bad : new String[] {"999", "5000001", "many"}) {
            var e = assertThrows(IllegalArgumentException.class, () -> PasswordHasher.iterationsFrom(bad));
            assertTrue(e.getMessage().contains("MOSES_PASSWORD_ITERATIONS must be a number from 1000 to 5000000, was '" + bad + "'"), e.getMessage());
        }
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
    void aStoredIterationCountOutsideTheBoundsNeverVerifies() throws Exception {
        // the right password's real hash at one iteration more than the bound, and at too few
        for (int iterations : new int[] {PasswordHasher.MAX_ITERATIONS + 1, 999}) {
            byte[] salt = new byte[16];
            javax.crypto.spec.PBEKeySpec spec = new javax.crypto.spec.PBEKeySpec("pw".toCharArray(), salt, iterations, 256);
            byte[] h = javax.crypto.SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
            java.util.Base64.Encoder b64 = java.util.Base64.getEncoder();
            String stored = PasswordHasher.PREFIX + iterations + "$" + b64.encodeToString(salt) + "$" + b64.encodeToString(h);
            assertFalse(PasswordHasher.verify("pw".toCharArray(), stored), iterations + " iterations");
        }
        assertTrue(PasswordHasher.verify("pw".toCharArray(), PasswordHasher.hash("pw".toCharArray(), 2000)));
    }
}
