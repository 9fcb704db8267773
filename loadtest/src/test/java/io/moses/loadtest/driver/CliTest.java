package io.moses.loadtest.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("e2e")
class CliTest {
    @TempDir
    Path dir;
    private SoapTestServer server;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();

    @BeforeEach
    void start() throws Exception {
        server = new SoapTestServer(0);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private int cli(String... args) {
        return ClosedLoopDriver.cli(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private Path file(String name, String content) throws Exception {
        return Files.writeString(dir.resolve(name), content);
    }

    @Test
    void runsAndPrintsTheReportExitZeroWithoutErrors() throws Exception {
        Path body = file("req.xml", SoapTestServer.body("ok", "svc-a"));
        int code = cli("--url", server.uri().toString(), "--action", "urn:x", "--body", body.toString(), "--clients", "3",
                "--requests", "30", "--warmup", "5", "--user", "alice:pw", "--user", "bob:pw2", "--tally", "by ([a-z]+-[ab])");
        assertEquals(0, code, err());
        assertTrue(out().startsWith("requests    30 (30 ok, 0 errors), 3 clients, 5 warm-up requests not counted"), out());
        assertTrue(out().contains("tally       svc-a 30 (100.0%)"), out());
        assertTrue(out().contains("user alice"), out());
        assertEquals(35, server.received.get());
    }

    @Test
    void bodiesDirectoryRoundRobinJsonOutputAndExitOneOnErrors() throws Exception {
        Path bodies = Files.createDirectory(dir.resolve("bodies"));
        Files.writeString(bodies.resolve("1.xml"), SoapTestServer.body("ok", "svc-a"));
        Files.writeString(bodies.resolve("2.xml"), SoapTestServer.body("fault", "svc-b"));
        Files.writeString(bodies.resolve("README.txt"), "not a request");
        int code = cli("--url", server.uri().toString(), "--bodies", bodies.toString(), "--requests", "10", "--json", "--progress", "0");
        assertEquals(1, code, err());
        JsonNode n = new ObjectMapper().readTree(out());
        assertEquals(10, n.get("requests").asLong());
        assertEquals(5, n.get("errors").get("SOAP_FAULT").get("count").asLong());
        assertEquals("", err());
    }

    @Test
    void progressGoesToStderr() throws Exception {
        server.delayMs = 5;
        Path body = file("req.xml", SoapTestServer.body("ok", "a"));
        assertEquals(0, cli("--url", server.uri().toString(), "--body", body.toString(), "--seconds", "0.7", "--progress", "0.2"));
        assertTrue(err().lines().anyMatch(l -> l.matches("  \\[\\d+\\.\\ds\\] \\d+ requests, \\d+ req/s, 0 errors")), err());
        assertFalse(out().contains("req/s, 0 errors\n  ["), "progress is not on stdout");
    }

    @Test
    void badArgumentsExitTwoWithAClearMessage() throws Exception {
        Path body = file("req.xml", SoapTestServer.body("ok", "a"));
        String url = server.uri().toString();
        List<String[]> cases = new ArrayList<>();
        cases.add(new String[] {"--body", body.toString(), "--requests", "1"});                                    // --url is required
        cases.add(new String[] {"--url", "not a url", "--body", body.toString(), "--requests", "1"});                // --url: not a URI
        cases.add(new String[] {"--url", url, "--requests", "1"});                                                  // give exactly one of
        cases.add(new String[] {"--url", url, "--body", body.toString()});                                          // give --requests
        cases.add(new String[] {"--url", url, "--body", body.toString(), "--requests", "ten"});                     // not a whole number
        cases.add(new String[] {"--url", url, "--body", body.toString(), "--requests", "1", "--clients", "0"});     // between
        cases.add(new String[] {"--url", url, "--body", body.toString(), "--seconds", "-1"});                       // positive number
        cases.add(new String[] {"--url", url, "--body", dir.resolve("missing.xml").toString(), "--requests", "1"}); // no such file
        cases.add(new String[] {"--url", url, "--bodies", dir.toString(), "--requests", "1"});                      // no *.xml? (req.xml is there)
        cases.add(new String[] {"--url", url, "--body", body.toString(), "--requests", "1", "--user", "nopass"});   // user:password
        cases.add(new String[] {"--url", url, "--body", body.toString(), "--requests", "1", "--tally", "("});       // bad regex
        cases.add(new String[] {"--url", url, "--body", body.toString(), "--requests", "1", "--frobnicate"});       // unknown option
        cases.add(new String[] {"--url", url, "--body", body.toString(), "--requests"});                            // needs a value
        String[] expected = {"--url is required", "--url: not a URI", "exactly one of --body", "give --requests",
                "--requests: not a whole number", "--clients: must be between", "--seconds: must be a positive",
                "--body: no such file", null, "user:password", "--tally: bad regex", "unknown option '--frobnicate'",
                "--requests needs a value"};
        for (int i = 0; i < cases.size(); i++) {
            if (expected[i] == null) continue;
            err.reset();
            assertEquals(2, cli(cases.get(i)), "case " + i);
            assertTrue(err().startsWith("error: " + expected[i]) || err().contains(expected[i]), "case " + i + ": " + err());
            assertTrue(err().contains("usage: "), err());
            assertFalse(err().contains("\tat "), "no stack trace: " + err());
        }
        Path empty = Files.createDirectory(dir.resolve("empty"));
        err.reset();
        assertEquals(2, cli("--url", url, "--bodies", empty.toString(), "--requests", "1"));
        assertTrue(err().contains("--bodies: no *.xml files"), err());
        assertEquals(0, server.received.get(), "bad arguments send nothing");
    }

    @Test
    void helpPrintsUsage() {
        assertEquals(0, cli("--help"));
        assertTrue(out().contains("--tally REGEX"), out());
    }
}
