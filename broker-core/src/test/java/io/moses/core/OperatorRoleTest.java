package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.core.loop.Adaptation;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The admin API answers operators only: 401 for strangers, 403 for plain users. */
@Tag("e2e")
class OperatorRoleTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();

    static HttpResponse<String> get(int port, String path, String user, String password) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
        if (user != null) b.header("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes()));
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void adminEndpointsRequireTheOperatorRole(@TempDir Path work) throws Exception {
        Files.writeString(work.resolve("seed.yaml"), BrokerKnowledgeBaseTest.seed().replace("users:\n",
                "users:\n  - {name: olga, class: gold, rate: 0, password: olga-secret, role: operator}\n"));
        try (EchoPartner partner = new EchoPartner(0)) {
            BrokerConfig config = BrokerConfig.defaults().withAdaptation(Adaptation.off()).withPort(0).withWorkDir(work).withDb("mem:roles")
                    .withSeeds(List.of(work.resolve("seed.yaml"))).withVariables(Map.of("PARTNER", partner.url("")))
                    .withDeployments(List.of(Path.of("src/test/resources/processes/echo-pair")));
            try (Broker broker = new Broker(config)) {
                broker.start();
                int port = broker.port();
                for (String path : List.of("/admin/plan", "/admin/plans?n=2", "/admin/classes")) {
                    HttpResponse<String> none = get(port, path, null, null);
                    assertEquals(401, none.statusCode(), none.body());
                    assertTrue(none.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Basic"));
                    assertEquals(401, get(port, path, "olga", "wrong").statusCode());
                    assertEquals(401, get(port, path, "nobody", "x").statusCode());
                    HttpResponse<String> user = get(port, path, "alice", "alice-secret");
                    assertEquals(403, user.statusCode(), user.body());
                    assertTrue(user.body().contains("not an operator"), user.body());
                    HttpResponse<String> op = get(port, path, "olga", "olga-secret");
                    assertEquals(200, op.statusCode(), op.body());
                }
                assertTrue(get(port, "/admin/classes", "olga", "olga-secret").body().contains("\"gold\""));
                // the operator is a user too: it may call composite services
                assertEquals(200, BrokerKnowledgeBaseTest.call(port, "olga", "olga-secret").statusCode());
                assertEquals(200, get(port, "/health", null, null).statusCode(), "health stays open");
            }
        }
    }
}
