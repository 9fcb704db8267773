package io.moses.evaluation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * N broker replicas behind HAProxy over a throwaway MariaDB, started by {@code cluster/cluster.sh
 * up} (the same script as {@code ./moses cluster up}) in its own directory, with the bench's seed,
 * binding and stub services; {@link #close()} runs {@code cluster.sh down}, which stops every
 * process by the PID it recorded and removes the data directory.
 */
final class Cluster implements AutoCloseable {
    private final Path home;
    private final Path dir;
    private final Map<String, String> env;
    private final String url;
    private final Map<String, String> state;
    // an interrupted bench (Ctrl-C) still stops the cluster: its processes are nohup'd, not children
    private final Thread onExit = new Thread(this::down, "cluster-down");
    private volatile boolean down;

    private Cluster(Path home, Path dir, Map<String, String> env, String url, Map<String, String> state) {
        this.home = home;
        this.dir = dir;
        this.env = env;
        this.url = url;
        this.state = state;
        Runtime.getRuntime().addShutdownHook(onExit);
    }

    /**
     * Starts the cluster; throws with the script's output when it fails (it has then stopped what
     * it started).
     */
    static Cluster up(Path home, Path dir, String binding, int replicas, String stubsUrl, Path seed, String brokerClasspath,
                      Consumer<String> commands) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Map<String, String> env = new LinkedHashMap<>();
        env.put("MOSES_CLUSTER_DIR", dir.toString());
        env.put("MOSES_BROKER_CP", brokerClasspath);
        env.put("JAVA_HOME", System.getProperty("java.home"));
        List<String> cmd = List.of("bash", home.resolve("cluster/cluster.sh").toString(), "up", "--replicas", Integer.toString(replicas),
                "--binding", binding, "--seed", seed.toString(), "--stubs", stubsUrl);
        commands.accept("MOSES_CLUSTER_DIR=" + dir + " MOSES_BROKER_CP=$BROKER_CLASSPATH " + String.join(" ", cmd));
        Path log = dir.resolve("cluster-up.log");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(log.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        // cluster.sh bounds its own waits (MariaDB 60 s, each replica 300 s); this only bounds a hang
        if (!p.waitFor(15, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException("cluster.sh up did not finish in 15 minutes: " + log);
        }
        if (p.exitValue() != 0 || !out.startsWith("http://"))
            throw new IllegalStateException("cluster.sh up failed (exit " + p.exitValue() + "): " + Files.readString(log).strip());
        String url = out.lines().reduce((a, b) -> b).orElseThrow();
        return new Cluster(home, dir, env, url, state(Files.readString(dir.resolve("state"))));
    }

    /** cluster.sh's state file: KEY=value lines (values as bash's printf %q writes them; PIDs and ports are plain). */
    static Map<String, String> state(String text) {
        Map<String, String> s = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) s.put(line.substring(0, eq), line.substring(eq + 1)); // a later line wins, as when bash sources it
        }
        return s;
    }

    /** The processes whose CPU is the cluster's: the replicas, HAProxy and MariaDB (not the shared stubs). */
    static List<Long> pids(Map<String, String> state) {
        List<Long> pids = new ArrayList<>();
        for (var e : state.entrySet())
            if ((e.getKey().startsWith("PID_r") || e.getKey().equals("HAPROXY_PID") || e.getKey().equals("MARIADB_PID"))
                    && e.getValue().matches("\\d+"))
                pids.add(Long.parseLong(e.getValue()));
        return pids;
    }

    List<Long> pids() {
        return pids(state);
    }

    /** HAProxy's front, http://127.0.0.1:PORT. */
    String url() {
        return url;
    }

    Path logs() {
        return dir.resolve("logs");
    }

    @Override
    public void close() {
        down();
        try {
            Runtime.getRuntime().removeShutdownHook(onExit);
        } catch (IllegalStateException ignored) {
            // already shutting down: the hook is this call
        }
    }

    private synchronized void down() {
        if (down) return;
        down = true;
        ProcessBuilder pb = new ProcessBuilder("bash", home.resolve("cluster/cluster.sh").toString(), "down").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("cluster-up.log").toFile()));
        pb.environment().putAll(env);
        try {
            Process p = pb.start();
            if (!p.waitFor(3, TimeUnit.MINUTES)) p.destroyForcibly();
        } catch (IOException e) {
            throw new IllegalStateException("cluster.sh down: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
