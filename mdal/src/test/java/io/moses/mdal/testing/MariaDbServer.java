package io.moses.mdal.testing;

import io.moses.mdal.Credentials;
import io.moses.testing.Waits;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
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
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real MariaDB server for tests: Debian's {@code mariadb-server} binaries, a temporary data
 * directory, a free port on 127.0.0.1, a password-protected user. Register it in a test class:
 *
 * <pre>
 *   &#64;RegisterExtension
 *   static final MariaDbServer MARIADB = new MariaDbServer();
 *   ...
 *   KnowledgeBase kb = Mdal.open(MARIADB.createDatabase(), MARIADB.credentials());
 * </pre>
 *
 * It starts before the class's first test and is stopped and deleted after the last. It may be
 * {@link #stop() stopped} and {@link #start() started} again in between: same port, same data.
 * Administration (databases, grants) goes through the Unix socket as root; the tests' user
 * connects over TCP with a password, like the broker does.
 *
 * <p>If the binaries are missing, the class's tests are skipped with the reason printed, except
 * when the environment has CI=true: then they fail, so a CI run cannot silently skip them.
 */
public final class MariaDbServer implements BeforeAllCallback, AfterAllCallback {
    public static final String USER = "moses";
    private static final AtomicInteger DATABASES = new AtomicInteger();

    private final String password = randomPassword();
    private Path dir;
    private int port;
    private Process process;
    private Thread shutdownHook;

    // ------------------------------------------------------------------ JUnit

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        Optional<String> missing = missingReason();
        if (missing.isPresent()) skipUnlessCi(context, "MariaDB tests need Debian's mariadb-server (apt-get install -y mariadb-server): " + missing.get());
        start();
    }

    /** Skips the tests that need a server this machine lacks, except under CI, where a missing install step must fail. */
    static void skipUnlessCi(ExtensionContext context, String reason) {
        if ("true".equalsIgnoreCase(System.getenv("CI"))) throw new IllegalStateException(reason + " [CI=true: not skipping]");
        System.out.println("SKIPPED " + context.getDisplayName() + ": " + reason);
        Assumptions.abort(reason);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    // ------------------------------------------------------------------ binaries

    /** Set to look for the binaries only in this directory (for example a MariaDB tarball's bin/). */
    public static final String BIN_DIR_PROPERTY = "moses.mariadb.bindir";

    private static Optional<Path> binary(String... names) {
        List<Path> dirs = new ArrayList<>();
        String only = System.getProperty(BIN_DIR_PROPERTY);
        if (only != null && !only.isBlank()) {
            dirs.add(Path.of(only));
        } else {
            dirs.addAll(List.of(Path.of("/usr/sbin"), Path.of("/usr/bin"), Path.of("/usr/local/sbin"), Path.of("/usr/local/bin")));
            String path = System.getenv("PATH");
            if (path != null) for (String d : path.split(":")) if (!d.isBlank()) dirs.add(Path.of(d));
        }
        for (String n : names)
            for (Path d : dirs) {
                Path p = d.resolve(n);
                if (Files.isExecutable(p)) return Optional.of(p);
            }
        return Optional.empty();
    }

    private static Path server() {
        return binary("mariadbd", "mysqld").orElseThrow();
    }

    private static Path installDb() {
        return binary("mariadb-install-db", "mysql_install_db").orElseThrow();
    }

    private static Path client() {
        return binary("mariadb", "mysql").orElseThrow();
    }

    /** Why the server cannot run here, if it cannot. */
    public static Optional<String> missingReason() {
        if (binary("mariadbd", "mysqld").isEmpty()) return Optional.of("no mariadbd/mysqld found");
        if (binary("mariadb-install-db", "mysql_install_db").isEmpty()) return Optional.of("no mariadb-install-db found");
        if (binary("mariadb", "mysql").isEmpty()) return Optional.of("no mariadb client found");
        return Optional.empty();
    }

    public static boolean installed() {
        return missingReason().isEmpty();
    }

    // ------------------------------------------------------------------ life cycle

    /** Starts the server: the first time in a new data directory on a free port, later on the same ones. */
    public synchronized void start() throws IOException, InterruptedException {
        if (isRunning()) return;
        if (dir == null) {
            dir = Files.createTempDirectory("moses-mariadb-");
            port = FreePorts.forServer();
            // a tmpdir of its own: a starting server deletes the #sql temporary files it finds in its
            // tmpdir, and a shared /tmp holds those of servers other test JVMs are installing
            Files.createDirectories(dir.resolve("tmp"));
            List<String> install = new ArrayList<>(List.of(installDb().toString(), "--no-defaults", "--datadir=" + dir.resolve("data"),
                    "--tmpdir=" + dir.resolve("tmp"),
                    "--auth-root-authentication-method=normal", "--skip-test-db"));
            if (isRoot()) install.add("--user=root");
            run(install, 60, "mariadb-install-db");
            launch();
            admin("CREATE USER '" + USER + "'@'%' IDENTIFIED BY '" + password + "';"
                    + "CREATE USER '" + USER + "'@'localhost' IDENTIFIED BY '" + password + "';");
        } else {
            launch();
        }
        if (shutdownHook == null) {
            // a test JVM killed mid-run must not leave a server behind
            shutdownHook = new Thread(() -> {
                Process p = process;
                if (p != null) p.destroyForcibly();
            }, "mariadb-test-server-stop");
            Runtime.getRuntime().addShutdownHook(shutdownHook);
        }
    }

    private void launch() throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(server().toString(), "--no-defaults",
                "--datadir=" + dir.resolve("data"), "--tmpdir=" + dir.resolve("tmp"), "--port=" + port, "--bind-address=127.0.0.1",
                "--socket=" + socket(), "--pid-file=" + dir.resolve("mariadbd.pid"), "--log-error=" + dir.resolve("mariadbd.err"),
                "--skip-name-resolve", "--character-set-server=utf8mb4", "--collation-server=utf8mb4_bin",
                "--innodb-buffer-pool-size=64M", "--innodb-flush-log-at-trx-commit=2", "--max-connections=200"));
        if (isRoot()) cmd.add("--user=root");
        process = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("mariadbd.out").toFile())).start();
        try {
            Waits.until("mariadbd answering", 60, () -> {
                if (acceptsTcp() && pings()) return true;
                if (!process.isAlive()) throw new AssertionError("mariadbd exited with " + process.exitValue() + ": " + logTail());
                return false;
            }, this::logTail);
        } catch (AssertionError e) {
            process.destroyForcibly();
            throw e;
        }
    }

    /** Stops the server gracefully (SIGTERM, as an operator or systemd would); data stays. */
    public synchronized void stop() throws InterruptedException {
        if (process == null) return;
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        process = null;
    }

    /** Kills the server at once (SIGKILL): a crash. */
    public synchronized void kill() throws InterruptedException {
        if (process == null) return;
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        process = null;
    }

    /** Stops the server and deletes its data. */
    public synchronized void close() {
        try {
            stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (shutdownHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException ignored) {
                // the JVM is shutting down
            }
            shutdownHook = null;
        }
        if (dir != null) {
            try (Stream<Path> s = Files.walk(dir)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException ignored) {
                // best effort: it is a temporary directory
            }
            dir = null;
        }
    }

    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    // ------------------------------------------------------------------ access

    public int port() {
        return port;
    }

    public String user() {
        return USER;
    }

    public String password() {
        return password;
    }

    public Credentials credentials() {
        return Credentials.of(USER, password);
    }

    /** A JDBC URL (jdbc:mariadb:, which MDAL maps to Connector/J) for a database, without credentials. */
    public String jdbcUrl(String database) {
        return "jdbc:mariadb://127.0.0.1:" + port + "/" + database;
    }

    /** Creates a new empty database the tests' user may use fully, and returns its JDBC URL. */
    public String createDatabase() throws IOException, InterruptedException {
        String name = "moses_" + ProcessHandle.current().pid() + "_" + DATABASES.incrementAndGet();
        admin("CREATE DATABASE `" + name + "` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;"
                + "GRANT ALL PRIVILEGES ON `" + name + "`.* TO '" + USER + "'@'%';"
                + "GRANT ALL PRIVILEGES ON `" + name + "`.* TO '" + USER + "'@'localhost';");
        return jdbcUrl(name);
    }

    /** Runs SQL as root through the Unix socket. */
    public String admin(String sql) throws IOException, InterruptedException {
        return run(List.of(client().toString(), "--no-defaults", "--socket=" + socket(), "-uroot", "--batch", "-e", sql), 30,
                "mariadb client");
    }

    private Path socket() {
        return dir.resolve("mariadbd.sock");
    }

    // ------------------------------------------------------------------ helpers

    private boolean pings() {
        try {
            admin("SELECT 1");
            return true;
        } catch (IOException | IllegalStateException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private boolean acceptsTcp() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static String run(List<String> cmd, int timeoutSeconds, String what) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(what + " timed out");
        }
        String text = new String(out);
        if (p.exitValue() != 0) throw new IllegalStateException(what + " failed (" + p.exitValue() + "): " + text.strip());
        return text;
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(dir.resolve("mariadbd.err"));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (IOException e) {
            return "(no error log)";
        }
    }

    private static String randomPassword() {
        byte[] b = new byte[12];
        new SecureRandom().nextBytes(b);
        return "pw" + HexFormat.of().formatHex(b);
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    @Override
    public String toString() {
        return "MariaDbServer[127.0.0.1:" + port + ", " + dir + "]";
    }
}
