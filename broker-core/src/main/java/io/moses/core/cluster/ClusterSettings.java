package io.moses.core.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How a replica behaves in a cluster (see README "Running a cluster").
 *
 * @param replica the replica's name in the lease and the monitoring windows (unique per cluster)
 * @param lease   how long the optimizer lease lasts without renewal (renewed every third of it)
 * @param drain   after SIGTERM, how long /health says DRAINING while the replica still serves,
 *                before it closes its port and finishes what is in flight: at least the
 *                balancer's health-check interval, so that no new request is sent to a closed port
 * @param advertise where the other replicas reach this one ({@code http://host:port}, or https:// when it serves TLS), or null:
 *                the address it listens on (127.0.0.1 for a wildcard). In containers, or across
 *                machines, a replica listening on 0.0.0.0 must say which name the others use
 */
public record ClusterSettings(String replica, Duration lease, Duration drain, java.net.URI advertise) {
    public ClusterSettings(String replica, Duration lease, Duration drain) {
        this(replica, lease, drain, null);
    }

    public ClusterSettings {
        if (replica == null || replica.isBlank() || replica.length() > 200)
            throw new IllegalArgumentException("--replica needs a name of 1 to 200 characters");
        if (lease.toMillis() < 900) throw new IllegalArgumentException("--lease must be at least 900 ms, was " + lease.toMillis());
        if (drain.isNegative()) throw new IllegalArgumentException("--drain must be >= 0");
        if (advertise != null && (!("http".equals(advertise.getScheme()) || "https".equals(advertise.getScheme())) || advertise.getHost() == null || advertise.getPort() < 1
                || !(advertise.getRawPath() == null || advertise.getRawPath().isEmpty()) || advertise.getRawQuery() != null))
            throw new IllegalArgumentException("--advertise needs http://HOST:PORT or https://HOST:PORT (where the other replicas reach this one), got '"
                    + advertise + "'");
    }

    /** A name that differs between processes and between brokers in one process. */
    public static ClusterSettings defaults() {
        String host = hostName();
        String suffix = HexFormat.of().toHexDigits((short) ThreadLocalRandom.current().nextInt());
        return new ClusterSettings(host + "-" + ProcessHandle.current().pid() + "-" + suffix, Duration.ofSeconds(3), Duration.ZERO);
    }

    private static String hostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return "localhost";
        }
    }

    /**
     * Takes {@code --replica NAME}, {@code --lease MS}, {@code --drain MS} and {@code --advertise
     * URL} out of a command line; the rest goes to {@code parsed.rest}.
     */
    public static Parsed parse(String[] args) {
        ClusterSettings c = defaults();
        boolean named = false;
        List<String> rest = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--replica" -> {
                    c = new ClusterSettings(value(args, ++i, a), c.lease, c.drain, c.advertise);
                    named = true;
                }
                case "--lease" -> c = new ClusterSettings(c.replica, Duration.ofMillis(millis(args, ++i, a)), c.drain, c.advertise);
                case "--drain" -> c = new ClusterSettings(c.replica, c.lease, Duration.ofMillis(millis(args, ++i, a)), c.advertise);
                case "--advertise" -> c = new ClusterSettings(c.replica, c.lease, c.drain, uri(value(args, ++i, a)));
                default -> rest.add(a);
            }
        }
        return new Parsed(c, rest.toArray(String[]::new), named);
    }

    public record Parsed(ClusterSettings settings, String[] rest, boolean named) {
        /**
         * The settings, with a default name that is the same each time a broker starts on the same
         * work directory and knowledge base: a broker restarted with the same command line owns
         * what its predecessor owned (its durable jobs, its conversations' routes).
         */
        public ClusterSettings settings(java.nio.file.Path workDir, String db) {
            if (named) return settings;
            String host = hostName();
            try {
                byte[] h = java.security.MessageDigest.getInstance("SHA-256").digest(
                        (workDir.toAbsolutePath().normalize() + "\n" + db).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                return new ClusterSettings(host + "-" + HexFormat.of().formatHex(h).substring(0, 8), settings.lease, settings.drain,
                        settings.advertise);
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) throw new IllegalArgumentException(option + " needs a value");
        return args[i];
    }

    private static java.net.URI uri(String v) {
        try {
            return new java.net.URI(v.endsWith("/") ? v.substring(0, v.length() - 1) : v);
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException("--advertise needs http://HOST:PORT or https://HOST:PORT, got '" + v + "'");
        }
    }

    private static long millis(String[] args, int i, String option) {
        String v = value(args, i, option);
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " needs milliseconds, got '" + v + "'");
        }
    }
}
