package io.moses.core;

import io.moses.mdal.testing.FreePorts;
import io.moses.testing.Waits;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * HAProxy as a real process, configured from the repository's template (cluster/haproxy.cfg.in)
 * exactly as {@code ./moses cluster up} renders it: one server line per replica slot.
 */
final class HaProxyProcess implements AutoCloseable {
    static final Path BINARY = Path.of("/usr/sbin/haproxy");
    static final Path TEMPLATE = Path.of("../cluster/haproxy.cfg.in");

    final int frontPort;
    final int statsPort;
    private final Process process;
    private final Path log;

    /** @param servers replica name to port */
    HaProxyProcess(Path dir, Map<String, Integer> servers) throws IOException, InterruptedException {
        frontPort = FreePorts.forServer();
        statsPort = FreePorts.forServer();
        Path cfg = dir.resolve("haproxy.cfg");
        Files.writeString(cfg, render(Files.readString(TEMPLATE), "127.0.0.1", frontPort, statsPort, servers));
        log = dir.resolve("haproxy.log");
        process = new ProcessBuilder(BINARY.toString(), "-f", cfg.toString(), "-db").redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        Waits.until("haproxy answering on its stats port", 20, () -> {
            try {
                stats();
                return true;
            } catch (IOException e) {
                if (!process.isAlive()) throw new AssertionError("haproxy exited: " + Files.readString(log));
                return false;
            }
        }, this::logText);
    }

    static String render(String template, String bind, int front, int stats, Map<String, Integer> servers) {
        StringBuilder lines = new StringBuilder();
        servers.forEach((name, port) -> lines.append("    server ").append(name).append(" 127.0.0.1:").append(port).append(" check\n"));
        return template.replace("@BIND@", bind).replace("@FRONT_PORT@", Integer.toString(front))
                .replace("@STATS_PORT@", Integer.toString(stats)).replace("@SERVERS@", lines.toString().stripTrailing())
                .replace("@TLS_BIND@", "    # no TLS front: the cluster tests speak plain HTTP (ClusterScriptTest checks cluster up's TLS front)");
    }

    static boolean installed() {
        return Files.isExecutable(BINARY);
    }

    String front() {
        return "http://127.0.0.1:" + frontPort;
    }

    /** The stats page (CSV): server name to status (UP, DOWN, ...), backend "replicas" only. */
    Map<String, String> serverStatus() throws IOException, InterruptedException {
        String csv = stats();
        String[] lines = csv.split("\n");
        List<String> header = List.of(lines[0].replaceFirst("^# ", "").split(","));
        int px = header.indexOf("pxname");
        int sv = header.indexOf("svname");
        int st = header.indexOf("status");
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            String[] f = lines[i].split(",", -1);
            if (f.length > st && f[px].equals("replicas") && !f[sv].equals("BACKEND")) out.put(f[sv], f[st]);
        }
        return out;
    }

    /** Per replica (backend "replicas"), how many 2xx responses HAProxy has had from it. */
    Map<String, Long> answered2xx() throws IOException, InterruptedException {
        String[] lines = stats().split("\n");
        List<String> header = List.of(lines[0].replaceFirst("^# ", "").split(","));
        int px = header.indexOf("pxname"), sv = header.indexOf("svname"), ok = header.indexOf("hrsp_2xx");
        Map<String, Long> out = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            String[] f = lines[i].split(",", -1);
            if (f.length > ok && f[px].equals("replicas") && !f[sv].equals("BACKEND")) out.put(f[sv], f[ok].isEmpty() ? 0 : Long.parseLong(f[ok]));
        }
        return out;
    }

    String stats() throws IOException, InterruptedException {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + statsPort + "/;csv"))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) throw new IOException("stats page answered " + r.statusCode());
        return r.body();
    }

    /** Waits until HAProxy's health checks see exactly these replicas UP. */
    void awaitUp(List<String> up, long seconds) {
        AtomicReference<Map<String, String>> status = new AtomicReference<>(Map.of());
        Waits.until("HAProxy seeing " + up + " (and only them) UP", seconds, () -> {
            status.set(serverStatus());
            List<String> nowUp = new ArrayList<>();
            status.get().forEach((k, v) -> {
                if (v.equals("UP")) nowUp.add(k);
            });
            return nowUp.containsAll(up) && up.containsAll(nowUp);
        }, () -> status.get().toString());
    }

    private String logText() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "no log: " + e;
        }
    }

    String log() throws IOException {
        return Files.readString(log);
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
    }
}
