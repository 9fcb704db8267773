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
