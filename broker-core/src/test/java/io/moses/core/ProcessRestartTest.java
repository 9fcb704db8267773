package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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

/**
 * One broker on an H2 file: a unit deployed through the admin API is stored in the knowledge
 * base, so the broker restarted with the same command line serves it again before it says UP;
 * a new version and an undeploy hold across restarts too; a refused bundle stores nothing. For
 * a --deploy directory, a stored unit of the same name wins.
 */
@Tag("e2e")
class ProcessRestartTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final ObjectMapper JSON = new ObjectMapper();
    @TempDir Path work;

    Broker start(EchoPartner partner) throws Exception {
        return start(partner, List.of());
    }

    Broker start(EchoPartner partner, List<Path> deploy) throws Exception {
        Files.writeString(work.resolve("seed.yaml"), BrokerKnowledgeBaseTest.seed().replace("users:\n",
                "users:\n  - {name: olga, class: gold, rate: 0, password: olga-secret, role: operator}\n"));
        BrokerConfig config = BrokerConfig.defaults().withPort(0).withWorkDir(work.resolve("work")).withDb(work.resolve("kb").toString())
                .withAdaptation(Adaptation.off().withOptimizer(true, "auto"))
                .withSeeds(List.of(work.resolve("seed.yaml"))).withVariables(Map.of("PARTNER", partner.url(""))).withDeployments(deploy);
        Broker b = new Broker(config);
        try {
            b.start();
        } catch (Exception | Error e) {
            b.close();
            throw e;
        }
        return b;
    }

    static HttpResponse<String> operator(Broker b, String method, String path, byte[] body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + b.port() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("olga:olga-secret".getBytes()))
                .header("Content-Type", "application/zip").build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode unit(Broker b, String name) throws Exception {
        for (JsonNode u : JSON.readTree(operator(b, "GET", "/admin/processes", null).body()))
            if (u.path("name").asText().equals(name)) return u;
        return null;
    }

    @Test
    void aDeployedUnitANewVersionAndAnUndeploySurviveARestart() throws Exception {
        byte[] v1 = ProcessManagementTest.zip(ProcessManagementTest.unit(null, null));
        byte[] v2 = ProcessManagementTest.zip(ProcessManagementTest.unit(
                "<copy><from>$input.parameters/tns:text</from><to>$leftIn.parameters/pt:text</to></copy>",
                "<copy><from>concat('v2:', $input.parameters/tns:text)</from><to>$leftIn.parameters/pt:text</to></copy>"));
        try (EchoPartner partner = new EchoPartner(0)) {
            Broker b = start(partner);
            try {
                // refused: nothing stored
                HttpResponse<String> bad = operator(b, "POST", "/admin/processes/echo-pair", "not a zip".getBytes());
                assertEquals(400, bad.statusCode(), bad.body());
                assertTrue(b.knowledgeBase().processUnits().units().isEmpty(), "a refused bundle is not stored");
                HttpResponse<String> r = operator(b, "POST", "/admin/processes/echo-pair", v1);
                assertEquals(201, r.statusCode(), r.body());
                assertEquals(1, JSON.readTree(r.body()).path("version").asLong(), r.body());
                JsonNode listed = unit(b, "echo-pair");
                assertTrue(listed.path("converged").asBoolean(), listed.toString());
            } finally {
                b.close();
            }
            b = start(partner); // the same command line: no --deploy
            try {
                assertTrue(BrokerKnowledgeBaseTest.health(b.port()).contains("\"UP\""));
                HttpResponse<String> call = BrokerKnowledgeBaseTest.call(b.port(), "alice", "alice-secret");
                assertEquals(200, call.statusCode(), "served again after the restart: " + call.body());
                assertTrue(call.body().contains("kb via /left"), call.body());
                JsonNode listed = unit(b, "echo-pair");
                assertEquals(1, listed.path("version").asLong(), listed.toString());
                assertTrue(listed.path("deployedHere").asBoolean(), listed.toString());
                assertEquals(200, operator(b, "PUT", "/admin/processes/echo-pair", v2).statusCode());
            } finally {
                b.close();
            }
            b = start(partner);
            try {
                HttpResponse<String> call = BrokerKnowledgeBaseTest.call(b.port(), "alice", "alice-secret");
                assertTrue(call.body().contains("v2:kb"), "the new version after the restart: " + call.body());
                assertEquals(2, unit(b, "echo-pair").path("version").asLong());
                assertEquals(200, operator(b, "DELETE", "/admin/processes/echo-pair", null).statusCode());
            } finally {
                b.close();
            }
            b = start(partner);
            try {
                assertTrue(b.deployments().isEmpty(), "undeployed stays undeployed");
                JsonNode listed = unit(b, "echo-pair");
                assertEquals("undeployed", listed.path("state").asText(), listed.toString());
                assertFalse(listed.path("deployedHere").asBoolean());
                assertEquals(404, operator(b, "DELETE", "/admin/processes/echo-pair", null).statusCode());
                assertEquals(201, operator(b, "POST", "/admin/processes/echo-pair", v1).statusCode(), "deployed again under its name");
            } finally {
                b.close();
            }
        }
    }

    @Test
    void aStoredUnitWinsOverTheDeployDirectoryOfTheSameName() throws Exception {
        List<Path> deploy = List.of(ProcessManagementTest.UNIT); // its directory is named echo-pair
        byte[] v2 = ProcessManagementTest.zip(ProcessManagementTest.unit(
                "<copy><from>$input.parameters/tns:text</from><to>$leftIn.parameters/pt:text</to></copy>",
                "<copy><from>concat('v2:', $input.parameters/tns:text)</from><to>$leftIn.parameters/pt:text</to></copy>"));
        try (EchoPartner partner = new EchoPartner(0)) {
            Broker b = start(partner, deploy);
            try {
                JsonNode listed = unit(b, "echo-pair");
                assertTrue(listed.path("version").isNull(), "a --deploy unit is not stored: " + listed);
                assertTrue(b.knowledgeBase().processUnits().units().isEmpty());
                assertEquals(200, operator(b, "PUT", "/admin/processes/echo-pair", v2).statusCode());
            } finally {
                b.close();
            }
            b = start(partner, deploy); // the old directory on the command line
            try {
                HttpResponse<String> call = BrokerKnowledgeBaseTest.call(b.port(), "alice", "alice-secret");
                assertTrue(call.body().contains("v2:kb"), "the stored version, not the directory's: " + call.body());
                assertEquals(200, operator(b, "DELETE", "/admin/processes/echo-pair", null).statusCode());
            } finally {
                b.close();
            }
            b = start(partner, deploy);
            try {
                assertTrue(b.deployments().isEmpty(), "undeployed through the API, not deployed again from the directory");
                assertEquals(201, operator(b, "POST", "/admin/processes/echo-pair", ProcessManagementTest.zip(ProcessManagementTest.unit(null, null)))
                        .statusCode());
            } finally {
                b.close();
            }
        }
    }
}
