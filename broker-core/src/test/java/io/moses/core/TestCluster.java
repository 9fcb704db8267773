package io.moses.core;

import io.moses.mdal.testing.FreePorts;
import io.moses.mdal.testing.MariaDbServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A cluster as an operator runs one, for the cluster tests: a new database on a MariaDB server,
 * broker replicas as processes ({@link Main}) on free ports of 127.0.0.1, and HAProxy in front,
 * configured from the repository's template with one server slot per replica name. Tests talk to
 * {@link #front()}; a replica's own port is for checking what that replica holds.
 */
final class TestCluster implements AutoCloseable {
    final Path dir;
    /** The knowledge base's JDBC URL, credentials included. */
    final String db;
    /** Replica name to its port: HAProxy's server slots. */
    final Map<String, Integer> ports = new LinkedHashMap<>();
    final Map<String, ChildProcess> replicas = new LinkedHashMap<>();
    final HaProxyProcess haproxy;

    /** Aborts the calling test class when HAProxy is not installed (fails it on CI, where it must be). */
    static void requireHaProxy() {
        if (HaProxyProcess.installed()) return;
        String reason = "the cluster tests need HAProxy (apt-get install haproxy)";
        if ("true".equalsIgnoreCase(System.getenv("CI"))) throw new IllegalStateException(reason);
        Assumptions.abort(reason);
    }

    /** A new database and HAProxy with a server slot for each of {@code slots}; no replica runs yet. */
    TestCluster(Path dir, MariaDbServer mariadb, List<String> slots) throws Exception {
        requireHaProxy();
        this.dir = dir;
        db = mariadb.createDatabase() + "?user=" + mariadb.user() + "&password=" + mariadb.password();
        for (String r : slots) ports.put(r, FreePorts.forServer());
        haproxy = new HaProxyProcess(dir, ports);
    }

    /** Starts replica {@code name} (its port, work directory, the database, its name, and {@code more}) and waits until it listens. */
    ChildProcess start(String name, String... more) throws Exception {
        return start(name, Map.of(), more);
    }

    /** As {@link #start(String, String...)}, with {@code env} in the replica's environment. */
    ChildProcess start(String name, Map<String, String> env, String... more) throws Exception {
        ports.computeIfAbsent(name, n -> {
            try {
                return FreePorts.forServer(); // outside the balancer
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        List<String> args = new ArrayList<>(List.of("--port", Integer.toString(ports.get(name)), "--work", dir.resolve(name).toString(),
                "--db", db, "--replica", name, "--trusted-proxy", "127.0.0.1")); // HAProxy, which says whom it forwards for
        args.addAll(List.of(more));
        ChildProcess p = new ChildProcess("io.moses.core.Main", args, env);
        replicas.put(name, p);
        p.await(BrokerProcessTest.LISTENING, 300);
        return p;
    }

    String front() {
        return haproxy.front();
    }

    /** A replica's own address, to check what it holds (never to act through). */
    String replica(String name) {
        return "http://127.0.0.1:" + ports.get(name);
    }

    /** The last lines each replica wrote, for an assertion's message. */
    String logs() {
        StringBuilder s = new StringBuilder();
        replicas.forEach((n, p) -> {
            String out = p.output();
            s.append("\n--- ").append(n).append(" (last lines)\n").append(out.substring(Math.max(0, out.length() - 2000)));
        });
        return s.toString();
    }

    /** Kills every replica (SIGKILL: nothing of theirs needs to end cleanly) and HAProxy. */
    @Override
    public void close() throws InterruptedException {
        for (ChildProcess r : replicas.values()) r.process.destroyForcibly();
        for (ChildProcess r : replicas.values()) r.process.waitFor(10, TimeUnit.SECONDS);
        haproxy.close();
    }
}
