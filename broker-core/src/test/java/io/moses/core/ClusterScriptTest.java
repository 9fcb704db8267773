package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.mdal.testing.MariaDbServer;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./moses cluster up|status|down} (cluster/cluster.sh) as an operator runs it, with this
 * build's class path instead of a {@code moses build}: every part starts, the front URL serves
 * a composite request, status reports them, and down stops every process up started.
 */
@Tag("e2e")
class ClusterScriptTest {
    @TempDir static Path dir;

    record Run(int exit, String out) {}

    static Run script(String... args) throws IOException, InterruptedException {
        return script(dir.resolve("cluster"), args);
    }

    /** cluster.sh with its state in {@code clusterDir}, this build's class path, 10 minutes at most. */
    static Run script(Path clusterDir, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("bash", "../cluster/cluster.sh"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.put("MOSES_CLUSTER_DIR", clusterDir.toString());
        env.put("MOSES_BROKER_CP", System.getProperty("java.class.path"));
        env.put("MOSES_STUBS_CP", System.getProperty("java.class.path"));
        env.put("JAVA_HOME", System.getProperty("java.home"));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(600, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("cluster.sh " + String.join(" ", args) + " did not finish:\n" + out);
        }
        return new Run(p.exitValue(), out);
    }

    /** The last lines of every part's log, for a failure's message. */
    static String logs() throws IOException {
        StringBuilder s = new StringBuilder();
        Path logs = dir.resolve("cluster/logs");
        if (!Files.isDirectory(logs)) return "";
        try (var files = Files.list(logs)) {
            for (Path f : files.sorted().toList()) {
                List<String> lines = Files.readAllLines(f, java.nio.charset.StandardCharsets.ISO_8859_1);
                s.append("\n--- ").append(f.getFileName()).append('\n')
                        .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 25), lines.size())));
            }
        }
        return s.toString();
    }

    /** The state file's NAME=VALUE lines (values as bash's printf %q writes them: these need no unquoting). */
    static Map<String, String> stateVariables(Path state) throws IOException {
        Map<String, String> vars = new java.util.HashMap<>();
        for (String line : Files.readAllLines(state)) {
            int eq = line.indexOf('=');
            if (eq > 0) vars.put(line.substring(0, eq), line.substring(eq + 1));
        }
        return vars;
    }

    @Test
    void anUnusableTlsCertificateIsRefusedBeforeAnythingStarts() throws Exception {
        Assumptions.assumeTrue(HaProxyProcess.installed(), "needs haproxy (up checks for it first)");
        Path cluster = dir.resolve("refused");
        Run missing = script(cluster, "up", "--tls-cert", dir.resolve("nothing.pem").toString());
        assertEquals(1, missing.exit(), missing.out());
        assertTrue(missing.out().contains("--tls-cert " + dir.resolve("nothing.pem") + ": no such file"), missing.out());
        Path certOnly = dir.resolve("cert-only.pem");
        Files.writeString(certOnly, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
        Run noKey = script(cluster, "up", "--tls-cert", certOnly.toString());
        assertEquals(1, noKey.exit(), noKey.out());
        assertTrue(noKey.out().contains("the certificate chain and its private key in one PEM file"), noKey.out());
        assertFalse(Files.exists(cluster.resolve("state")), "nothing started, no state");
    }

    @Test
    void upServesThroughHaproxyStatusShowsEachPartAndDownStopsThemAll() throws Exception {
        if (!HaProxyProcess.installed() || !MariaDbServer.installed()) {
            String reason = "needs haproxy and mariadb-server";
            if ("true".equalsIgnoreCase(System.getenv("CI"))) throw new IllegalStateException(reason);
            Assumptions.abort(reason);
        }
        List<Long> pids = new ArrayList<>();
        try {
            Run up = script("up", "--replicas", "1"); // ClusterTest runs two; this is about the script
            Path state = dir.resolve("cluster/state");
            if (Files.exists(state))
                for (String line : Files.readAllLines(state))
                    if (line.matches("(PID_r\\d+|STUBS_PID|MARIADB_PID|HAPROXY_PID)=\\d+")) pids.add(Long.parseLong(line.split("=")[1]));
            assertEquals(0, up.exit(), up.out() + logs());
            String front = up.out().lines().filter(l -> l.startsWith("http://127.0.0.1:")).findFirst().orElseThrow(() -> new AssertionError(up.out()));
            assertEquals(4, pids.size(), "MariaDB, stubs, a replica, HAProxy: " + pids);
            HttpResponse<String> r = TripPlannerEndToEndTest.planTrip("alice", "alice-demo", true, 1, front);
            assertEquals(200, r.statusCode(), r.body());
            assertFalse(r.headers().firstValue("Strict-Transport-Security").isPresent(), "no HSTS on the plain front");

            // the TLS front, with the certificate up made: HAProxy decrypts and tells the replica so
            Map<String, String> vars = stateVariables(state);
            String tlsFront = "https://127.0.0.1:" + vars.get("TLS_FRONT_PORT");
            Path ca = Path.of(vars.get("TLS_CA"));
            assertEquals(dir.resolve("cluster/tls/front.crt").toString(), ca.toString());
            assertTrue(up.out().contains("TLS front on " + tlsFront), up.out());
            java.net.http.HttpClient trusting = java.net.http.HttpClient.newBuilder().sslContext(TestCertificates.trusting(ca)).build();
            HttpResponse<String> overTls = TripPlannerEndToEndTest.planTrip(trusting, "alice", "alice-demo", true, 1, tlsFront);
            assertEquals(200, overTls.statusCode(), overTls.body());
            assertEquals("max-age=31536000", overTls.headers().firstValue("Strict-Transport-Security").orElse(null));
            assertEquals("TLSv1.3", overTls.sslSession().orElseThrow().getProtocol());
            // a client's own claim on the plain front is replaced by HAProxy's word
            HttpResponse<String> claimed = TripPlannerEndToEndTest.HTTP.send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(front + "/health")).header("X-Forwarded-Proto", "https").build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, claimed.statusCode(), claimed.body());
            assertFalse(claimed.headers().firstValue("Strict-Transport-Security").isPresent(), "HAProxy set X-Forwarded-Proto http");
            String curl = TestCertificates.run(List.of("curl", "-sS", "--cacert", ca.toString(), "-o", "/dev/null", "-w", "%{http_code}",
                    tlsFront + "/health"));
            assertEquals("200", curl, "curl --cacert, as up says");
            String replica = Files.readString(dir.resolve("cluster/logs/r1.log"));
            assertTrue(replica.contains("variables in io.moses.ode.VariableStore"), "the broker's variable store: " + replica);

            Run status = script("status");
            assertEquals(0, status.exit(), status.out());
            assertTrue(status.out().contains("readiness UP"), status.out());
            assertEquals(1, status.out().lines().filter(l -> l.contains("optimizer leader")).count(), status.out());
            assertTrue(status.out().contains("haproxy sees r1 UP"), status.out());
            assertTrue(status.out().contains("front " + tlsFront + "  (curl --cacert " + ca + ")"), status.out());

            Run again = script("up");
            assertEquals(1, again.exit(), "a second up is refused while one runs: " + again.out());
        } finally {
            Run down = script("down");
            assertEquals(0, down.exit(), down.out());
            for (long pid : pids) {
                ProcessHandle.of(pid).ifPresent(h -> h.onExit().orTimeout(30, TimeUnit.SECONDS).join());
                assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "process " + pid + " stopped");
            }
        }
        Run status = script("status");
        assertEquals(3, status.exit(), "no cluster after down: " + status.out());
    }
}
