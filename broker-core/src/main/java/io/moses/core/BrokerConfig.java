package io.moses.core;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * How to run a broker.
 *
 * @param host           address to listen on
 * @param port           HTTP port (0: any free port)
 * @param deployments    deployment units (ODE format) to deploy at start
 * @param workDir        where deployed units are copied and compiled
 * @param db             knowledge base: an H2 path, "mem:", or a JDBC URL; null for none
 * @param seed           seed file loaded at start, or null
 * @param requestTimeout how long a composite request may take
 * @param invokeTimeout  how long one concrete-service call may take
 * @param httpThreads    front-end threads
 * @param engineThreads  BPEL engine threads
 * @param maxBodyBytes   largest request body accepted
 */
public record BrokerConfig(String host, int port, List<Path> deployments, Path workDir, String db, Path seed,
                           Duration requestTimeout, Duration invokeTimeout, int httpThreads, int engineThreads,
                           long maxBodyBytes) {
    public BrokerConfig {
        deployments = List.copyOf(deployments);
    }

    public static BrokerConfig defaults() {
        return new BrokerConfig("127.0.0.1", 8080, List.of(), Path.of("work"), null, null,
                Duration.ofSeconds(30), Duration.ofSeconds(10), 400, 16, 1 << 20);
    }

    public BrokerConfig withPort(int p) {
        return new BrokerConfig(host, p, deployments, workDir, db, seed, requestTimeout, invokeTimeout, httpThreads, engineThreads, maxBodyBytes);
    }

    public BrokerConfig withHost(String h) {
        return new BrokerConfig(h, port, deployments, workDir, db, seed, requestTimeout, invokeTimeout, httpThreads, engineThreads, maxBodyBytes);
    }

    public BrokerConfig withDeployments(List<Path> d) {
        return new BrokerConfig(host, port, d, workDir, db, seed, requestTimeout, invokeTimeout, httpThreads, engineThreads, maxBodyBytes);
    }

    public BrokerConfig withWorkDir(Path w) {
        return new BrokerConfig(host, port, deployments, w, db, seed, requestTimeout, invokeTimeout, httpThreads, engineThreads, maxBodyBytes);
    }

    public BrokerConfig withDb(String d) {
        return new BrokerConfig(host, port, deployments, workDir, d, seed, requestTimeout, invokeTimeout, httpThreads, engineThreads, maxBodyBytes);
    }

    public BrokerConfig withSeed(Path s) {
        return new BrokerConfig(host, port, deployments, workDir, db, s, requestTimeout, invokeTimeout, httpThreads, engineThreads, maxBodyBytes);
    }

    public BrokerConfig withTimeouts(Duration request, Duration invoke) {
        return new BrokerConfig(host, port, deployments, workDir, db, seed, request, invoke, httpThreads, engineThreads, maxBodyBytes);
    }

    public BrokerConfig withMaxBodyBytes(long m) {
        return new BrokerConfig(host, port, deployments, workDir, db, seed, requestTimeout, invokeTimeout, httpThreads, engineThreads, m);
    }
}
