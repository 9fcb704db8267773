package io.moses.core;

import io.moses.core.loop.Adaptation;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * How to run a broker.
 *
 * @param host           address to listen on
 * @param port           HTTP port (0: any free port)
 * @param deployments    deployment units (ODE format) to deploy at start
 * @param workDir        where deployed units are copied and compiled
 * @param db             knowledge base: an H2 path, "mem:", or a JDBC URL (jdbc:mysql:, jdbc:mariadb:)
 * @param seeds          seed files loaded at start, in order
 * @param variables      values for ${NAME} in the seed (else the environment)
 * @param requestTimeout how long a composite request may take
 * @param invokeTimeout  how long one concrete-service call may take
 * @param httpThreads    front-end threads
 * @param engineThreads  BPEL engine threads
 * @param maxBodyBytes   largest request body accepted
 * @param readDeadline   how long a client may take to send a request, headers and body (then 408)
 * @param refreshMillis  how often the replica checks the knowledge base for a new plan
 * @param staticBinding  bind every task to its first concrete service, ignoring the plan (baseline)
 * @param adaptation     monitors, rules and optimizer
 * @param openRegistration anyone may subscribe through the SLA Manager (else only operators)
 * @param registrationCap while registration is open, the users the knowledge base may hold before it refuses more
 * @param maxInstancesPerUser conversations (instances of processes that correlate) one user may have under way (0: no limit)
 * @param usersInMetrics whether /metrics has series per user (they name the users)
 * @param trustedProxies addresses of proxies whose {@code X-Forwarded-For} names the client (for the login throttle)
 * @param overloadBound  composite requests run at once and queued; beyond, 503 (front-end threads follow)
 * @param tlsCert        PEM certificate chain to serve HTTPS with (it may hold the key too), or null: plain HTTP
 * @param tlsKey         PEM PKCS#8 private key of {@code tlsCert}, or null when it is in that file
 * @param reseed         apply the seeds even to a knowledge base that already holds classes, users or services
 * @param operatorFile   a file holding {@code name:password}: the first operator, created at start while none exists (null: none)
 * @param instanceRetention how long finished durable instances are kept for operators to look at, then purged (null: kept for ever)
 * @param publicUrl      where partners reach this broker's services ({@code http[s]://HOST:PORT}, a cluster's front), the
 *                       address of the endpoint references a process hands out (a callback's reply address); null: this
 *                       replica's own address
 */
record BrokerConfig(String host, int port, List<Path> deployments, Path workDir, String db, List<Path> seeds,
                    Map<String, String> variables, Duration requestTimeout, Duration invokeTimeout,
                    int httpThreads, int engineThreads, long maxBodyBytes, Duration readDeadline, long refreshMillis,
                    boolean staticBinding, Adaptation adaptation, boolean openRegistration, int registrationCap,
                    int maxInstancesPerUser, boolean usersInMetrics, List<String> trustedProxies, io.moses.core.frontend.OverloadBound overloadBound,
                    Path tlsCert, Path tlsKey, boolean reseed, Path operatorFile, Duration instanceRetention,
                    java.net.URI publicUrl) {
    /** Finished durable instances kept a week: long enough to look at after a weekend, short enough not to grow the database for ever. */
    static final Duration DEFAULT_INSTANCE_RETENTION = Duration.ofDays(7);

    BrokerConfig {
        deployments = List.copyOf(deployments);
        variables = Map.copyOf(variables);
        seeds = List.copyOf(seeds);
        trustedProxies = List.copyOf(trustedProxies);
        if (db == null) db = workDir.resolve("knowledge").toString();
    }

    static BrokerConfig defaults() {
        return new BrokerConfig("127.0.0.1", 8080, List.of(), Path.of("work"), null, List.of(), Map.of(),
                Duration.ofSeconds(30), Duration.ofSeconds(10), io.moses.core.frontend.OverloadBound.defaults().threads(), 16, 1 << 20,
                io.moses.core.frontend.HttpFrontEnd.DEFAULT_READ_DEADLINE, 1000,
                false, Adaptation.defaults(), false, io.moses.sla.SlaManager.DEFAULT_REGISTRATION_CAP,
                io.moses.core.engine.BpelEngine.DEFAULT_MAX_INSTANCES_PER_USER, false, List.of(), io.moses.core.frontend.OverloadBound.defaults(),
                null, null, false, null, DEFAULT_INSTANCE_RETENTION, null);
    }

    BrokerConfig withPort(int p) { return new Builder(this).port(p).build(); }
    BrokerConfig withHost(String h) { return new Builder(this).host(h).build(); }
    BrokerConfig withDeployments(List<Path> d) { return new Builder(this).deployments(d).build(); }
    /** Also moves the default H2 knowledge base into the new work directory. */
    BrokerConfig withWorkDir(Path w) {
        Builder b = new Builder(this).workDir(w);
        if (db.equals(workDir.resolve("knowledge").toString())) b.db(null);
        return b.build();
    }
    BrokerConfig withDb(String d) { return new Builder(this).db(d).build(); }
    BrokerConfig withSeeds(List<Path> s) { return new Builder(this).seeds(s).build(); }
    BrokerConfig withReseed(boolean r) { return new Builder(this).reseed(r).build(); }
    BrokerConfig withOperatorFile(Path f) { return new Builder(this).operatorFile(f).build(); }
    BrokerConfig withVariables(Map<String, String> v) { return new Builder(this).variables(v).build(); }
    BrokerConfig withTimeouts(Duration request, Duration invoke) { return new Builder(this).timeouts(request, invoke).build(); }
    BrokerConfig withMaxBodyBytes(long m) { return new Builder(this).maxBodyBytes(m).build(); }
    BrokerConfig withReadDeadline(Duration d) { return new Builder(this).readDeadline(d).build(); }
    BrokerConfig withRefreshMillis(long m) { return new Builder(this).refreshMillis(m).build(); }
    BrokerConfig withStaticBinding(boolean s) { return new Builder(this).staticBinding(s).build(); }
    BrokerConfig withAdaptation(Adaptation a) { return new Builder(this).adaptation(a).build(); }
    BrokerConfig withOpenRegistration(boolean open) { return new Builder(this).openRegistration(open).build(); }
    BrokerConfig withRegistrationCap(int cap) { return new Builder(this).registrationCap(cap).build(); }
    BrokerConfig withTrustedProxies(List<String> p) { return new Builder(this).trustedProxies(p).build(); }
    BrokerConfig withMaxInstancesPerUser(int n) { return new Builder(this).maxInstancesPerUser(n).build(); }
    BrokerConfig withUsersInMetrics(boolean u) { return new Builder(this).usersInMetrics(u).build(); }
    BrokerConfig withTls(Path cert, Path key) { return new Builder(this).tls(cert, key).build(); }
    BrokerConfig withInstanceRetention(Duration r) { return new Builder(this).instanceRetention(r).build(); }
    BrokerConfig withPublicUrl(java.net.URI u) { return new Builder(this).publicUrl(u).build(); }
    /** Also sizes the front-end's threads to what the overload bound needs. */
    BrokerConfig withOverloadBound(io.moses.core.frontend.OverloadBound a) {
        return new Builder(this).overloadBound(a).httpThreads(a.threads()).build();
    }

    private static final class Builder {
        String host; int port; List<Path> deployments; Path workDir; String db; List<Path> seeds; Map<String, String> variables;
        Duration requestTimeout; Duration invokeTimeout; int httpThreads; int engineThreads; long maxBodyBytes;
        Duration readDeadline; long refreshMillis; boolean staticBinding; Adaptation adaptation; boolean openRegistration;
        int registrationCap; int maxInstancesPerUser; boolean usersInMetrics; List<String> trustedProxies; io.moses.core.frontend.OverloadBound overloadBound;
        Path tlsCert; Path tlsKey; boolean reseed; Path operatorFile; Duration instanceRetention; java.net.URI publicUrl;

        Builder(BrokerConfig c) {
            host = c.host; port = c.port; deployments = c.deployments; workDir = c.workDir; db = c.db; seeds = c.seeds;
            variables = c.variables; requestTimeout = c.requestTimeout; invokeTimeout = c.invokeTimeout;
            httpThreads = c.httpThreads; engineThreads = c.engineThreads; maxBodyBytes = c.maxBodyBytes;
            readDeadline = c.readDeadline; refreshMillis = c.refreshMillis; staticBinding = c.staticBinding; adaptation = c.adaptation;
            openRegistration = c.openRegistration; registrationCap = c.registrationCap; maxInstancesPerUser = c.maxInstancesPerUser;
            usersInMetrics = c.usersInMetrics; trustedProxies = c.trustedProxies;
            overloadBound = c.overloadBound; tlsCert = c.tlsCert; tlsKey = c.tlsKey; reseed = c.reseed; operatorFile = c.operatorFile;
            instanceRetention = c.instanceRetention; publicUrl = c.publicUrl;
        }

        Builder host(String v) { host = v; return this; }
        Builder port(int v) { port = v; return this; }
        Builder deployments(List<Path> v) { deployments = v; return this; }
        Builder workDir(Path v) { workDir = v; return this; }
        Builder db(String v) { db = v; return this; }
        Builder seeds(List<Path> v) { seeds = v; return this; }
        Builder variables(Map<String, String> v) { variables = v; return this; }
        Builder timeouts(Duration r, Duration i) { requestTimeout = r; invokeTimeout = i; return this; }
        Builder maxBodyBytes(long v) { maxBodyBytes = v; return this; }
        Builder readDeadline(Duration v) { readDeadline = v; return this; }
        Builder refreshMillis(long v) { refreshMillis = v; return this; }
        Builder staticBinding(boolean v) { staticBinding = v; return this; }
        Builder adaptation(Adaptation v) { adaptation = v; return this; }
        Builder openRegistration(boolean v) { openRegistration = v; return this; }
        Builder registrationCap(int v) { registrationCap = v; return this; }
        Builder trustedProxies(List<String> v) { trustedProxies = v; return this; }
        Builder maxInstancesPerUser(int v) { maxInstancesPerUser = v; return this; }
        Builder usersInMetrics(boolean v) { usersInMetrics = v; return this; }
        Builder overloadBound(io.moses.core.frontend.OverloadBound v) { overloadBound = v; return this; }
        Builder httpThreads(int v) { httpThreads = v; return this; }
        Builder tls(Path cert, Path key) { tlsCert = cert; tlsKey = key; return this; }
        Builder reseed(boolean v) { reseed = v; return this; }
        Builder operatorFile(Path v) { operatorFile = v; return this; }
        Builder instanceRetention(Duration v) { instanceRetention = v; return this; }
        Builder publicUrl(java.net.URI v) { publicUrl = v; return this; }

        BrokerConfig build() {
            return new BrokerConfig(host, port, deployments, workDir, db, seeds, variables, requestTimeout, invokeTimeout,
                    httpThreads, engineThreads, maxBodyBytes, readDeadline, refreshMillis, staticBinding, adaptation, openRegistration,
                    registrationCap, maxInstancesPerUser, usersInMetrics, trustedProxies, overloadBound, tlsCert, tlsKey, reseed, operatorFile, instanceRetention,
                    publicUrl);
        }
    }
}
