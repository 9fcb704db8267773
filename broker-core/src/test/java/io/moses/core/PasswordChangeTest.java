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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A password changed by its owner (SOAP, console, CLI) or reset by an operator (admin API, CLI)
 * holds from the reply on: the old one fails, the new one works, on the composite services and
 * the management ones alike. One broker with the echo pair.
 */
@Tag("e2e")
class PasswordChangeTest {
    @TempDir static Path work;
    static ManagementTestBroker setup;
    static SlaManagerService service;
    static int port;

    @BeforeAll
    static void start() throws Exception {
        setup = ManagementTestBroker.start(work, BrokerKnowledgeBaseTest.seed().replace("users:\n", """
                users:
                  - {name: bob, class: gold, rate: 1, password: bob-secret}
                  - {name: carl, class: gold, rate: 1, password: carl-secret}
                  - {name: dora, class: gold, rate: 1, password: dora-secret}
                  - {name: olga, class: gold, rate: 0, password: olga-secret, role: operator}
                  - {name: oscar, class: gold, rate: 0, password: oscar-secret, role: operator}
                """), "mem:accounts");
        port = setup.broker.port();
        service = new SlaManagerService(new URL(setup.base + "/manage/sla?wsdl"));
    }

    @AfterAll
    static void stop() {
        if (setup != null) setup.close();
    }

    SlaManagerPort sla(String user, String password) {
        return ManagementTestBroker.as(service.getSlaManagerPort(), user, password);
    }

    void served(String user, String password) throws Exception {
        HttpResponse<String> r = BrokerKnowledgeBaseTest.call(port, user, password);
        assertEquals(200, r.statusCode(), user + " with its password: " + r.body());
    }

    void refused(String user, String password) throws Exception {
        HttpResponse<String> r = BrokerKnowledgeBaseTest.call(port, user, password);
        assertTrue(r.body().contains("unknown user or wrong password"), user + " with an old password: " + r.body());
    }

    @Test
    void theOwnerChangesItsPasswordOverSoap() throws Exception {
        served("alice", "alice-secret");
        ChangePassword c = new ChangePassword();
        c.setNewPassword("short");
        SlaFault_Exception tooShort = assertThrows(SlaFault_Exception.class, () -> sla("alice", "alice-secret").changePassword(c));
        assertEquals("INVALID", tooShort.getFaultInfo().getCode());
        c.setNewPassword("alice-new-secret");
        assertEquals("alice", sla("alice", "alice-secret").changePassword(c).getUser());
        refused("alice", "alice-secret");
        served("alice", "alice-new-secret");
        SlaFault_Exception old = assertThrows(SlaFault_Exception.class, () -> sla("alice", "alice-secret").changePassword(c));
        assertEquals("UNAUTHENTICATED", old.getFaultInfo().getCode(), "the SOAP endpoints refuse the old one too");
        c.setUser("olga");
        SlaFault_Exception other = assertThrows(SlaFault_Exception.class, () -> sla("alice", "alice-new-secret").changePassword(c));
        assertEquals("FORBIDDEN", other.getFaultInfo().getCode(), "a user sets its own password only");
        assertEquals(200, AccountsTest.admin(port, "GET", "/admin/status", "olga", "olga-secret", null).statusCode(), "olga's is unchanged");
    }

    @Test
    void anOperatorResetsAUsersPasswordThroughTheAdminApi() throws Exception {
        served("bob", "bob-secret");
        HttpResponse<String> r = AccountsTest.admin(port, "PUT", "/admin/users/bob/password", "olga", "olga-secret", "{\"password\":\"bob-reset-secret\"}");
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(r.body().contains("\"user\" : \"bob\""), r.body());
        refused("bob", "bob-secret");
        served("bob", "bob-reset-secret");
        assertEquals(401, AccountsTest.admin(port, "GET", "/admin/status", "bob", "bob-secret", null).statusCode());
        assertEquals(403, AccountsTest.admin(port, "PUT", "/admin/users/olga/password", "bob", "bob-reset-secret", "{\"password\":\"taken-over!\"}").statusCode(),
                "a user resets nobody's password");
        assertEquals(404, AccountsTest.admin(port, "PUT", "/admin/users/nobody/password", "olga", "olga-secret", "{\"password\":\"whatever-1\"}").statusCode());
        assertEquals(400, AccountsTest.admin(port, "PUT", "/admin/users/bob/password", "olga", "olga-secret", "{\"password\":\"short\"}").statusCode());
        served("bob", "bob-reset-secret");
    }

    @Test
    void theCommandLineChangesOnesOwnAndResetsAnothers() throws Exception {
        Path file = work.resolve("new-password");
        Files.writeString(file, "carl-new-secret\n");
        try (ChildProcess cli = ChildProcess.commandLine("io.moses.cli.SlaCommand", List.of("password", "--broker", setup.base,
                "--user", "carl", "--password-file", file.toString()), Map.of("MOSES_PASSWORD", "carl-secret"))) {
            assertTrue(cli.process.waitFor(60, TimeUnit.SECONDS), "moses sla password did not end: " + cli.output());
            String out = cli.finalOutput();
            assertEquals(0, cli.process.exitValue(), out);
            assertTrue(out.contains("password changed: carl"), out);
        }
        refused("carl", "carl-secret");
        served("carl", "carl-new-secret");
        Files.writeString(file, "dora-reset-secret\n");
        try (ChildProcess cli = ChildProcess.commandLine("io.moses.cli.AdminCommand", List.of("--broker", setup.base, "--user", "olga",
                "--password-file", file.toString(), "users", "password", "dora"), Map.of("MOSES_PASSWORD", "olga-secret"))) {
            assertTrue(cli.process.waitFor(60, TimeUnit.SECONDS), "moses admin users password did not end: " + cli.output());
            String out = cli.finalOutput();
            assertEquals(0, cli.process.exitValue(), out);
            assertTrue(out.contains("\"user\" : \"dora\""), out);
        }
        refused("dora", "dora-secret");
        served("dora", "dora-reset-secret");
    }

    @Test
    void anOperatorChangesItsOwnInTheConsoleAndItsSessionsEnd() throws Exception {
        String origin = "http://127.0.0.1:" + port;
        HttpResponse<String> login = form("/console/login", null, Map.of("user", "oscar", "password", "oscar-secret"));
        assertEquals(302, login.statusCode(), login.body());
        String cookie = login.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
        HttpResponse<String> page = AccountsTest.HTTP.send(HttpRequest.newBuilder(URI.create(origin + "/console/password")).header("Cookie", cookie).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, page.statusCode());
        assertTrue(page.body().contains("action=\"/console/password\""), page.body());

        HttpResponse<String> wrong = form("/console/password", cookie,
                Map.of("current", "not-it", "password", "oscar-new-secret", "confirm", "oscar-new-secret"));
        assertEquals(403, wrong.statusCode(), "the current password is asked again");
        HttpResponse<String> differ = form("/console/password", cookie,
                Map.of("current", "oscar-secret", "password", "oscar-new-secret", "confirm", "oscar-new-secreT"));
        assertEquals(400, differ.statusCode());
        HttpResponse<String> changed = form("/console/password", cookie,
                Map.of("current", "oscar-secret", "password", "oscar-new-secret", "confirm", "oscar-new-secret"));
        assertEquals(200, changed.statusCode(), changed.body());
        assertTrue(changed.body().contains("id=\"password-changed\""), changed.body());

        HttpResponse<String> status = AccountsTest.HTTP.send(HttpRequest.newBuilder(URI.create(origin + "/admin/status")).header("Cookie", cookie).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(401, status.statusCode(), "the session ended with the change");
        assertEquals(401, AccountsTest.admin(port, "GET", "/admin/status", "oscar", "oscar-secret", null).statusCode());
        assertEquals(200, AccountsTest.admin(port, "GET", "/admin/status", "oscar", "oscar-new-secret", null).statusCode());
    }

    HttpResponse<String> form(String path, String cookie, Map<String, String> fields) throws Exception {
        StringBuilder body = new StringBuilder();
        fields.forEach((k, v) -> body.append(body.isEmpty() ? "" : "&").append(k).append('=').append(URLEncoder.encode(v, StandardCharsets.UTF_8)));
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Content-Type", "application/x-www-form-urlencoded").header("Origin", "http://127.0.0.1:" + port)
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
        if (cookie != null) b.header("Cookie", cookie);
        return AccountsTest.HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
