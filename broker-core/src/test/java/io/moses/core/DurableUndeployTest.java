package io.moses.core;

import static io.moses.core.OrderConfirmationEndToEndTest.answered;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.moses.core.ProcessDeployCommandTest.Run;
import io.moses.core.loop.Adaptation;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Undeploying a unit would strand its waiting durable instances: {@code moses admin processes
 * undeploy} of the order-confirmation unit with an order waiting is refused and changes nothing
 * (the order still answers); with {@code --terminate} the order is terminated first, then the
 * unit is undeployed.
 */
@Tag("e2e")
class DurableUndeployTest {
    static final String OPERATOR_SEED = """
            composite: OrderConfirmation
            classes:
              - {name: ops, maxResponseTime: 5.0, minAvailability: 0.5, maxCost: 10, price: 1}
            users:
              - {name: olga, class: ops, rate: 0, password: olga-secret, role: operator}
              - {name: carl, class: ops, rate: 1, password: carl-secret}
            """;

    @Test
    @Timeout(300) // bounds a hang only
    void undeployIsRefusedWhileAnOrderWaitsAndTerminatesItWhenAsked(@TempDir Path work) throws Exception {
        HttpServer inventory = InventoryStub.start();
        Files.writeString(work.resolve("operators.yaml"), OPERATOR_SEED);
        Path unit = DurableVersionsTest.version(work.resolve("units"), DurableVersionsTest.V1);
        Broker broker = new Broker(BrokerConfig.defaults().withPort(0).withWorkDir(work.resolve("broker")).withDb("mem:durable-undeploy")
                .withAdaptation(Adaptation.off())
                .withSeeds(List.of(DurableRestartTest.UNIT.resolve("seed.yaml"), work.resolve("operators.yaml")))
                .withVariables(Map.of("STUBS", "http://127.0.0.1:" + inventory.getAddress().getPort())));
        try {
            broker.start();
            String base = "http://127.0.0.1:" + broker.port();
            Run deployed = admin(base, "processes", "deploy", unit.toString());
            assertEquals(0, deployed.exit(), deployed.output());
            answered(order(base, "placeOrder", "<o:orderId>o-waits</o:orderId><o:item>widget</o:item><o:quantity>1</o:quantity>"
                    + "<o:expiresAfter>PT10M</o:expiresAfter>"), "o-waits", "placed");

            Run refused = admin(base, "processes", "undeploy", "order-confirmation");
            assertEquals(1, refused.exit(), refused.output());
            assertTrue(refused.output().contains("has 1 unfinished durable instance(s)")
                    && refused.output().contains("processes undeploy order-confirmation --terminate"), refused.output());
            answered(order(base, "status", "<o:orderId>o-waits</o:orderId>"), "o-waits", "placed"); // nothing changed
            assertEquals(List.of("order-confirmation"), broker.deployments().stream().map(d -> d.name()).toList());

            Run undeployed = admin(base, "processes", "undeploy", "order-confirmation", "--terminate");
            assertEquals(0, undeployed.exit(), undeployed.output());
            assertTrue(undeployed.output().contains("order-confirmation undeployed (version ")
                    && undeployed.output().contains("; 1 unfinished durable instance(s) terminated"), undeployed.output());
            assertEquals(List.of(), broker.deployments());
            JsonNode instances = ProcessDeployCommandTest.JSON.readTree(operatorGet(base + "/admin/instances").body()).path("instances");
            assertEquals(1, instances.size(), instances.toString());
            assertEquals("terminated", instances.get(0).path("state").asText(), instances.toString());
        } finally {
            broker.close();
            inventory.stop(0);
        }
    }

    /** A call of the order service as user carl (the seed's users make the services ask for credentials). */
    static HttpResponse<String> order(String base, String operation, String fields) throws Exception {
        String payload = "<o:" + operation + " xmlns:o='" + OrderConfirmationEndToEndTest.NS + "'>" + fields + "</o:" + operation + ">";
        return ProcessManagementTest.HTTP.send(HttpRequest.newBuilder(URI.create(base + "/services/OrderConfirmationService"))
                .header("Content-Type", "text/xml; charset=utf-8")
                .header("SOAPAction", "\"" + OrderConfirmationEndToEndTest.NS + "/" + operation + "\"")
                .header("Authorization", new io.moses.model.auth.BasicCredentials("carl", "carl-secret").header())
                .timeout(java.time.Duration.ofSeconds(60)) // bounds a hang only
                .POST(HttpRequest.BodyPublishers.ofString(OrderConfirmationEndToEndTest.ENV + payload + OrderConfirmationEndToEndTest.END))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    /** {@code moses admin --broker BASE --user olga ARGS}, in its own JVM. */
    static Run admin(String base, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("--broker", base, "--user", "olga"));
        all.addAll(List.of(args));
        try (ChildProcess cli = ChildProcess.commandLine("io.moses.cli.AdminCommand", all, Map.of("MOSES_PASSWORD", "olga-secret"))) {
            assertTrue(cli.process.waitFor(120, TimeUnit.SECONDS), "moses admin did not end: " + cli.output());
            return new Run(cli.process.exitValue(), cli.finalOutput());
        }
    }

    static HttpResponse<String> operatorGet(String url) throws Exception {
        HttpResponse<String> r = ProcessManagementTest.HTTP.send(HttpRequest.newBuilder(URI.create(url))
                .header("Authorization", new io.moses.model.auth.BasicCredentials("olga", "olga-secret").header()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return r;
    }
}
