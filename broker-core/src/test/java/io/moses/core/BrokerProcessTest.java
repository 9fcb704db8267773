package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code moses run} as a real process: starts, deploys, serves, refuses bad options, stops on SIGTERM. */
@Tag("e2e")
public class BrokerProcessTest {
    public static final Pattern LISTENING = Pattern.compile("broker listening on http://[^:]+:(\\d+)");

    @Test
    void runsDeploysServesAndStopsGracefully(@TempDir Path work) throws Exception {
        try (ChildProcess broker = new ChildProcess("io.moses.core.Main", List.of("--port", "0", "--work", work.toString(),
                "--deploy", "src/test/resources/processes/echo-pair"))) {
            int port = Integer.parseInt(broker.await(LISTENING, 60));
            HttpResponse<String> health = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, health.statusCode());
            assertTrue(health.body().contains("EchoPairService"), health.body());
            int code = broker.stop(20);
            assertTrue(code == 0 || code == 143, "exit " + code + "\n" + broker.output());
            assertTrue(broker.output().contains("broker stopped"), "exit " + code + ": " + broker.output());
        }
    }

    @Test
    void anInvalidDeploymentStopsTheStartWithAReason(@TempDir Path work) throws Exception {
        java.nio.file.Files.createDirectories(work.resolve("bad"));
        java.nio.file.Files.writeString(work.resolve("bad/deploy.xml"), "<deploy xmlns='http://www.apache.org/ode/schemas/dd/2007/03'/>");
        try (ChildProcess broker = new ChildProcess("io.moses.core.Main", List.of("--port", "0", "--work", work.resolve("w").toString(),
                "--deploy", work.resolve("bad").toString()))) {
            assertTrue(broker.process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), "exits");
            assertEquals(1, broker.process.exitValue(), broker.output());
            assertTrue(broker.output().contains("declares no <process>"), broker.output());
        }
    }

    @Test
    void unknownOptionsAreRefused() throws Exception {
        try (ChildProcess broker = new ChildProcess("io.moses.core.Main", List.of("--prot", "1"))) {
            assertTrue(broker.process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS));
            assertEquals(2, broker.process.exitValue());
            assertTrue(broker.output().contains("unknown option --prot"), broker.output());
        }
    }
}
