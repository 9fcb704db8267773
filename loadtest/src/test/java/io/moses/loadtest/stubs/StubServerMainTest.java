package io.moses.loadtest.stubs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line `./moses stubs` runs. */
@Tag("e2e")
class StubServerMainTest {
    @TempDir Path tmp;

    private static String[] run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int code = StubServer.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new String[] {Integer.toString(code), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
    }

    @Test
    void badArgumentsExitWith2AndSayWhy() throws Exception {
        String[] r = run("--port", "http");
        assertEquals("2", r[0]);
        assertTrue(r[2].contains("--port must be a number"), r[2]);
        r = run("--verbose");
        assertEquals("2", r[0]);
        assertTrue(r[2].contains("unknown argument '--verbose'"), r[2]);
        r = run("--config");
        assertEquals("2", r[0]);
        assertTrue(r[2].contains("--config needs a value"), r[2]);
        r = run("--config", tmp.resolve("missing.yaml").toString());
        assertEquals("2", r[0]);
        assertTrue(r[2].contains("does not exist"), r[2]);
        Path bad = tmp.resolve("bad.yaml");
        Files.writeString(bad, "services: [{name: x}]\n");
        r = run("--config", bad.toString());
        assertEquals("2", r[0]);
        assertTrue(r[2].contains("service 'x': request is missing"), r[2]);
        r = run("--help");
        assertEquals("0", r[0]);
        assertTrue(r[1].contains("--config FILE"));
    }

    @Test
    void mainInItsOwnProcessPrintsItsPortAndServes() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), StubServer.class.getName(), "--port", "0")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            assertNotNull(line, "no output");
            Matcher m = Pattern.compile("stubs listening on (http://127\\.0\\.0\\.1:(\\d+))").matcher(line);
            assertTrue(m.matches(), line);
            HttpResponse<String> r = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create(m.group(1) + "/admin/services")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode());
            assertTrue(r.body().contains("\"payment-b\""), r.body());
        } finally {
            p.destroy();
            if (!p.waitFor(10, TimeUnit.SECONDS)) p.destroyForcibly();
        }
    }
}
