package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.core.loop.Adaptation;
import io.moses.mdal.KnowledgeBase;
import io.moses.model.ServiceClass;
import io.moses.model.User;
import io.moses.sla.Accounts;
import io.moses.sla.wsdl.sla.ChangePassword;
import io.moses.sla.wsdl.sla.SlaFault_Exception;
import io.moses.sla.wsdl.sla.SlaManagerPort;
import io.moses.sla.wsdl.sla.SlaManagerService;
import java.net.URI;
import java.net.URL;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Accounts secure by default: the seed goes into an empty knowledge base only (a restart keeps
 * what changed since; {@code --reseed} applies it again), and the first operator comes from a
 * secret file ({@link PasswordChangeTest}: how passwords change).
 */
@Tag("e2e")
class AccountsTest {
    static final HttpClient HTTP = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

    static BrokerConfig inProcess(Path work) {
        return BrokerConfig.defaults().withPort(0).withWorkDir(work.resolve("work")).withDb(work.resolve("kb").toString())
                .withAdaptation(Adaptation.off());
    }

    static Broker started(BrokerConfig config) throws Exception {
        Broker b = new Broker(config);
        try {
            b.start();
        } catch (Exception | Error e) {
            b.close();
            throw e;
        }
        return b;
    }

    static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    static HttpResponse<String> admin(int port, String method, String path, String user, String password, String json) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json))
                .header("Content-Type", "application/json");
        if (user != null) b.header("Authorization", basic(user, password));
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theSeedGoesIntoAnEmptyKnowledgeBaseOnlyUnlessReseedAsks(@TempDir Path work) throws Exception {
        Files.writeString(work.resolve("seed.yaml"), """
                classes:
                  - {name: gold, maxResponseTime: 1.0, minAvailability: 0.9, maxCost: 10, price: 5}
                users:
                  - {name: alice, class: gold, rate: 1, password: alice-secret}
                """);
        BrokerConfig config = inProcess(work).withSeeds(List.of(work.resolve("seed.yaml")));
        try (Broker b = started(config)) {
            KnowledgeBase kb = b.knowledgeBase();
            assertEquals(1.0, kb.user("alice").orElseThrow().rate(), "the first start seeds");
            kb.updateUser("alice", u -> u.withSubscription("gold", 3));
            kb.putServiceClass(new ServiceClass("gold", 1.0, 0.9, 10, 7));
        }
        try (Broker b = started(config)) {
            KnowledgeBase kb = b.knowledgeBase();
            assertEquals(3.0, kb.user("alice").orElseThrow().rate(), "a restart with the same seed keeps the changed subscription");
            assertEquals(7.0, kb.serviceClasses().get(0).price(), "and the changed class");
        }
        try (Broker b = started(Main.parse(new String[] {"--port", "0", "--work", work.resolve("work").toString(),
                "--db", work.resolve("kb").toString(), "--seed", work.resolve("seed.yaml").toString(), "--reseed",
                "--monitors", "none", "--optimizer", "off"}))) {
            KnowledgeBase kb = b.knowledgeBase();
            assertEquals(1.0, kb.user("alice").orElseThrow().rate(), "--reseed applies the seed again");
            assertEquals(5.0, kb.serviceClasses().get(0).price());
        }
    }

    @Test
    void theFirstOperatorComesFromItsFileOnceAndLogsIn(@TempDir Path work) throws Exception {
        Path secret = work.resolve("operator");
        Files.writeString(secret, "root:root-secret-1\n");
        BrokerConfig config = inProcess(work).withOperatorFile(secret);
        try (Broker b = started(config)) {
            assertEquals(200, admin(b.port(), "GET", "/admin/status", "root", "root-secret-1", null).statusCode());
            User root = b.knowledgeBase().user("root").orElseThrow();
            assertTrue(root.isOperator());
            assertEquals(Accounts.OPERATORS_CLASS, root.serviceClass(), "an empty knowledge base gets a class for it");
            assertEquals(0.0, root.rate());
        }
        Files.writeString(secret, "root:another-secret\n");
        try (Broker b = started(config)) {
            assertEquals(200, admin(b.port(), "GET", "/admin/status", "root", "root-secret-1", null).statusCode(),
                    "an operator exists: the file is not used again");
            assertEquals(401, admin(b.port(), "GET", "/admin/status", "root", "another-secret", null).statusCode());
            assertEquals(1, b.knowledgeBase().users().size());
        }
    }

    @Test
    void aBadOperatorFileStopsTheStartWithoutShowingThePassword(@TempDir Path work) throws Exception {
        Path secret = work.resolve("operator");
        Files.writeString(secret, "root:short\n");
        Exception e = assertThrows(IllegalArgumentException.class, () -> started(inProcess(work).withOperatorFile(secret)).close());
        assertTrue(e.getMessage().contains("password must be 8 to 200 characters"), e.getMessage());
        assertFalse(e.getMessage().contains("short"), e.getMessage());
        Files.writeString(secret, "no-colon-here\n");
        e = assertThrows(IllegalArgumentException.class, () -> started(inProcess(work).withOperatorFile(secret)).close());
        assertTrue(e.getMessage().contains("must hold one line NAME:PASSWORD"), e.getMessage());
        assertFalse(e.getMessage().contains("no-colon-here"), e.getMessage());
    }

    @Test
    void theOperatorCommandCreatesAnOperatorAndSetsItsPasswordWithNoBrokerRunning(@TempDir Path work) throws Exception {
        Path secret = work.resolve("password");
        Files.writeString(secret, "root-secret-1\n");
        String db = work.resolve("kb").toString();
        assertEquals("operator root created", operatorCommand(0, "set", "root", "--db", db, "--password-file", secret.toString()));
        try (Broker b = started(inProcess(work))) {
            assertEquals(200, admin(b.port(), "GET", "/admin/status", "root", "root-secret-1", null).statusCode());
        }
        Files.writeString(secret, "root-secret-2\n");
        assertEquals("password of operator root set", operatorCommand(0, "set", "root", "--db", db, "--password-file", secret.toString()));
        try (Broker b = started(inProcess(work))) {
            assertEquals(401, admin(b.port(), "GET", "/admin/status", "root", "root-secret-1", null).statusCode());
            assertEquals(200, admin(b.port(), "GET", "/admin/status", "root", "root-secret-2", null).statusCode());
        }
        Files.writeString(secret, "short\n");
        assertTrue(operatorCommand(1, "set", "root", "--db", db, "--password-file", secret.toString())
                .contains("password must be 8 to 200 characters"));
    }

    /** Runs {@code moses operator ARGS} in its own JVM, expects {@code exit}, returns its last line. */
    static String operatorCommand(int exit, String... args) throws Exception {
        try (ChildProcess p = new ChildProcess("io.moses.core.OperatorCommand", List.of(args))) {
            assertTrue(p.process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), "moses operator did not end: " + p.output());
            String out = p.finalOutput().strip();
            assertEquals(exit, p.process.exitValue(), out);
            return out.substring(out.lastIndexOf('\n') + 1);
        }
    }
}
