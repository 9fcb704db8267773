package io.moses.core.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ClusterSettingsTest {
    @Test
    void theClusterOptionsAreTakenOutAndTheRestLeftForMoses() {
        ClusterSettings.Parsed p = ClusterSettings.parse(new String[] {"--port", "0", "--replica", "r7", "--drain", "2000",
                "--deploy", "x", "--lease", "5000"});
        assertEquals(new ClusterSettings("r7", Duration.ofSeconds(5), Duration.ofSeconds(2)), p.settings());
        assertArrayEquals(new String[] {"--port", "0", "--deploy", "x"}, p.rest());
    }

    @Test
    void defaultsNameEachBrokerApartAndDoNotDrain() {
        ClusterSettings a = ClusterSettings.defaults();
        assertNotEquals(a.replica(), ClusterSettings.defaults().replica(), "two brokers in one process lead apart");
        assertEquals(Duration.ZERO, a.drain());
        assertEquals(Duration.ofSeconds(3), a.lease());
    }

    @Test
    void badValuesAreRefusedWithTheOptionsName() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ClusterSettings.parse(new String[] {"--lease", "100"}))
                .getMessage().contains("--lease"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ClusterSettings.parse(new String[] {"--drain", "soon"}))
                .getMessage().contains("--drain"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ClusterSettings.parse(new String[] {"--replica"}))
                .getMessage().contains("--replica"));
    }
}
