package io.moses.loadtest.driver;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The open-loop driver against a local server that serves one user and refuses the other with 503. */
class OpenLoopDriverTest {
    @TempDir Path dir;

    @Test
    void everyScheduledRequestIsOfferedToItsUsersClassAndItsOutcomeCountedThere() throws Exception {
        try (SoapTestServer server = new SoapTestServer(0)) {
            Path body = Files.writeString(dir.resolve("body.xml"), SoapTestServer.body("{user}", "trip"));
            ByteArrayOutputStream out = new ByteArrayOutputStream(), progress = new ByteArrayOutputStream();
            // the user's name is the server's mode: "ok" is served, "500" gets a plain 503
            OpenLoopDriver.run(new String[] {"--url", server.uri().toString(), "--body", body.toString(), "--rate", "40", "--seconds", "1",
                    "--user", "ok:pw=gold", "--user", "500:pw=bronze", "--progress", "0.2"},
                    new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(progress, true, StandardCharsets.UTF_8));
            String report = out.toString(StandardCharsets.UTF_8);
            assertTrue(report.contains("CLASS gold offered=20 served=20 refused=0 other=0 failed=0 mean_ms="), report);
            assertTrue(report.contains("CLASS bronze offered=20 served=0 refused=20 other=0 failed=0 mean_ms=0.0 p50_ms=0.0 p99_ms=0.0"), report);
            assertTrue(report.contains("DRIVER rate=40.0 seconds=1 offered=40 "), report);
            assertTrue(report.contains(" not_sent=0 unfinished=0 errors=0"), report);
            assertTrue(server.received.get() == 40, "every request sent: " + server.received.get());
        }
    }

    @Test
    void badArgumentsAreRefusedWithTheOptionsName() throws Exception {
        Path body = Files.writeString(dir.resolve("body.xml"), "<x/>");
        PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        String[][] bad = {
            {"--url", "http://127.0.0.1:1/s", "--body", body.toString(), "--rate", "0", "--seconds", "1", "--user", "a:b=gold"},
            {"--url", "http://127.0.0.1:1/s", "--body", body.toString(), "--rate", "5", "--seconds", "x", "--user", "a:b=gold"},
            {"--url", "http://127.0.0.1:1/s", "--body", body.toString(), "--rate", "5", "--seconds", "1", "--user", "a:b"},
            {"--url", "http://example.org/s", "--body", body.toString(), "--rate", "5", "--seconds", "1", "--user", "a:b=gold"},
            {"--url", "http://127.0.0.1:1/s", "--body", body.toString(), "--rate", "5", "--seconds", "1"},
        };
        String[] names = {"--rate", "--seconds", "--user", "--url", "--user"};
        for (int i = 0; i < bad.length; i++) {
            String[] args = bad[i];
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OpenLoopDriver.run(args, sink, sink));
            assertTrue(e.getMessage().contains(names[i]), e.getMessage());
        }
    }
}
