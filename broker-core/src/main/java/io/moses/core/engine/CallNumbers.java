package io.moses.core.engine;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The numbers of asynchronous calls ({@code moses-call} in a reply address), which are their
 * callbacks' credentials: a number names the user whose conversation made the call, under an
 * HMAC-SHA256 of the process and that user with a key the replicas share through the knowledge
 * base. A provider calls back with the address it was given and no password of the user's; any
 * replica, before or after a restart, checks the number and takes the callback as that user's.
 * It is good for that process's services only, and only for messages that continue a
 * conversation (the front-end refuses one that would start an instance).
 *
 * <p>A number is base64url of a 9-byte nonce, the first 12 bytes of the MAC and the user's name:
 * unguessable, and new for every call. A call of an instance with no known user (anonymous, or a
 * durable instance whose broker restarted) gets a plain random number, which is no credential.
 */
public final class CallNumbers {
    private static final int NONCE = 9, MAC = 12;
    /** The longest user name a number carries: a longer one's calls get plain numbers. */
    static final int MAX_USER_BYTES = 128;

    private final SecretKeySpec key;
    private final SecureRandom random = new SecureRandom();

    /** @param secret hex, at least 128 bits (KnowledgeBase#clusterSecret) */
    public CallNumbers(String secret) {
        byte[] k = HexFormat.of().parseHex(secret);
        if (k.length < 16) throw new IllegalArgumentException("a call-number secret needs at least 128 bits");
        this.key = new SecretKeySpec(k, "HmacSHA256");
    }

    /** A new call's number for an instance of {@code composite} that {@code user} (null: nobody known) started. */
    public String mint(String composite, String user) {
        byte[] u = user == null ? null : user.getBytes(StandardCharsets.UTF_8);
        if (u == null || u.length == 0 || u.length > MAX_USER_BYTES) {
            byte[] plain = new byte[15];
            random.nextBytes(plain);
            return encode(plain);
        }
        byte[] nonce = new byte[NONCE];
        random.nextBytes(nonce);
        byte[] out = new byte[NONCE + MAC + u.length];
        System.arraycopy(nonce, 0, out, 0, NONCE);
        System.arraycopy(mac(composite, u, nonce), 0, out, NONCE, MAC);
        System.arraycopy(u, 0, out, NONCE + MAC, u.length);
        return encode(out);
    }

    /** The user {@code call} is a credential of for {@code composite}'s services, or null: a plain number, or one not made here. */
    public String userOf(String composite, String call) {
        byte[] b;
        try {
            b = Base64.getUrlDecoder().decode(call);
        } catch (IllegalArgumentException e) {
            return null;
        }
        if (b.length <= NONCE + MAC || b.length > NONCE + MAC + MAX_USER_BYTES) return null;
        byte[] nonce = Arrays.copyOfRange(b, 0, NONCE);
        byte[] u = Arrays.copyOfRange(b, NONCE + MAC, b.length);
        byte[] expected = mac(composite, u, nonce);
        return MessageDigest.isEqual(expected, Arrays.copyOfRange(b, NONCE, NONCE + MAC)) ? new String(u, StandardCharsets.UTF_8) : null;
    }

    private byte[] mac(String composite, byte[] user, byte[] nonce) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(key);
            m.update("moses-call".getBytes(StandardCharsets.UTF_8));
            m.update((byte) 0);
            m.update(composite.getBytes(StandardCharsets.UTF_8));
            m.update((byte) 0);
            m.update(user);
            m.update((byte) 0);
            m.update(nonce);
            return Arrays.copyOf(m.doFinal(), MAC);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256: " + e, e);
        }
    }

    private static String encode(byte[] b) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }
}
