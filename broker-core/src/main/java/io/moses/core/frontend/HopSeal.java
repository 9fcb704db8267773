package io.moses.core.frontend;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The seal a replica puts on a conversation message it forwards to the replica that holds the
 * instance ({@link ConversationForwarding#HOP_HEADER}): an HMAC-SHA256, under a key the replicas
 * share through the knowledge base, of the forwarding replica's name, the time and the caller's
 * credentials. The owner takes a sealed message as already policed (the replica the caller
 * reached has counted it against the caller's agreed rate); a caller that sets the forwarding
 * header itself cannot seal it, so its requests are policed as any other. A seal holds for
 * {@link #MAX_AGE_MILLIS} either side of the receiver's clock (replicas' clocks differ a little),
 * and only with the credentials it was made for.
 */
public final class HopSeal {
    /** The header that carries the seal, next to {@link ConversationForwarding#HOP_HEADER}. */
    public static final String HEADER = "X-Moses-Hop-Seal";
    static final long MAX_AGE_MILLIS = 60_000;

    private final SecretKeySpec key;

    /** @param secret the cluster's shared secret, hex (KnowledgeBase#clusterSecret) */
    public HopSeal(String secret) {
        byte[] k = HexFormat.of().parseHex(secret);
        if (k.length < 16) throw new IllegalArgumentException("a hop secret needs at least 128 bits");
        key = new SecretKeySpec(k, "HmacSHA256");
    }

    /** The seal of a message {@code replica} forwards at {@code nowMillis} with the caller's {@code authorization} (may be null). */
    public String seal(String replica, String authorization, long nowMillis) {
        return nowMillis + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(mac(replica, authorization, nowMillis));
    }

    /** Whether {@code seal} is one a replica of this cluster made for {@code forwardedBy} and these credentials, recently. */
    boolean verifies(String forwardedBy, String seal, String authorization, long nowMillis) {
        if (forwardedBy == null || seal == null) return false;
        int dot = seal.indexOf('.');
        if (dot <= 0) return false;
        long at;
        byte[] given;
        try {
            at = Long.parseLong(seal.substring(0, dot));
            given = Base64.getUrlDecoder().decode(seal.substring(dot + 1));
        } catch (IllegalArgumentException e) {
            return false;
        }
        if (Math.abs(nowMillis - at) > MAX_AGE_MILLIS) return false;
        return MessageDigest.isEqual(given, mac(forwardedBy, authorization, at));
    }

    private byte[] mac(String replica, String authorization, long at) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(key);
            // the parts separated by a character none of them holds: no two messages make the same input
            return m.doFinal((replica + '\n' + at + '\n' + (authorization == null ? "" : authorization)).getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }
}
