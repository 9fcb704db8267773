package io.moses.core.frontend;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The seal a replica puts on a conversation message it forwards to the replica that holds the
 * instance ({@link ConversationForwarding#HOP_HEADER}): an HMAC-SHA256, under a key the replicas
 * share through the knowledge base, of the forwarding and the receiving replica's names, the
 * time, a random nonce, the request's method and path, the SHA-256 of its body and the caller's
 * credentials. The owner takes a sealed message as already policed (the replica the caller
 * reached has counted it against the caller's agreed rate); a caller that sets the forwarding
 * header itself cannot seal it, so its requests are policed as any other. A seal holds for
 * {@link #MAX_AGE_MILLIS} either side of the receiver's clock (replicas' clocks differ a little),
 * for that one message to that one replica, once: a seal seen before is refused (the message is
 * then policed as any other), so one captured on the wire buys nothing when sent again.
 */
public final class HopSeal {
    /** The header that carries the seal, next to {@link ConversationForwarding#HOP_HEADER}. */
    public static final String HEADER = "X-Moses-Hop-Seal";
    static final long MAX_AGE_MILLIS = 60_000;
    /** Nonces remembered at most (a minute's forwarded messages at several thousand a second); past it, seals are refused. */
    static final int MAX_REMEMBERED = 500_000;

    private final SecretKeySpec key;
    private final String self;
    private final SecureRandom random = new SecureRandom();
    /** Nonce -> its seal's time: the seals this replica took, until they are too old to verify anyway. */
    private final Map<String, Long> seen = new ConcurrentHashMap<>();

    /** One forwarded message, as the seal covers it. */
    public record Hop(String from, String to, String method, String path, ByteBuffer body, String authorization) {}

    /**
     * @param secret the cluster's shared secret, hex (KnowledgeBase#clusterSecret)
     * @param self   this replica's name: the seals it verifies must be made out to it
     */
    public HopSeal(String secret, String self) {
        byte[] k = HexFormat.of().parseHex(secret);
        if (k.length < 16) throw new IllegalArgumentException("a hop secret needs at least 128 bits");
        this.key = new SecretKeySpec(k, "HmacSHA256");
        this.self = self;
    }

    /** The seal of {@code hop} at {@code nowMillis}: {@code time.nonce.mac}. */
    public String seal(Hop hop, long nowMillis) {
        byte[] n = new byte[16];
        random.nextBytes(n);
        String nonce = Base64.getUrlEncoder().withoutPadding().encodeToString(n);
        return nowMillis + "." + nonce + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(mac(hop, nowMillis, nonce));
    }

    /**
     * Whether {@code seal} is one a replica of this cluster made for this message to this replica,
     * recently, and not seen here before (a true answer uses it up).
     */
    boolean verifies(String forwardedBy, String method, String path, ByteBuffer body, String authorization, String seal, long nowMillis) {
        if (forwardedBy == null || seal == null) return false;
        String[] parts = seal.split("\\.", -1);
        if (parts.length != 3 || parts[1].isEmpty()) return false;
        long at;
        byte[] given;
        try {
            at = Long.parseLong(parts[0]);
            given = Base64.getUrlDecoder().decode(parts[2]);
        } catch (IllegalArgumentException e) {
            return false;
        }
        if (Math.abs(nowMillis - at) > MAX_AGE_MILLIS) return false;
        Hop hop = new Hop(forwardedBy, self, method, path, body, authorization);
        if (!MessageDigest.isEqual(given, mac(hop, at, parts[1]))) return false;
        return firstUse(parts[1], at, nowMillis);
    }

    private boolean firstUse(String nonce, long at, long nowMillis) {
        if (seen.size() >= MAX_REMEMBERED) seen.values().removeIf(t -> Math.abs(nowMillis - t) > MAX_AGE_MILLIS);
        if (seen.size() >= MAX_REMEMBERED) return false; // more than a minute can hold: policed, never replayed
        return seen.putIfAbsent(nonce, at) == null;
    }

    private byte[] mac(Hop hop, long at, String nonce) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(key);
            // the parts separated by a character none of them holds: no two messages make the same input
            String fields = hop.from() + '\n' + hop.to() + '\n' + at + '\n' + nonce + '\n' + hop.method() + '\n' + hop.path() + '\n'
                    + HexFormat.of().formatHex(sha256(hop.body())) + '\n' + (hop.authorization() == null ? "" : hop.authorization());
            return m.doFinal(fields.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }

    private static byte[] sha256(ByteBuffer body) throws NoSuchAlgorithmException {
        MessageDigest d = MessageDigest.getInstance("SHA-256");
        if (body != null) d.update(body.duplicate());
        return d.digest();
    }
}
