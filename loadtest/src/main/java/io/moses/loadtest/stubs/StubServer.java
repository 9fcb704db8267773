package io.moses.loadtest.stubs;

import java.io.IOException;
import java.io.PrintStream;
import java.net.http.HttpClient;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One process serving many stub concrete services on one port: SOAP at {@code /stubs/<name>},
 * {@code GET /stubs/<name>?wsdl}, and the admin API at {@code /admin/services}. See
 * loadtest/README.md.
 *
 * <pre>
 * StubServer [--port N] [--host ADDR] [--config FILE]
 *   --port N       default 9090; 0 picks a free port
 *   --host ADDR    address to bind, default 127.0.0.1
 *   --config FILE  YAML (or .json) stub config; default: the shipped processes' stubs
 * </pre>
 * It prints {@code stubs listening on http://127.0.0.1:PORT} once it accepts requests.
 */
public final class StubServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StubServer.class);
    public static final int DEFAULT_PORT = 9090;

    private final Server server;
    private final ScheduledExecutorService scheduler;
    private final ExecutorService callbackThreads;
    private final StubHandler handler;
    private final String host;
    private final int port;

    private StubServer(Server server, ScheduledExecutorService scheduler, ExecutorService callbackThreads,
                       StubHandler handler, String host, int port) {
        this.server = server;
        this.scheduler = scheduler;
        this.callbackThreads = callbackThreads;
        this.handler = handler;
        this.host = host;
        this.port = port;
    }

    /** Starts serving {@code config} on {@code host:port} (port 0: a free one). */
    public static StubServer start(StubConfig config, String host, int port) throws Exception {
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(2, daemonThreads("stub-latency"));
        scheduler.setRemoveOnCancelPolicy(true);
        // asynchronous services' callbacks: sent by a few threads of their own, never the server's
        ExecutorService callbackThreads = Executors.newFixedThreadPool(4, daemonThreads("stub-callback"));
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).executor(callbackThreads).build();
        StubHandler handler = new StubHandler(config.services(), scheduler, http);
        QueuedThreadPool threads = new QueuedThreadPool(200, 8);
        threads.setName("stub-http");
        Server server = new Server(threads);
        ServerConnector connector = new ServerConnector(server, 1, 2);
        connector.setHost(host);
        connector.setPort(port);
        connector.setAcceptQueueSize(4096); // bursts of thousands of new connections from load drivers
        connector.setIdleTimeout(120_000);
        server.addConnector(connector);
        server.setHandler(handler);
        server.setStopTimeout(2_000);
        try {
            server.start();
        } catch (Exception e) {
            scheduler.shutdownNow();
            callbackThreads.shutdownNow();
            try { server.stop(); } catch (Exception ignored) { }
            throw e;
        }
        LOG.info("serving {} stub services: {}", config.services().size(),
                config.services().stream().map(StubSpec::name).toList());
        return new StubServer(server, scheduler, callbackThreads, handler, host, connector.getLocalPort());
    }

    public int port() {
        return port;
    }

    /** Base URL clients use, e.g. http://127.0.0.1:9090 (the loopback address when bound to all). */
    String baseUrl() {
        String h = host.equals("0.0.0.0") || host.equals("::") || host.isEmpty() ? "127.0.0.1" : host;
        return "http://" + (h.contains(":") ? "[" + h + "]" : h) + ":" + port;
    }

    /** The URL of one stub service. */
    public String url(String service) {
        return baseUrl() + "/stubs/" + service;
    }

    /** Current settings and counters of one service (the admin API's JSON object), or null. */
    public Map<String, Object> status(String service) {
        StubService s = handler.service(service);
        return s == null ? null : s.toJson();
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            LOG.warn("stopping the stub server: {}", e.toString());
        }
        scheduler.shutdownNow();
        callbackThreads.shutdownNow();
    }

    private static java.util.concurrent.ThreadFactory daemonThreads(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** main without the exit: 0 after a clean stop, 2 for bad arguments or config, 1 if it cannot start. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        int port = DEFAULT_PORT;
        String host = "127.0.0.1";
        Path configFile = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "-h", "--help" -> {
                    out.println("usage: StubServer [--port N] [--host ADDR] [--config FILE]");
                    out.println("  --port N       port to listen on (default 9090; 0 = a free port)");
                    out.println("  --host ADDR    address to bind (default 127.0.0.1)");
                    out.println("  --config FILE  YAML or JSON stub config (default: the shipped processes' stubs)");
                    return 0;
                }
                case "--port", "--host", "--config" -> {
                    if (i + 1 >= args.length) {
                        err.println("stubs: " + a + " needs a value");
                        return 2;
                    }
                    String v = args[++i];
                    if (a.equals("--port")) {
                        try {
                            port = Integer.parseInt(v);
                        } catch (NumberFormatException e) {
                            port = -1;
                        }
                        if (port < 0 || port > 65535) {
                            err.println("stubs: --port must be a number from 0 to 65535, was '" + v + "'");
                            return 2;
                        }
                    } else if (a.equals("--host")) host = v;
                    else configFile = Path.of(v);
                }
                default -> {
                    err.println("stubs: unknown argument '" + a + "' (usage: StubServer [--port N] [--host ADDR] [--config FILE])");
                    return 2;
                }
            }
        }
        StubConfig config;
        try {
            config = configFile == null ? StubConfig.defaults() : StubConfig.load(configFile);
        } catch (NoSuchFileException e) {
            err.println("stubs: config file " + configFile + " does not exist");
            return 2;
        } catch (IOException e) {
            err.println("stubs: cannot read config file " + configFile + ": " + e.getMessage());
            return 2;
        } catch (IllegalArgumentException e) {
            err.println("stubs: " + e.getMessage());
            return 2;
        }
        StubServer server;
        try {
            server = start(config, host, port);
        } catch (Exception e) {
            err.println("stubs: cannot listen on " + host + ":" + port + ": " + e.getMessage());
            return 1;
        }
        Thread stopper = new Thread(server::close, "stub-shutdown");
        Runtime.getRuntime().addShutdownHook(stopper);
        out.println("stubs listening on " + server.baseUrl());
        out.flush();
        try {
            server.server.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }
}
