package io.moses.mdal.testing;

import io.moses.mdal.Credentials;
import io.moses.testing.Waits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real MariaDB Galera cluster for tests: N nodes on free ports on 127.0.0.1 in a temporary
 * directory, started by {@code cluster/galera.sh} (the script {@code ./moses cluster up --db
 * galera} uses), with a password-protected user. Register it in a test class:
 *
 * <pre>
 *   &#64;RegisterExtension
 *   static final GaleraCluster GALERA = new GaleraCluster(3);
 *   ...
 *   KnowledgeBase kb = Mdal.open(GALERA.createDatabase(), GALERA.credentials());
 * </pre>
 *
 * {@link #createDatabase()} gives a multi-host URL (MDAL connects to the first node that is
 * Synced); {@link #jdbcUrl(String, int)} one node's. Nodes may be {@link #kill(int) killed},
 * {@link #stop(int) stopped} and {@link #start(int) started} again (they rejoin). After the class's
 * last test every node is stopped by its PID and the directory deleted; a test JVM that dies
 * kills them from a shutdown hook.
 *
 * <p>A cluster takes half a minute or more to start: test classes share one with
 * {@code GaleraCluster.shared()} instead. It starts before the first of them, each class
 * leaves it with every node running and Synced (its {@code afterAll} starts a node a failed
 * test left down), and it is stopped by PID when the test run ends (a resource of JUnit's
 * root store). Each test keeps to a database of its own ({@link #createDatabase()}). A class that
 * kills, desyncs or isolates nodes takes a cluster of its own ({@code new GaleraCluster(3)}): one
 * CI run saw every commit of the next class stall for 30 s on a shared cluster after such a class,
 * though its nodes were all back and Synced.
 *
 * <p>Without mariadb-server, galera-4 or rsync the class's tests are skipped with the reason
 * printed, except when CI=true: then they fail.
 */
public final class GaleraCluster implements BeforeAllCallback, AfterAllCallback {
    public static final String USER = MariaDbServer.USER;
    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(GaleraCluster.class);
    private static GaleraCluster shared;

    private final int nodes;
    private final boolean isShared;
    private final String password = "pw" + randomHex();
    private Path dir;
    private List<Integer> ports = List.of();
    private Thread shutdownHook;

    /** A cluster of its own, stopped after the class's last test (or by {@link #close()}). */
    public GaleraCluster(int nodes) {
        this(nodes, false);
    }

    private GaleraCluster(int nodes, boolean isShared) {
        if (nodes < 1) throw new IllegalArgumentException("nodes must be >= 1");
        this.nodes = nodes;
        this.isShared = isShared;
    }

    /** The test JVM's one three-node cluster, shared by the test classes that register it. */
    public static synchronized GaleraCluster shared() {
        if (shared == null) shared = new GaleraCluster(3, true);
        return shared;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        Optional<String> missing = missingReason();
        if (missing.isPresent()) MariaDbServer.skipUnlessCi(context, "Galera tests need mariadb-server, galera-4 and rsync (.ci/run installs them): " + missing.get());
        if (isShared) {
            // closed when the whole test run ends, after the last class that shares it
            context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent("cluster", k -> (AutoCloseable) this::close, AutoCloseable.class);
        }
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (!isShared) {
            close();
            return;
        }
        try {
            restore();
        } catch (Exception | AssertionError e) {
            close(); // the next class starts a new one
            throw e;
        }
    }

    /**
     * Starts every node that is down (the last one started first: it was likely the last to
     * leave, which the others need to form a primary component again) and waits until all are
     * Synced in one primary component.
     */
    private void restore() throws IOException, InterruptedException {
        if (dir == null) return;
        List<String> lines = nodeLines();
        for (int i = lines.size(); i >= 1; i--) if (!lines.get(i - 1).contains(" running ")) start(i);
        Waits.until("the Galera nodes all Synced again", 180,
                () -> nodeLines().stream().filter(l -> l.contains(" Synced ") && l.contains("cluster size " + nodes + " ")).count() == nodes, () -> {
                    try {
                        return nodeLines().toString();
                    } catch (Exception e) {
                        return e.toString();
                    }
                });
    }

    private List<String> nodeLines() throws IOException, InterruptedException {
        return status().lines().filter(l -> l.startsWith("galera-n")).toList();
    }

    /** The cluster script, found from the working directory up (a module or the repository root). */
    static Optional<Path> script() {
        String given = System.getProperty("moses.galera.script");
        if (given != null && !given.isBlank()) return Optional.of(Path.of(given));
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path s = d.resolve("cluster/galera.sh");
            if (Files.isRegularFile(s)) return Optional.of(s);
        }
        return Optional.empty();
    }

    /** Why a Galera cluster cannot run here, if it cannot. */
    public static Optional<String> missingReason() {
        Optional<Path> s = script();
        if (s.isEmpty()) return Optional.of("cluster/galera.sh not found above " + Path.of("").toAbsolutePath());
        try {
            Process p = new ProcessBuilder("bash", s.get().toString(), "missing").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).strip();
            p.waitFor(30, TimeUnit.SECONDS);
            return p.exitValue() == 0 ? Optional.empty() : Optional.of(out);
        } catch (IOException e) {
            return Optional.of("cannot run bash: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of("interrupted");
        }
    }

    // ------------------------------------------------------------------ life cycle

    /** Starts the N nodes (the first bootstraps, the others join by state transfer) and waits until all are Synced. */
    public synchronized void start() throws IOException, InterruptedException {
        if (dir != null) return;
        dir = Files.createTempDirectory("moses-galera-");
        shutdownHook = new Thread(this::killAll, "galera-test-cluster-stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        String hosts = script("up", 600, dir.toString(), String.valueOf(nodes)).strip();
        List<Integer> p = new ArrayList<>();
        for (String h : hosts.substring(hosts.lastIndexOf('\n') + 1).split(",")) p.add(Integer.parseInt(h.substring(h.indexOf(':') + 1)));
        ports = List.copyOf(p);
        // users replicate: created once, on node 1
        admin(1, "CREATE USER '" + USER + "'@'%' IDENTIFIED BY '" + password + "';"
                + "CREATE USER '" + USER + "'@'localhost' IDENTIFIED BY '" + password + "';");
    }

    /** SIGKILLs node {@code i} (1-based): a crash. */
    public void kill(int i) throws IOException, InterruptedException {
        script("node-stop", 90, dir.toString(), String.valueOf(i), "--kill");
    }

    /** Stops node {@code i} gracefully (SIGTERM). */
    public void stop(int i) throws IOException, InterruptedException {
        script("node-stop", 90, dir.toString(), String.valueOf(i));
    }

    /** Starts node {@code i} again and waits until it has rejoined and is Synced. */
    public void start(int i) throws IOException, InterruptedException {
        script("node-start", 300, dir.toString(), String.valueOf(i));
    }

    /** One line per node: running or not, its Galera state, the cluster size it sees. */
    public String status() throws IOException, InterruptedException {
        return script("status", 60, dir.toString());
    }

    /**
     * Copies each node's error log (views, suspicions, flow control, brute-force aborts) to
     * {@code target/galera-logs/} before the data is deleted: a test that failed on the cluster's
     * behaviour (a commit that hung 30 s once, on a loaded machine) is explained by them.
     */
    private void keepErrorLogs() {
        Path to = Path.of("target", "galera-logs", dir.getFileName().toString());
        for (int i = 1; i <= nodes; i++) {
            Path log = dir.resolve("n" + i).resolve("error.log");
            try {
                if (!Files.isRegularFile(log)) continue;
                Files.createDirectories(to);
                Files.copy(log, to.resolve("n" + i + ".log"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException ignored) {
                // best effort: diagnostics only
            }
        }
    }

    /** Stops every node by its PID and deletes the data (each node's error log kept, {@link #keepErrorLogs}). */
    public synchronized void close() {
        if (dir == null) return;
        keepErrorLogs(); // before the script deletes the nodes' directories
        try {
            script("down", 300, dir.toString());
        } catch (IOException | RuntimeException e) {
            killAll();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            killAll();
        }
        if (shutdownHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException ignored) {
                // the JVM is shutting down
            }
            shutdownHook = null;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // best effort: a temporary directory
        }
        dir = null;
    }

    /** The PIDs the script recorded, killed at once (a dying test JVM must leave no node behind). */
    private void killAll() {
        Path state = dir == null ? null : dir.resolve("galera.state");
        if (state == null || !Files.isRegularFile(state)) return;
        try {
            for (String line : Files.readAllLines(state))
                if (line.startsWith("PID_"))
                    ProcessHandle.of(Long.parseLong(line.substring(line.indexOf('=') + 1).strip())).ifPresent(ProcessHandle::destroyForcibly);
        } catch (IOException | NumberFormatException ignored) {
            // best effort
        }
    }

    // ------------------------------------------------------------------ access

    public int nodes() {
        return nodes;
    }

    /** Node {@code i}'s client port (1-based). */
    public int port(int i) {
        return ports.get(i - 1);
    }

    public Credentials credentials() {
        return Credentials.of(USER, password);
    }

    public String user() {
        return USER;
    }

    public String password() {
        return password;
    }

    /** All nodes, in order: MDAL connects to the first that is Synced. */
    public String jdbcUrl(String database) {
        StringBuilder hosts = new StringBuilder();
        for (int p : ports) hosts.append(hosts.isEmpty() ? "" : ",").append("127.0.0.1:").append(p);
        return "jdbc:mariadb://" + hosts + "/" + database;
    }

    /** Node {@code i} alone. */
    public String jdbcUrl(String database, int i) {
        return "jdbc:mariadb://127.0.0.1:" + port(i) + "/" + database;
    }

    /** Creates a new empty database (replicated to every node) and returns its multi-host URL. */
    public String createDatabase() throws IOException, InterruptedException {
        String name = "moses_" + ProcessHandle.current().pid() + "_" + DATABASES.incrementAndGet();
        admin(firstRunning(), "CREATE DATABASE `" + name + "` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;"
                + "GRANT ALL PRIVILEGES ON `" + name + "`.* TO '" + USER + "'@'%';"
                + "GRANT ALL PRIVILEGES ON `" + name + "`.* TO '" + USER + "'@'localhost';");
        return jdbcUrl(name);
    }

    /** The first node that answers (some may have been killed). */
    private int firstRunning() throws IOException, InterruptedException {
        List<String> lines = nodeLines();
        for (int i = 0; i < lines.size(); i++) if (lines.get(i).contains(" Synced ")) return i + 1;
        throw new IllegalStateException("no node is Synced: " + lines);
    }

    /** Runs SQL as root on node {@code i} through its Unix socket. */
    public String admin(int i, String sql) throws IOException, InterruptedException {
        return script("sql", 60, dir.toString(), String.valueOf(i), sql);
    }

    private static String script(String verb, int timeoutSeconds, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("bash", script().orElseThrow().toString(), verb));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("galera.sh " + verb + " timed out");
        }
        String text = new String(out);
        if (p.exitValue() != 0) throw new IllegalStateException("galera.sh " + verb + " failed (" + p.exitValue() + "): " + text.strip());
        return text;
    }

    private static String randomHex() {
        byte[] b = new byte[12];
        new SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    @Override
    public String toString() {
        return "GaleraCluster[" + nodes + " nodes, ports " + ports + ", " + dir + "]";
    }
}
