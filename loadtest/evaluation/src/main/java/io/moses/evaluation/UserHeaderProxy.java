package io.moses.evaluation;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * An HAProxy in front of a target that gives each request its user's Authorization header, for
 * httperf: httperf 0.9 sends the same headers with every request ({@code --add-header}), and its
 * session files carry a URI, a method and a body per request, no headers. Each httperf session
 * asks for {@code PATH?user=NAME}; this proxy looks NAME up in a map file (NAME to
 * {@code Basic <base64>}, written here, mode 600), sets the header, strips the query and passes
 * the request on. So one httperf process sends as all the seed's users, and the adaptive
 * binding sees all their classes. Every target of a run gets the same extra hop.
 */
final class UserHeaderProxy implements AutoCloseable {
    private final Process process;
    private final int port;

    private UserHeaderProxy(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** HAProxy's path, or null when it is not installed (Debian package haproxy). */
    static Path haproxy() {
        for (String d : (System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/usr/local/sbin").split(":"))
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, "haproxy"))) return Path.of(d, "haproxy");
        return null;
    }

    /** The URI a session of {@code user} asks the proxy for. */
    static String path(URI target, Target.User user) {
        return target.getRawPath() + "?user=" + user.name();
    }

    static UserHeaderProxy start(URI target, List<Target.User> users, Path dir, Consumer<String> commands)
            throws IOException, InterruptedException {
        Path haproxy = haproxy();
        if (haproxy == null) throw new IllegalStateException("haproxy is not installed (Debian package haproxy)");
        Files.createDirectories(dir);
        Path map = dir.resolve("users.map");
        StringBuilder m = new StringBuilder();
        for (Target.User u : users) {
            if (!u.name().matches("[A-Za-z0-9._-]+")) throw new IllegalArgumentException("a user name HAProxy's map cannot carry: " + u.name());
            m.append(u.name()).append(' ').append(u.authorization()).append('\n');
        }
        Files.writeString(map, "");
        try {
            Files.setPosixFilePermissions(map, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException ignored) {
            // not a POSIX file system: the report directory is the user's own anyway
        }
        Files.writeString(map, m);
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Path cfg = dir.resolve("user-header-proxy.cfg");
        Files.writeString(cfg, """
                # written by io.moses.evaluation.UserHeaderProxy: each httperf session's user (?user=NAME)
                # becomes its Authorization header (users.map), then the query is dropped
                global
                    maxconn 4000
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 30s
                    timeout server 30s
                frontend users
                    bind 127.0.0.1:%d
                    http-request set-header Authorization %%[url_param(user),map(%s)] if { url_param(user) -m found }
                    http-request set-uri %%[path]
                    default_backend target
                backend target
                    server target %s:%d
                """.formatted(port, map.toAbsolutePath(), target.getHost(), target.getPort()));
        List<String> cmd = List.of(haproxy.toString(), "-f", cfg.toString(), "-db");
        commands.accept(String.join(" ", cmd) + "   # the user header proxy, in front of " + target.getHost() + ":" + target.getPort());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("user-header-proxy.log").toFile()).start();
        UserHeaderProxy proxy = new UserHeaderProxy(p, port);
        long end = System.nanoTime() + 10_000_000_000L;
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return proxy;
            } catch (IOException e) {
                if (!p.isAlive() || System.nanoTime() > end) {
                    proxy.close();
                    throw new IllegalStateException("the user header proxy (HAProxy) did not start: "
                            + Files.readString(dir.resolve("user-header-proxy.log")).strip());
                }
                Thread.sleep(100);
            }
        }
    }

    int port() {
        return port;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
