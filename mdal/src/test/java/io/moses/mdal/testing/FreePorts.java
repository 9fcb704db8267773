package io.moses.mdal.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for the servers a test starts a moment later (a MariaDB, a broker replica, HAProxy), on
 * 127.0.0.1. A port taken with {@code new ServerSocket(0)} lies in the kernel's ephemeral range
 * ({@code net.ipv4.ip_local_port_range}), where the kernel also picks the local end of every
 * outgoing connection: between its release and the server's bind (seconds, for a MariaDB that is
 * installed first, or a replica's JVM) a connection may take it, and the server fails with
 * "Address already in use". These are picked below that range (above it where it starts too
 * low), free when probed, and not handed out before in this JVM. {@code cluster/ports.sh} does
 * the same for the scripts (a Galera node failed so in CI, 2026-11-28).
 */
public final class FreePorts {
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private FreePorts() {}

    /** This JVM's slice of the ports when test JVMs run at once: {index, count}, index from 0. */
    private static final int[] SLICE = slice(System.getProperty("moses.ports.slice", ""));

    /** "k/n" (k from 1, as surefire numbers its forks) -> {k - 1, n}; anything else -> the whole range. */
    static int[] slice(String spec) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+)/(\\d+)").matcher(spec.strip());
        if (!m.matches()) return new int[] {0, 1};
        int k = Integer.parseInt(m.group(1)), n = Integer.parseInt(m.group(2));
        return n >= 1 && k >= 1 && k <= n ? new int[] {k - 1, n} : new int[] {0, 1};
    }

    /**
     * A port nothing is bound to now, outside the ephemeral range; in this JVM's slice when test
     * JVMs run at once (a port p with p mod n = k - 1 for {@code moses.ports.slice=k/n}), so two of
     * them never pick the same one between its probe and its server's bind.
     */
    public static int forServer() throws IOException {
        int[] range = outsideEphemeral();
        for (int i = 0; i < 500; i++) {
            int p = range[0] + ThreadLocalRandom.current().nextInt(range[1] - range[0] + 1);
            p += Math.floorMod(SLICE[0] - p, SLICE[1]);
            if (p > range[1] || HANDED_OUT.contains(p)) continue;
            try (ServerSocket probe = new ServerSocket()) {
                probe.setReuseAddress(false);
                probe.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), p), 1);
            } catch (IOException taken) {
                continue;
            }
            if (HANDED_OUT.add(p)) return p;
        }
        throw new IOException("no free port in " + range[0] + "-" + range[1]);
    }

    /** The ports below the ephemeral range, or above it; the whole range where neither has room. */
    static int[] outsideEphemeral() {
        int lo = 32_768, hi = 60_999; // Linux's default
        try {
            // readAllLines, not readString: on a /proc file (size 0) readString returned one byte here
            String[] r = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim().split("\\s+");
            lo = Integer.parseInt(r[0]);
            hi = Integer.parseInt(r[1]);
        } catch (IOException | RuntimeException unreadable) {
            // not Linux, or hidden: assume the default
        }
        if (lo > 11_000) return new int[] {10_000, lo - 1};
        if (hi < 64_535) return new int[] {hi + 1, 65_535};
        return new int[] {lo, hi};
    }
}
