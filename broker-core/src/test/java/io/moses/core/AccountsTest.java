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
import io.moses.sla.wsdl.sla.SlaManagerPort;
import io.moses.sla.wsdl.sla.SlaManagerService;
import java.net.URI;
import java.net.URL;
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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Accounts secure by default: the seed goes into an empty knowledge base only (a restart keeps
 * what changed since; {@code --reseed} applies it again), the first operator comes from a
 * secret file or {@code moses operator set} with no broker, and a changed password reaches the
 * other replicas ({@link PasswordChangeTest}: the ways a password changes).
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

    /**
     * Two replicas on one knowledge base: a password changed through one is refused by the
     * other from its next refresh of the users (here every 100 ms), on the composite services and
     * the admin API, and the new one is served there.
     */
    @Test
    void aChangedPasswordReachesTheOtherReplicaAtItsNextRefresh(@TempDir Path work) throws Exception {
        io.moses.management.ManagementClients.useJdkXPath();
        Files.writeString(work.resolve("seed.yaml"), BrokerKnowledgeBaseTest.seed().replace("users:\n",
                "users:\n  - {name: olga, class: gold, rate: 0, password: olga-secret, role: operator}\n"));
        try (EchoPartner partner = new EchoPartner(0)) {
            BrokerConfig config = BrokerConfig.defaults().withPort(0).withDb("mem:accounts-replicas").withAdaptation(Adaptation.off())
                    .withRefreshMillis(100).withSeeds(List.of(work.resolve("seed.yaml"))).withVariables(Map.of("PARTNER", partner.url("")))
                    .withDeployments(List.of(Path.of("src/test/resources/processes/echo-pair")));
            try (Broker one = started(config.withWorkDir(work.resolve("one"))); Broker two = started(config.withWorkDir(work.resolve("two")))) {
                assertEquals(200, BrokerKnowledgeBaseTest.call(two.port(), "alice", "alice-secret").statusCode());
                assertEquals(200, admin(two.port(), "GET", "/admin/status", "olga", "olga-secret", null).statusCode());
                SlaManagerPort sla = ManagementTestBroker.as(new SlaManagerService(new URL("http://127.0.0.1:" + one.port() + "/manage/sla?wsdl"))
                        .getSlaManagerPort(), "alice", "alice-secret");
                ChangePassword c = new ChangePassword();
                c.setNewPassword("alice-new-secret");
                sla.changePassword(c);
                HttpResponse<String> r = admin(one.port(), "PUT", "/admin/users/olga/password", "olga", "olga-secret",
                        "{\"password\":\"olga-new-secret\"}");
                assertEquals(200, r.statusCode(), r.body());
                // the old password passes on the other replica (from its memory) until it reloads the users,
                // at its next refresh: each call below waits on that (the deadline only bounds a hang)
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (BrokerKnowledgeBaseTest.call(two.port(), "alice", "alice-secret").statusCode() == 200)
                    assertTrue(System.nanoTime() < deadline, "replica two never dropped alice's old password");
                assertEquals(200, BrokerKnowledgeBaseTest.call(two.port(), "alice", "alice-new-secret").statusCode());
                while (admin(two.port(), "GET", "/admin/status", "olga", "olga-secret", null).statusCode() == 200)
                    assertTrue(System.nanoTime() < deadline, "replica two never dropped olga's old password");
                assertEquals(200, admin(two.port(), "GET", "/admin/status", "olga", "olga-new-secret", null).statusCode());
                assertEquals(401, admin(two.port(), "GET", "/admin/status", "olga", "olga-secret", null).statusCode());
                assertTrue(BrokerKnowledgeBaseTest.call(two.port(), "alice", "alice-secret").body().contains("unknown user or wrong password"));
            }
        }
    }
}
