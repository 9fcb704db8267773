package io.moses.mdal;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * Salted password hashes: PBKDF2WithHmacSHA256 with a random 16-byte salt, stored as one string
 * {@code pbkdf2-sha256$<iterations>$<salt base64>$<hash base64>}. Verification recomputes with the
 * stored iteration count and compares in constant time.
 */
public final class PasswordHasher {
    public static final String PREFIX = "pbkdf2-sha256$";
    /**
     * OWASP's figure for PBKDF2-HMAC-SHA256 (2023): about 200-300 ms per hash on a current core,
     * so callers that verify per request cache what they verified. A hash stored with fewer
     * iterations still verifies with its own count; a password set again gets this one.
     */
    public static final int DEFAULT_ITERATIONS = 600_000;
    /**
     * The most iterations a stored hash may ask for (a few seconds of one core): a hash written
     * with more, by mistake or by whoever could write the knowledge base, would make every login
     * of that user a way to keep a core busy for minutes, so it never verifies.
     */
    public static final int MAX_ITERATIONS = 5_000_000;
    /**
     * The iterations of new hashes: {@link #DEFAULT_ITERATIONS} unless the environment's
     * {@code MOSES_PASSWORD_ITERATIONS} says otherwise (1000 to {@link #MAX_ITERATIONS}). The test
     * suite sets it low: its brokers run with C1 alone, where one hash at the default takes 5 s.
     */
    private static final int ITERATIONS = iterationsFrom(System.getenv("MOSES_PASSWORD_ITERATIONS"));
    private static final int SALT_BYTES = 16;
    private static final int HASH_BITS = 256;
    private static final SecureRandom RANDOM = new SecureRandom();

    private PasswordHasher() {}

    public static String hash(char[] password) {
        return hash(password, ITERATIONS);
    }

    /** The iterations {@link #hash(char[])} uses. */
    public static int iterations() {
        return ITERATIONS;
    }

    static int iterationsFrom(String setting) {
        if (setting == null || setting.isBlank()) return DEFAULT_ITERATIONS;
        try {
            int n = Integer.parseInt(setting.trim());
            if (n >= 1000 && n <= MAX_ITERATIONS) return n;
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException("MOSES_PASSWORD_ITERATIONS must be a number from 1000 to " + MAX_ITERATIONS + ", was '" + setting + "'");
    }

    public static String hash(char[] password, int iterations) {
        if (password == null) throw KnowledgeBaseException.invalid("password must not be null");
        if (iterations < 1000 || iterations > MAX_ITERATIONS)
            throw KnowledgeBaseException.invalid("iterations must be 1000 to " + MAX_ITERATIONS + ", was " + iterations);
        byte[] salt = new byte[SALT_BYTES];
        RANDOM.nextBytes(salt);
        byte[] h = pbkdf2(password, salt, iterations);
        Base64.Encoder b64 = Base64.getEncoder().withoutPadding();
        return PREFIX + iterations + "$" + b64.encodeToString(salt) + "$" + b64.encodeToString(h);
    }

    /** True if {@code password} matches {@code stored}; false for a wrong password or a malformed hash. */
    public static boolean verify(char[] password, String stored) {
        if (password == null || !isHash(stored)) return false;
        String[] parts = stored.substring(PREFIX.length()).split("\\$");
        try {
            int iterations = Integer.parseInt(parts[0]);
            if (iterations < 1000 || iterations > MAX_ITERATIONS) return false;
            byte[] salt = Base64.getDecoder().decode(parts[1]);
            byte[] expected = Base64.getDecoder().decode(parts[2]);
            return MessageDigest.isEqual(expected, pbkdf2(password, salt, iterations));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** True if {@code s} has this class's format (so it is not a plain password). */
    static boolean isHash(String s) {
        return s != null && s.startsWith(PREFIX) && s.substring(PREFIX.length()).split("\\$").length == 3;
    }

    private static byte[] pbkdf2(char[] password, byte[] salt, int iterations) {
        PBEKeySpec spec = new PBEKeySpec(password, salt, iterations, HASH_BITS);
        try {
            return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("PBKDF2WithHmacSHA256 unavailable", e);
        } finally {
            spec.clearPassword();
        }
    }
}
