package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.core.loop.Adaptation;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.Mdal;
import io.moses.mdal.testing.MariaDbServer;
import io.moses.model.Implementation;
import io.moses.model.Plan;
import io.moses.model.TaskRef;
import io.moses.testing.Waits;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker over a real MariaDB: it keeps serving while the database is down, and a plan
 * published through MDAL after the database is back reaches it.
 */
@Tag("e2e")
class BrokerKnowledgeBaseTest {
    @RegisterExtension
    static final MariaDbServer MARIADB = new MariaDbServer();

    static final HttpClient HTTP = HttpClient.newHttpClient();

    static String seed() {
        return """
                composite: EchoPair
                classes:
                  - {name: gold, maxResponseTime: 1.0, minAvailability: 0.9, maxCost: 10, price: 5}
                users:
                  - {name: alice, class: gold, rate: 1, password: alice-secret}
                services:
                  - {name: left-1, task: left.echo, endpoint: "${PARTNER}/left1", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 100}
                  - {name: left-2, task: left.echo, endpoint: "${PARTNER}/left2", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 100}
                  - {name: right-1, task: right.echo, endpoint: "${PARTNER}/right1", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 100}
                plan:
                  reason: seed
                  bindings:
                    - {class: gold, task: left.echo, shares: [{implementation: left-1, fraction: 1.0}]}
                    - {class: gold, task: right.echo, shares: [{implementation: right-1, fraction: 1.0}]}
                """;
    }

    static HttpResponse<String> call(int port, String user, String password) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/services/EchoPairService"))
                .header("Content-Type", "text/xml; charset=utf-8")
                .POST(HttpRequest.BodyPublishers.ofString(BrokerInProcessTest.pair("kb")));
        if (user != null)
            b.header("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes()));
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static String health(int port) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void servesThroughADatabaseOutageAndPicksUpAPlanPublishedAfterIt(@TempDir Path work) throws Exception {
        String url = MARIADB.createDatabase() + "?user=" + MARIADB.user() + "&password=" + MARIADB.password();
        Files.writeString(work.resolve("seed.yaml"), seed());
        try (EchoPartner partner = new EchoPartner(0)) {
            BrokerConfig config = BrokerConfig.defaults().withAdaptation(Adaptation.off()).withPort(0).withWorkDir(work).withDb(url)
                    .withSeeds(List.of(work.resolve("seed.yaml"))).withVariables(Map.of("PARTNER", partner.url("")))
                    .withRefreshMillis(200)
                    .withDeployments(List.of(Path.of("src/test/resources/processes/echo-pair")));
            Broker broker = new Broker(config);
            broker.start();
            try {
                int port = broker.port();
                HttpResponse<String> r = call(port, "alice", "alice-secret");
                assertEquals(200, r.statusCode(), r.body());
                assertTrue(r.body().contains("kb via /left1"), r.body());

                MARIADB.stop();
                // a refresh fails fast (2 s pool timeout)
                Waits.within(15, () -> health(port).contains("\"database\" : \"down"));
                assertTrue(health(port).contains("\"database\" : \"down"), health(port));
                for (int i = 0; i < 20; i++) {
                    r = call(port, "alice", "alice-secret");
                    assertEquals(200, r.statusCode(), "request " + i + " during the outage: " + r.body());
                    assertTrue(r.body().contains("kb via /left1"), r.body());
                }

                MARIADB.start();
                try (KnowledgeBase kb = Mdal.open(url)) {
                    Plan next = new Plan(0, Instant.now(), Map.of(
                            new Plan.Key("gold", TaskRef.of("EchoPair", "left", "echo")),
                            List.of(new Plan.Share(Implementation.single("left-2"), 1.0)),
                            new Plan.Key("gold", TaskRef.of("EchoPair", "right", "echo")),
                            List.of(new Plan.Share(Implementation.single("right-1"), 1.0))),
                            Map.of(), 0, "test", 0, List.of(), "published after the outage");
                    long version = kb.publish(next).version();
                    Waits.within(15, () -> broker.planVersion() == version);
                    assertEquals(version, broker.planVersion(), "the broker reloads the new plan");
                }
                assertTrue(health(port).contains("\"database\" : \"up"), health(port));
                r = call(port, "alice", "alice-secret");
                assertEquals(200, r.statusCode(), r.body());
                assertTrue(r.body().contains("kb via /left2"), "new plan in force: " + r.body());
            } finally {
                broker.close();
            }
        }
    }

    @Test
    void unknownUsersAndWrongPasswordsGetAFaultBeforeAnyInvoke(@TempDir Path work) throws Exception {
        Files.writeString(work.resolve("seed.yaml"), seed());
        try (EchoPartner partner = new EchoPartner(0)) {
            BrokerConfig config = BrokerConfig.defaults().withAdaptation(Adaptation.off()).withPort(0).withWorkDir(work).withDb("mem:auth")
                    .withSeeds(List.of(work.resolve("seed.yaml"))).withVariables(Map.of("PARTNER", partner.url("")))
                    .withDeployments(List.of(Path.of("src/test/resources/processes/echo-pair")));
            Broker broker = new Broker(config);
            broker.start();
            try {
                int port = broker.port();
                BrokerInProcessTest.assertFault(call(port, "alice", "wrong"), "Client", "unknown user or wrong password");
                BrokerInProcessTest.assertFault(call(port, "mallory", "x"), "Client", "unknown user or wrong password");
                BrokerInProcessTest.assertFault(call(port, null, null), "Client", "authentication required");
                assertEquals(0, partner.calls.get(), "no invoke happened");
                assertEquals(200, call(port, "alice", "alice-secret").statusCode());
                assertEquals(2, partner.calls.get());
            } finally {
                broker.close();
            }
        }
    }
}
