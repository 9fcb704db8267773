package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * docker-compose.yml, the Dockerfile and HAProxy's compose configuration, checked without a
 * Docker engine: by parsing, by HAProxy's own configuration check, and by {@code docker compose
 * config} where the client has the compose plugin.
 */
class DockerComposeTest {
    static final Path ROOT = Path.of("..");
    /** Strict about a key given twice (YAML parsers differ: compose refuses such a file, others keep the last). */
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    static JsonNode compose() throws Exception {
        return YAML.readTree(ROOT.resolve("docker-compose.yml").toFile());
    }

    @Test
    void theTopologyIsTheClustersAndStartsInDependencyOrder() throws Exception {
        JsonNode services = compose().path("services");
        Set<String> names = new TreeSet<>();
        services.fieldNames().forEachRemaining(names::add);
        // the services by name, in one string: a list of bare names reads like a command line to tools that look for one
        assertEquals(Set.of("mariadb stubs broker-1 broker-2 haproxy prometheus grafana jaeger".split(" ")), names);
        // every replica waits for a healthy database and stubs; the second for the first (which seeds)
        for (String b : List.of("broker-1", "broker-2")) {
            JsonNode s = services.path(b);
            assertEquals("service_healthy", s.path("depends_on").path("mariadb").path("condition").asText(), b);
            assertEquals("service_healthy", s.path("depends_on").path("stubs").path("condition").asText(), b);
            assertTrue(s.path("healthcheck").path("test").toString().contains("/health"), b + " is checked on /health");
            String cmd = s.path("command").toString();
            assertTrue(cmd.contains("jdbc:mariadb://mariadb:3306/moses") && cmd.contains("\"--replica\",\"" + b + "\"")
                    && cmd.contains("\"--drain\""), cmd);
            // the others forward conversations to the name they reach it by, not to 127.0.0.1 (itself)
            assertTrue(cmd.contains("\"--advertise\",\"http://" + b + ":8080\""), cmd);
            // a process's own references (a callback's reply address) name the front, which any replica behind answers
            assertTrue(cmd.contains("\"--public-url\",\"http://haproxy:8080\""), cmd);
            assertEquals("moses", s.path("environment").path("MOSES_DB_USER").asText());
            // failed logins are counted per client: HAProxy, at its fixed address, says whom it forwards for
            assertTrue(cmd.contains("\"--trusted-proxy\",\"172.28.0.10\""), cmd);
        }
        assertEquals("172.28.0.10", services.path("haproxy").path("networks").path("default").path("ipv4_address").asText());
        assertEquals("172.28.0.0/16", compose().path("networks").path("default").path("ipam").path("config").path(0).path("subnet").asText());
        // no demo users in a deployment: the first operator comes from a secret file
        for (String b : List.of("broker-1", "broker-2"))
            assertTrue(!services.path(b).path("command").toString().contains("--seed"), b + " loads no seed");
        assertTrue(services.path("broker-1").path("command").toString().contains("\"--operator-file\",\"/run/secrets/moses_operator\""));
        assertEquals("[\"moses_operator\"]", services.path("broker-1").path("secrets").toString());
        assertEquals("service_healthy", services.path("broker-2").path("depends_on").path("broker-1").path("condition").asText());
        JsonNode haproxy = services.path("haproxy");
        assertEquals("service_healthy", haproxy.path("depends_on").path("broker-1").path("condition").asText());
        assertEquals("service_healthy", haproxy.path("depends_on").path("broker-2").path("condition").asText());
        List<String> ports = new ArrayList<>();
        haproxy.path("ports").forEach(p -> ports.add(p.asText()));
        assertEquals(List.of("8443:8443", "127.0.0.1:8080:8080", "127.0.0.1:8404:8404"), ports,
                "the TLS front, and the plain front and the stats page on the host's loopback only");
        assertTrue(haproxy.path("volumes").toString().contains("./cluster/haproxy-compose.cfg:"));
        // the certificate the TLS front serves is the operator's file, mounted where the configuration reads it
        assertEquals("[\"moses_tls\"]", haproxy.path("secrets").toString());
        assertEquals("${MOSES_TLS_PEM:-./work/tls/front.pem}", compose().path("secrets").path("moses_tls").path("file").asText());
        assertTrue(services.path("mariadb").path("healthcheck").path("test").toString().contains("healthcheck.sh"));
        assertTrue(services.path("mariadb").path("command").toString().contains("utf8mb4_bin"), "the collation MDAL expects");
    }

    /**
     * Prometheus scrapes both replicas with the rules loaded, Grafana provisions the dashboard,
     * Jaeger takes the replicas' traces; what they mount is in the repository, their pages are on
     * the host's loopback only.
     */
    @Test
    void theMonitoringRunsBesideTheCluster() throws Exception {
        JsonNode services = compose().path("services");
        JsonNode prometheus = services.path("prometheus");
        assertTrue(prometheus.path("image").asText().startsWith("prom/prometheus:"));
        assertTrue(prometheus.path("volumes").toString().contains("\"./monitoring/prometheus:/etc/prometheus:ro\""), prometheus.toString());
        assertTrue(prometheus.path("command").toString().contains("--config.file=/etc/prometheus/prometheus.yml"), prometheus.toString());
        String scrape = Files.readString(ROOT.resolve("monitoring/prometheus/prometheus.yml"));
        // the names the replicas advertise, each scraped on its own (HAProxy would alternate between them)
        for (String b : List.of("broker-1", "broker-2")) assertTrue(scrape.contains("'" + b + ":8080'"), scrape);
        assertTrue(scrape.contains("rule_files:\n  - rules.yml"), scrape);
        JsonNode grafana = services.path("grafana");
        assertTrue(grafana.path("image").asText().startsWith("grafana/grafana:"));
        String mounts = grafana.path("volumes").toString();
        assertTrue(mounts.contains("\"./monitoring/grafana/provisioning:/etc/grafana/provisioning:ro\"")
                && mounts.contains("\"./monitoring/grafana/dashboards:/var/lib/grafana/dashboards:ro\""), mounts);
        String home = grafana.path("environment").path("GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH").asText();
        assertTrue(Files.exists(ROOT.resolve("monitoring/grafana/dashboards").resolve(home.substring("/var/lib/grafana/dashboards/".length()))), home);
        assertEquals("Viewer", grafana.path("environment").path("GF_AUTH_ANONYMOUS_ORG_ROLE").asText(), "anonymous visitors only read");
        assertTrue(services.path("jaeger").path("image").asText().startsWith("jaegertracing/all-in-one:"));
        for (String b : List.of("broker-1", "broker-2")) {
            JsonNode env = services.path(b).path("environment");
            assertEquals("http://jaeger:4318", env.path("OTEL_EXPORTER_OTLP_ENDPOINT").asText(), b + " exports OTLP/HTTP to Jaeger");
            assertEquals("moses-broker", env.path("OTEL_SERVICE_NAME").asText());
            assertEquals("service.instance.id=" + b, env.path("OTEL_RESOURCE_ATTRIBUTES").asText());
        }
        // HAProxy's TLS front is the one port published beyond the host (its own test says so)
        services.fields().forEachRemaining(e -> e.getValue().path("ports").forEach(p -> {
            if (!p.asText().equals("8443:8443"))
                assertTrue(p.asText().startsWith("127.0.0.1:"), e.getKey() + " publishes " + p + " beyond the host");
        }));
        // every file and directory a service mounts from the repository is there
        services.fields().forEachRemaining(e -> e.getValue().path("volumes").forEach(v -> {
            String host = v.asText().split(":")[0];
            if (host.startsWith("./")) assertTrue(Files.exists(ROOT.resolve(host)), e.getKey() + " mounts " + host + ", which is missing");
        }));
    }

    @Test
    void noSecretHasADefault() throws Exception {
        for (String file : List.of("docker-compose.yml", "docker-compose.galera.yml")) {
            String text = Files.readString(ROOT.resolve(file));
            assertTrue(!text.contains("change-me") && !Pattern.compile("PASSWORD:-").matcher(text).find(), file + " gives a password a default");
            assertTrue(text.contains("${MOSES_DB_PASSWORD:?"), file + " requires the database password");
            assertTrue(text.contains("file: ${MOSES_OPERATOR_FILE:?"), file + " requires the first operator's secret file");
            assertTrue(!text.contains("seed.yaml\","), file + " loads no demo seed");
        }
    }

    @Test
    void theDockerfileBuildsTheBrokerAndTheStubs() throws Exception {
        String d = Files.readString(ROOT.resolve("Dockerfile"));
        assertTrue(d.contains("mvn -B -q -DskipTests install"), d);
        assertTrue(d.contains("\"io.moses.core.Main\"") && d.contains("ENTRYPOINT [\"java\""), "exec form: the JVM gets SIGTERM");
        assertTrue(d.contains("io.moses.loadtest.stubs.StubServer") && d.contains("EXPOSE 8080") && d.contains("HEALTHCHECK"));
        // the entry points name classes that exist
        assertTrue(Files.exists(ROOT.resolve("broker-core/src/main/java/io/moses/core/Main.java")));
        assertTrue(Files.exists(ROOT.resolve("loadtest/src/main/java/io/moses/loadtest/stubs/StubServer.java")));
    }

    /**
     * The image's brokers get the heap, collector and JIT options {@code ./moses run} gives (the
     * thread priority options aside: the image runs as a user that may not raise a priority).
     */
    @Test
    void theImageGivesBrokersTheLaunchersJvmOptions() throws Exception {
        Matcher m = Pattern.compile("(?m)^ENV JDK_JAVA_OPTIONS=\"([^\"]*)\"$")
                .matcher(Files.readString(ROOT.resolve("Dockerfile")));
        assertTrue(m.find(), "the Dockerfile sets JDK_JAVA_OPTIONS");
        ProcessBuilder pb = new ProcessBuilder("bash", "moses", "jvm-options").directory(ROOT.toFile());
        pb.environment().remove("MOSES_JAVA_OPTS");
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        Process p = pb.start();
        String launcher = new String(p.getInputStream().readAllBytes()).trim(); // to its end: the script has ended
        assertEquals(0, p.waitFor(), launcher);
        List<String> expected = new ArrayList<>(List.of(launcher.split("\\s+")));
        expected.removeIf(o -> o.startsWith("-XX:ThreadPriorityPolicy=") || o.startsWith("-XX:CompilerThreadPriority="));
        assertEquals(expected, List.of(m.group(1).trim().split("\\s+")));
    }

    @Test
    void haproxysComposeConfigurationIsValidAndKeepsTheTemplatesSettings() throws Exception {
        String compose = Files.readString(ROOT.resolve("cluster/haproxy-compose.cfg"));
        String template = Files.readString(HaProxyProcess.TEMPLATE);
        for (String setting : List.of("option httpchk GET /health", "http-check expect status 200", "option redispatch 1",
                "retry-on conn-failure empty-response junk-response", "option http-buffer-request", "inter 500ms fall 2 rise 2", "stats enable"))
            assertTrue(compose.contains(setting) && template.contains(setting), setting);
        assertTrue(compose.contains("server broker-1 broker-1:8080 check") && compose.contains("server broker-2 broker-2:8080 check"));
        for (String setting : List.of("http-request set-header X-Forwarded-Proto https if { ssl_fc }",
                "http-request set-header X-Forwarded-Proto http if !{ ssl_fc }"))
            assertTrue(compose.contains(setting) && template.contains(setting), setting);
        // cluster up writes its TLS bind line with the same options
        assertTrue(Files.readString(ROOT.resolve("cluster/cluster.sh")).contains("ssl-min-ver TLSv1.2 alpn http/1.1"));
        String tlsBind = "bind :8443 ssl crt /run/secrets/moses_tls ssl-min-ver TLSv1.2 alpn http/1.1";
        assertTrue(compose.contains(tlsBind), "the TLS front reads the compose secret");
        if (HaProxyProcess.installed()) {
            // checked with a certificate where the container has the secret: HAProxy loads it
            Path dir = Files.createTempDirectory("haproxy-compose");
            Path[] made = TestCertificates.selfSigned(dir, "front");
            Path pem = dir.resolve("front.pem");
            Files.writeString(pem, Files.readString(made[0]) + Files.readString(made[1]));
            Path cfg = dir.resolve("haproxy.cfg");
            Files.writeString(cfg, compose.replace("/run/secrets/moses_tls", pem.toString()));
            Process p = new ProcessBuilder(HaProxyProcess.BINARY.toString(), "-c", "-f", cfg.toString())
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, p.exitValue(), out);
        }
    }

    @Test
    void dockerComposeAcceptsTheFileWhereItIsInstalled() throws Exception {
        assertComposeAccepts("docker-compose.yml");
    }

    /** {@code docker compose -f FILE config}, where the client has the compose plugin. */
    static void assertComposeAccepts(String file) throws Exception {
        Process v;
        try {
            v = new ProcessBuilder("docker", "compose", "version").redirectErrorStream(true).start();
        } catch (java.io.IOException e) {
            Assumptions.abort("docker client not installed: docker compose config not run");
            return;
        }
        v.getInputStream().readAllBytes();
        Assumptions.assumeTrue(v.waitFor(30, TimeUnit.SECONDS) && v.exitValue() == 0,
                "docker compose plugin not installed: docker compose config not run");
        // without its secrets compose refuses the file; with them it accepts it
        ProcessBuilder refused = new ProcessBuilder("docker", "compose", "-f", ROOT.resolve(file).toString(), "config", "--quiet")
                .redirectErrorStream(true);
        refused.environment().remove("MOSES_DB_PASSWORD");
        refused.environment().remove("MOSES_DB_ROOT_PASSWORD");
        Process r = refused.start();
        String why = new String(r.getInputStream().readAllBytes());
        assertTrue(r.waitFor(60, TimeUnit.SECONDS));
        assertTrue(r.exitValue() != 0 && why.contains("set MOSES_DB_"), why);
        ProcessBuilder accepted = new ProcessBuilder("docker", "compose", "-f", ROOT.resolve(file).toString(), "config", "--quiet")
                .redirectErrorStream(true);
        accepted.environment().put("MOSES_DB_PASSWORD", "test-only");
        accepted.environment().put("MOSES_DB_ROOT_PASSWORD", "test-only-root");
        Process p = accepted.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
    }
}
