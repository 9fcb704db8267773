package io.moses.core.frontend;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The seal on a conversation message one replica forwards to another: only the cluster's key makes one, for one caller, for a minute. */
class HopSealTest {
    static final String KEY = "8f1e6a0c2b7d4e9f8a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071";
    static final long NOW = 1_790_000_000_000L;
    final HopSeal hops = new HopSeal(KEY);
    final String carl = "Basic Y2FybDpjYXJsLXNlY3JldA==";

    @Test
    void aSealVerifiesForItsReplicaAndCallerWithinAMinute() {
        String seal = hops.seal("r1", carl, NOW);
        assertTrue(hops.verifies("r1", seal, carl, NOW));
        assertTrue(hops.verifies("r1", seal, carl, NOW + HopSeal.MAX_AGE_MILLIS), "replicas' clocks differ a little");
        assertTrue(hops.verifies("r1", seal, carl, NOW - HopSeal.MAX_AGE_MILLIS));
        assertTrue(hops.verifies("r2", hops.seal("r2", null, NOW), null, NOW), "a caller without credentials");
    }

    @Test
    void aSealIsRefusedForAnotherReplicaCallerOrTimeOrKeyAndWhenMadeUp() {
        String seal = hops.seal("r1", carl, NOW);
        assertFalse(hops.verifies("r2", seal, carl, NOW), "another replica's name");
        assertFalse(hops.verifies("r1", seal, "Basic ZnJlZDpmcmVkLXNlY3JldA==", NOW), "another caller's credentials");
        assertFalse(hops.verifies("r1", seal, null, NOW));
        assertFalse(hops.verifies("r1", seal, carl, NOW + HopSeal.MAX_AGE_MILLIS + 1), "too old");
        assertFalse(hops.verifies("r1", (NOW + 1) + seal.substring(seal.indexOf('.')), carl, NOW), "its time changed");
        assertFalse(new HopSeal(KEY.replace('8', '9')).verifies("r1", seal, carl, NOW), "another cluster's key");
        for (String madeUp : new String[] {null, "", "r1", NOW + ".", NOW + ".AAAA", "x.AAAA", NOW + ".!!", "." + seal})
            assertFalse(hops.verifies("r1", madeUp, carl, NOW), "made up: " + madeUp);
        assertFalse(hops.verifies(null, seal, carl, NOW));
    }
}
