package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.core.loop.Adaptation;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code moses admin processes deploy|redeploy|undeploy} in its own JVM on the cli module's
 * class path, against a real broker: a unit directory is deployed and its service's WSDL URL
 * and its process's mode are printed, a BPEL error comes back with its file and line, bad input
 * is one line and a non-zero exit, a new version changes the mode, a replica that never applies
 * a version is named when the wait times out, and the unit is undeployed.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("e2e")
class ProcessDeployCommandTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String ECHO_PAIR = "{urn:moses:test:echo-pair}EchoPair";
    @TempDir static Path work;
    static Path units;
    static EchoPartner partner;
    static Broker broker;
    static long firstVersion;

    @BeforeAll
    static void start() throws Exception {
        Files.writeString(work.resolve("seed.yaml"), BrokerKnowledgeBaseTest.seed().replace("users:\n",
                "users:\n  - {name: olga, class: gold, rate: 0, password: olga-secret, role: operator}\n"));
        partner = new EchoPartner(20);
        broker = new Broker(BrokerConfig.defaults().withPort(0).withWorkDir(work.resolve("broker")).withDb("mem:deploy-command")
                .withAdaptation(Adaptation.off()).withSeeds(List.of(work.resolve("seed.yaml")))
                .withVariables(Map.of("PARTNER", partner.url(""))));
        broker.start();
        units = Files.createDirectories(work.resolve("units"));
    }

    @AfterAll
    static void stop() {
        if (broker != null) broker.close();
        if (partner != null) partner.close();
    }

    /** A copy of the echo-pair unit in directory {@code name}, the unit's name. */
    static Path unit(String name) throws Exception {
        Path dir = Files.createDirectories(units.resolve(name));
        try (var files = Files.list(ProcessManagementTest.UNIT)) {
            for (Path f : files.toList()) Files.copy(f, dir.resolve(f.getFileName()));
        }
        return dir;
    }

    record Run(int exit, String output) {
        List<String> lines() {
            return output.strip().lines().toList();
        }
    }

    /** {@code moses admin --broker URL --user olga ARGS} with olga's password in MOSES_PASSWORD. */
    static Run admin(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("--broker", base(), "--user", "olga"));
        all.addAll(List.of(args));
        try (ChildProcess cli = ChildProcess.commandLine("io.moses.cli.AdminCommand", all, Map.of("MOSES_PASSWORD", "olga-secret"))) {
            assertTrue(cli.process.waitFor(120, TimeUnit.SECONDS), "moses admin did not end: " + cli.output());
            return new Run(cli.process.exitValue(), cli.finalOutput());
        }
    }

    static String base() {
        return "http://127.0.0.1:" + broker.port();
    }

    static HttpResponse<String> get(String url) throws Exception {
        return ProcessManagementTest.HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Unit {@code name} in /admin/processes, as an operator reads it. */
    static JsonNode listed(String name) throws Exception {
        HttpResponse<String> r = ProcessManagementTest.HTTP.send(HttpRequest.newBuilder(URI.create(base() + "/admin/processes"))
                .header("Authorization", new io.moses.model.auth.BasicCredentials("olga", "olga-secret").header()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        for (JsonNode u : JSON.readTree(r.body())) if (u.path("name").asText().equals(name)) return u;
        throw new AssertionError("no unit " + name + " in " + r.body());
    }

    @Test
    @Order(1)
    void deployPrintsEachServicesWsdlUrlAndEachProcesssMode() throws Exception {
        Run run = admin("processes", "deploy", unit("echo-pair").toString());
        assertEquals(0, run.exit(), run.output());
        assertTrue(run.output().contains("echo-pair version ") && run.output().contains(" deployed, applied by 1 replica"), run.output());
        // echo-pair's deploy.xml says <in-memory>true</in-memory>
        assertTrue(run.lines().contains("process EchoPair (urn:moses:test:echo-pair): in-memory"), run.output());
        Matcher wsdl = Pattern.compile("^service EchoPairService: (\\S+)$", Pattern.MULTILINE).matcher(run.output());
        assertTrue(wsdl.find(), run.output());
        assertEquals(base() + "/services/EchoPairService?wsdl", wsdl.group(1));
        HttpResponse<String> served = get(wsdl.group(1));
        assertEquals(200, served.statusCode(), served.body());
        assertTrue(served.body().contains("http://schemas.xmlsoap.org/wsdl/") && served.body().contains("definitions")
                && served.body().contains("EchoPairService"), served.body());

        JsonNode unit = listed("echo-pair");
        assertEquals("in-memory", unit.path("modes").path(ECHO_PAIR).asText(), unit.toString());
        assertEquals(ECHO_PAIR, unit.path("processes").path(0).asText(), "the fields that were there stay: " + unit);
        firstVersion = unit.path("version").asLong();
    }

    @Test
    @Order(2)
    void aBpelErrorComesBackWithItsFileAndLineAndExitsNonZero() throws Exception {
        Path broken = unit("echo-broken");
        Path bpel = broken.resolve("EchoPair.bpel");
        List<String> lines = new ArrayList<>(Files.readAllLines(bpel));
        int line = 0;
        for (int i = 0; i < lines.size() && line == 0; i++)
            if (lines.get(i).contains("variable=\"input\"")) {
                lines.set(i, lines.get(i).replace("variable=\"input\"", "variable=\"undeclared\""));
                line = i + 1;
            }
        assertTrue(line > 0, "the unit reads variable input");
        Files.write(bpel, lines);
        Run run = admin("processes", "deploy", broken.toString());
        assertEquals(1, run.exit(), run.output());
        assertTrue(run.output().contains("echo-broken/EchoPair.bpel:" + line + ": error: [UndeclaredVariable]"), run.output());
        assertEquals(1, run.lines().size(), "one error, one line: " + run.output());
        assertEquals(List.of("echo-pair"), broker.deployments().stream().map(d -> d.name()).toList());
    }

    @Test
    @Order(3)
    void badInputIsOneClearLineAndANonZeroExit() throws Exception {
        Path empty = Files.createDirectories(units.resolve("no-descriptor"));
        Path other = unit("echo-other");
        record Case(int exit, String says, String[] args) {}
        for (Case c : List.of(
                new Case(2, "no such directory: " + units.resolve("nowhere"), new String[] {"deploy", units.resolve("nowhere").toString()}),
                new Case(2, "has no deploy.xml", new String[] {"deploy", empty.toString()}),
                new Case(1, "unit echo-pair is already deployed: use processes redeploy", new String[] {"deploy", units.resolve("echo-pair").toString()}),
                new Case(1, "unit echo-other is not deployed: use processes deploy", new String[] {"redeploy", other.toString()}),
                new Case(1, "unit ghost is not deployed", new String[] {"undeploy", "ghost"}))) {
            List<String> args = new ArrayList<>(List.of("processes"));
            args.addAll(List.of(c.args()));
            Run run = admin(args.toArray(String[]::new));
            assertEquals(c.exit(), run.exit(), run.output());
            assertEquals(1, run.lines().size(), run.output());
            assertTrue(run.output().contains(c.says()), "expected '" + c.says() + "' in " + run.output());
        }
        assertEquals(List.of("echo-pair"), broker.deployments().stream().map(d -> d.name()).toList());
    }

    @Test
    @Order(4)
    void redeployOfADurableVersionPrintsAndListsItsNewMode() throws Exception {
        Path dir = units.resolve("echo-pair");
        Path descriptor = dir.resolve("deploy.xml");
        String before = Files.readString(descriptor);
        assertTrue(before.contains("<in-memory>true</in-memory>"), before);
        // without the element: durable, ODE's rule
        Files.writeString(descriptor, before.replace("<in-memory>true</in-memory>", ""));
        Run run = admin("processes", "redeploy", dir.toString());
        assertEquals(0, run.exit(), run.output());
        assertTrue(run.output().contains(" redeployed, applied by 1 replica"), run.output());
        assertTrue(run.lines().contains("process EchoPair (urn:moses:test:echo-pair): durable"), run.output());
        JsonNode unit = listed("echo-pair");
        assertEquals("durable", unit.path("modes").path(ECHO_PAIR).asText(), unit.toString());
        assertTrue(unit.path("version").asLong() > firstVersion, unit.toString());
        HttpResponse<String> call = BrokerKnowledgeBaseTest.call(broker.port(), "alice", "alice-secret");
        assertEquals(200, call.statusCode(), call.body());
    }

    /** A replica killed keeps its reports on the stored units (until it starts again): it is waited for, and named. */
    @Test
    @Order(5)
    void aReplicaThatDoesNotApplyTheVersionIsNamedWhenTheWaitTimesOut() throws Exception {
        broker.knowledgeBase().processUnits().recordApplied("killed-replica", "echo-pair", firstVersion, null);
        try {
            // a new version (a durable process's version is its files: the same files are no new version)
            Path descriptor = units.resolve("echo-pair").resolve("deploy.xml");
            Files.writeString(descriptor, Files.readString(descriptor) + "<!-- a new version -->\n");
            Run run = admin("--timeout", "2", "processes", "redeploy", units.resolve("echo-pair").toString());
            assertEquals(1, run.exit(), run.output());
            assertTrue(run.output().contains("waiting for killed-replica to apply echo-pair version"), run.output());
            assertTrue(run.output().contains("is stored, but not applied by killed-replica within 2 s"), run.output());
        } finally {
            broker.knowledgeBase().processUnits().forgetReplica("killed-replica");
        }
    }

    @Test
    @Order(6)
    void undeployWaitsForTheReplicasAndTheServiceIsGone() throws Exception {
        Run run = admin("processes", "undeploy", "echo-pair");
        assertEquals(0, run.exit(), run.output());
        assertTrue(run.output().contains("echo-pair undeployed (version ") && run.output().contains("applied by 1 replica"), run.output());
        assertEquals(404, get(base() + "/services/EchoPairService?wsdl").statusCode());
        assertEquals("undeployed", listed("echo-pair").path("state").asText());
        assertEquals(List.of(), broker.deployments());
    }
}
