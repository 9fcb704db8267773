package io.moses.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.testing.Waits;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every way a broker is started runs the broker's variable store (the engine's start line names
 * it; a broker without it refuses to start), whatever the order of its class path:
 * {@code ./moses run} and {@code ./moses demo} as scripts (on this build's class path, as
 * {@code ClusterScriptTest} runs {@code cluster.sh}, which asserts the same of its replicas),
 * and the Docker image's class path as the Dockerfile assembles it, read statically (no Docker
 * here).
 */
@Tag("e2e")
class LaunchersVariableStoreTest {
    static final String FAST_STORE = "variables in io.moses.ode.VariableStore";
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @TempDir Path tmp;

    /** {@code ./moses ARGS} with this build's class path, its output in a file. */
    Process moses(Path out, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("bash", ROOT.resolve("moses").toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        Map<String, String> env = pb.environment();
        env.put("MOSES_BROKER_CP", System.getProperty("java.class.path"));
        env.put("MOSES_STUBS_CP", System.getProperty("java.class.path"));
        return pb.redirectErrorStream(true).redirectOutput(out.toFile()).start();
    }

    static String awaitLine(Process p, Path out, Pattern pattern, long seconds) {
        AtomicReference<String> line = new AtomicReference<>();
        Waits.until("a line " + pattern, seconds, () -> {
            Matcher m = pattern.matcher(Files.readString(out));
            if (m.find()) line.set(m.group());
            else if (!p.isAlive()) throw new AssertionError("exited with " + p.exitValue() + ":\n" + Files.readString(out));
            return line.get() != null;
        }, () -> {
            try {
                return Files.readString(out);
            } catch (IOException e) {
                return e.toString();
            }
        });
        return line.get();
    }

    /** The broker started by {@code broker} listens, and its start line names the broker's store; then it is stopped. */
    static void assertListensWithTheBrokersStore(Process broker, Path out) throws IOException, InterruptedException {
        try {
            awaitLine(broker, out, Pattern.compile("broker listening on"), 180);
            assertTrue(Files.readString(out).contains(FAST_STORE), Files.readString(out));
        } finally {
            stop(broker);
        }
    }

    static void stop(Process p) throws InterruptedException {
        p.destroy(); // the script exec'd java: this is the broker's SIGTERM
        if (!p.waitFor(60, TimeUnit.SECONDS)) p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }

    /**
     * ODE's jars first on the class path and the ODE integration last: the order that gave
     * ODE's slow store when the broker's store was a class of ODE's name (then the broker
     * refused to start).
     */
    @Test
    void aBrokerWithOdesJarsFirstOnTheClassPathRunsTheBrokersVariableStore() throws Exception {
        List<String> entries = new ArrayList<>(List.of(System.getProperty("java.class.path").split(File.pathSeparator)));
        List<String> ode = entries.stream().filter(e -> e.contains("ode-bpel-runtime") || e.contains("ode-scheduler-simple")).toList();
        List<String> ours = entries.stream().filter(e -> e.contains("ode-integration")).toList();
        assertTrue(ode.size() == 2 && ours.size() == 1, "ODE's jars and the ODE integration on the test class path: " + entries);
        entries.removeAll(ode);
        entries.removeAll(ours);
        entries.addAll(0, ode);
        entries.addAll(ours);
        Path out = tmp.resolve("broker.log");
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                String.join(File.pathSeparator, entries), "io.moses.core.Main", "--port", "0", "--work", tmp.resolve("work").toString(),
                "--db", "mem:order");
        assertListensWithTheBrokersStore(new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start(), out);
    }

    @Test
    void mosesRunStartsABrokerWithTheBrokersVariableStore() throws Exception {
        Path out = tmp.resolve("run.log");
        assertListensWithTheBrokersStore(moses(out, "run", "--port", "0", "--work", tmp.resolve("work").toString(), "--db", "mem:launcher"), out);
    }

    @Test
    void mosesDemoStartsABrokerWithTheBrokersVariableStore() throws Exception {
        Path out = tmp.resolve("demo.log");
        Process demo = moses(out, "demo", "--requests", "20", "--clients", "2");
        try {
            assertTrue(demo.waitFor(600, TimeUnit.SECONDS), "the demo did not end:\n" + Files.readString(out));
            String printed = Files.readString(out);
            assertEquals(0, demo.exitValue(), printed);
            assertTrue(printed.contains("BPEL " + FAST_STORE), printed);
            assertTrue(printed.contains("demo: OK"), printed);
        } finally {
            if (demo.isAlive()) stop(demo);
        }
    }

    /**
     * The image runs {@code io.moses.core.Main} on broker-core's classes and {@code /app/lib/*},
     * which {@code copy-dependencies} fills with broker-core's runtime dependencies, among them
     * the ODE integration that holds the store. The JVM expands {@code /app/lib/*} in directory
     * order, unspecified: any order works (the worst one is started above).
     */
    @Test
    void theDockerImagesClassPathHoldsTheOdeIntegration() throws Exception {
        String dockerfile = Files.readString(ROOT.resolve("Dockerfile"));
        Matcher entry = Pattern.compile("(?m)^ENTRYPOINT \\[\"java\", \"-cp\", \"([^\"]+)\", \"([^\"]+)\"\\]").matcher(dockerfile);
        assertTrue(entry.find(), "the broker's ENTRYPOINT: java -cp CLASSPATH MAIN\n" + dockerfile);
        assertEquals("io.moses.core.Main", entry.group(2));
        assertEquals(List.of("/app/broker/classes", "/app/lib/*"), List.of(entry.group(1).split(":")));
        assertTrue(Pattern.compile("cp -r broker-core/target/classes /app/broker/classes\\b").matcher(dockerfile).find(), dockerfile);
        Matcher lib = Pattern.compile("mvn [^\\n]*-pl (\\S+) dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory=/app/lib\\b")
                .matcher(dockerfile);
        assertTrue(lib.find() && List.of(lib.group(1).split(",")).contains("broker-core"), "/app/lib gets broker-core's runtime dependencies\n" + dockerfile);
        String pom = Files.readString(ROOT.resolve("broker-core/pom.xml"));
        Matcher dep = Pattern.compile("<dependency><groupId>io.moses</groupId><artifactId>moses-ode-integration</artifactId>(.*?)</dependency>")
                .matcher(pom);
        assertTrue(dep.find(), "broker-core depends on the ODE integration");
        assertTrue(!dep.group(1).contains("<scope>") && !dep.group(1).contains("<optional>"), "a runtime dependency: " + dep.group());
    }
}
