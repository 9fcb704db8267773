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
        for (String bad : new String[] {"broker-1:8080", "http://broker-1", "http://broker-1:8080/services", "ftp://b:21", "http://b:1?x=y", "::"})
            assertTrue(assertThrows(IllegalArgumentException.class, () -> ClusterSettings.parse(new String[] {"--advertise", bad}))
                    .getMessage().contains("--advertise needs http://HOST:PORT"), bad);
    }

    @Test
    void aReplicaSaysWhereTheOthersReachIt() {
        assertEquals(java.net.URI.create("http://broker-1:8080"),
                ClusterSettings.parse(new String[] {"--advertise", "http://broker-1:8080/", "--replica", "r1"}).settings().advertise());
        assertEquals(java.net.URI.create("https://broker-1:8443"),
                ClusterSettings.parse(new String[] {"--advertise", "https://broker-1:8443"}).settings().advertise(), "a replica serving TLS");
        assertEquals(null, ClusterSettings.defaults().advertise(), "by default, the address it listens on");
    }
}
