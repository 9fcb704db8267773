package io.moses.core.frontend;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The seal on a conversation message one replica forwards to another: only the cluster's key
 * makes one, for one message (method, path, body, caller) from one replica to another, for a
 * minute, and once.
 */
class HopSealTest {
    static final String KEY = "8f1e6a0c2b7d4e9f8a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071";
    static final long NOW = 1_790_000_000_000L;
    static final String PATH = "/services/EchoPairService";
    static final ByteBuffer BODY = ByteBuffer.wrap("<s:Envelope/>".getBytes(StandardCharsets.UTF_8));
    final HopSeal r1 = new HopSeal(KEY, "r1"), r2 = new HopSeal(KEY, "r2");
    final String carl = "Basic Y2FybDpjYXJsLXNlY3JldA==";

    /** A seal r2 makes for carl's message to r1. */
    String sealToR1(long at) {
        return r2.seal(new HopSeal.Hop("r2", "r1", "POST", PATH, BODY, carl), at);
    }

    boolean r1Takes(String seal, long now) {
        return r1.verifies("r2", "POST", PATH, BODY, carl, seal, now);
    }

    @Test
    void aSealVerifiesForItsMessageWithinAMinuteOnce() {
        assertTrue(r1Takes(sealToR1(NOW), NOW));
        assertTrue(r1Takes(sealToR1(NOW), NOW + HopSeal.MAX_AGE_MILLIS), "replicas' clocks differ a little");
        assertTrue(r1Takes(sealToR1(NOW), NOW - HopSeal.MAX_AGE_MILLIS));
        assertTrue(r1.verifies("r2", "POST", PATH, null, null, r2.seal(new HopSeal.Hop("r2", "r1", "POST", PATH, null, null), NOW), NOW),
                "a caller without credentials, a message without a body");
        String seal = sealToR1(NOW);
        assertTrue(r1Takes(seal, NOW));
        assertFalse(r1Takes(seal, NOW + 1), "a seal is taken once: sent again, it is a replay");
    }

    @Test
    void aSealIsRefusedForAnotherMessageReplicaCallerOrTimeOrKeyAndWhenMadeUp() {
        String seal = sealToR1(NOW);
        assertFalse(r1.verifies("r3", "POST", PATH, BODY, carl, seal, NOW), "from another replica");
        assertFalse(r2.verifies("r2", "POST", PATH, BODY, carl, seal, NOW), "made out to another replica");
        assertFalse(r1.verifies("r2", "PUT", PATH, BODY, carl, seal, NOW), "another method");
        assertFalse(r1.verifies("r2", "POST", "/services/Other", BODY, carl, seal, NOW), "another path");
        assertFalse(r1.verifies("r2", "POST", PATH, ByteBuffer.wrap("<s:Envelope />".getBytes(StandardCharsets.UTF_8)), carl, seal, NOW),
                "another body");
        assertFalse(r1.verifies("r2", "POST", PATH, BODY, "Basic ZnJlZDpmcmVkLXNlY3JldA==", seal, NOW), "another caller's credentials");
        assertFalse(r1.verifies("r2", "POST", PATH, BODY, null, seal, NOW));
        assertFalse(r1Takes(seal, NOW + HopSeal.MAX_AGE_MILLIS + 1), "too old");
        assertFalse(r1Takes((NOW + 1) + seal.substring(seal.indexOf('.')), NOW), "its time changed");
        String[] p = seal.split("\\.");
        assertFalse(r1Takes(p[0] + ".AAAAAAAAAAAAAAAAAAAAAA." + p[2], NOW), "its nonce changed");
        assertFalse(new HopSeal(KEY.replace('8', '9'), "r1").verifies("r2", "POST", PATH, BODY, carl, seal, NOW), "another cluster's key");
        for (String madeUp : new String[] {null, "", "r1", NOW + ".", NOW + ".AAAA", NOW + "..AAAA", "x.AA.AAAA", NOW + ".AA.!!", "." + seal})
            assertFalse(r1Takes(madeUp, NOW), "made up: " + madeUp);
        assertFalse(r1.verifies(null, "POST", PATH, BODY, carl, seal, NOW));
        assertTrue(r1Takes(seal, NOW), "and none of those used the real one up");
    }
}
