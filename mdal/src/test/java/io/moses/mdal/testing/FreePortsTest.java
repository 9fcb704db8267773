package io.moses.mdal.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FreePortsTest {
    @Test
    void portsAreOutsideTheEphemeralRangeBindableAndNeverHandedOutTwice() throws Exception {
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        int lo = 32_768, hi = 60_999;
        if (Files.isReadable(range)) {
            String[] r = Files.readAllLines(range).get(0).trim().split("\\s+");
            lo = Integer.parseInt(r[0]);
            hi = Integer.parseInt(r[1]);
        }
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            int p = FreePorts.forServer();
            if (lo > 11_000 || hi < 64_535) assertTrue(p < lo || p > hi, p + " is in the ephemeral range " + lo + "-" + hi);
            assertTrue(seen.add(p), "handed out twice: " + p);
        }
        int p = FreePorts.forServer();
        try (ServerSocket s = new ServerSocket(p, 1, InetAddress.getLoopbackAddress())) {
            assertEquals(p, s.getLocalPort());
        }
    }

    @Test
    void testJvmsRunningAtOncePickFromDisjointSlices() throws Exception {
        assertEquals(java.util.List.of(0, 1), java.util.List.of(FreePorts.slice("1/1")[0], FreePorts.slice("1/1")[1]));
        assertEquals(java.util.List.of(1, 2), java.util.List.of(FreePorts.slice("2/2")[0], FreePorts.slice("2/2")[1]));
        for (String none : new String[] {"", "${surefire.forkNumber}/2", "3/2", "0/2", "x"})
            assertEquals(1, FreePorts.slice(none)[1], "no slice for '" + none + "'");
        // the runner names this JVM's slice to the servers it starts and to the scripts alike
        String slice = System.getProperty("moses.ports.slice", "");
        assertEquals(slice, System.getenv().getOrDefault("MOSES_PORT_SLICE", ""), "the property and the scripts' variable agree");
        int[] mine = FreePorts.slice(slice);
        for (int i = 0; i < 50; i++) assertEquals(mine[0], FreePorts.forServer() % mine[1], "a port of this JVM's slice " + slice);
    }
}
