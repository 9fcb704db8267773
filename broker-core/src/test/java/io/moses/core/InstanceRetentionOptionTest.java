package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code --instance-retention}: a week unless told, a number with its unit, or off. */
class InstanceRetentionOptionTest {
    static Duration parsed(String... args) {
        return Main.parse(args).instanceRetention();
    }

    @Test
    void aWeekByDefaultAUnitEachOrOff() {
        assertEquals(Duration.ofDays(7), parsed());
        assertEquals(Duration.ofMinutes(30), parsed("--instance-retention", "30m"));
        assertEquals(Duration.ofHours(12), parsed("--instance-retention", "12h"));
        assertEquals(Duration.ofMillis(500), parsed("--instance-retention", "500ms"));
        assertEquals(Duration.ofDays(2), parsed("--instance-retention", "2d"));
        assertNull(parsed("--instance-retention", "off"));
    }

    @Test
    void anythingElseIsRefusedWithWhatItTakes() {
        for (String bad : new String[] {"0d", "7", "-1d", "7 days", "1w", ""}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parsed("--instance-retention", bad), bad);
            assertTrue(e.getMessage().contains("--instance-retention takes"), e.getMessage());
        }
    }
}
