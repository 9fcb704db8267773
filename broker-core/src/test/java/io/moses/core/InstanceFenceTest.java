package io.moses.core;

import static io.moses.core.OrderConfirmationEndToEndTest.answered;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.sun.net.httpserver.HttpServer;
import io.moses.core.loop.Adaptation;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fence of a durable instance taken over while its replica was presumed gone: once the
 * knowledge base names another replica as the instance's owner, a message that still reaches the
 * old one (a replica that comes back, or one that never died) is not taken: its transaction is
 * refused as it commits, and the instance stays as the new owner will find it.
 */
@Tag("e2e")
class InstanceFenceTest {
    static final Path UNIT = Path.of("../bpel-processes/order-confirmation");

    @Test
    void anInstanceTakenOverByAnotherReplicaIsNotContinuedHere(@TempDir Path work) throws Exception {
        HttpServer inventory = InventoryStub.start();
        BrokerConfig config = BrokerConfig.defaults().withAdaptation(Adaptation.off()).withPort(0).withWorkDir(work).withDb("mem:fence")
                .withSeeds(List.of(UNIT.resolve("seed.yaml")))
                .withVariables(Map.of("STUBS", InventoryStub.url(inventory)))
                .withTimeouts(Duration.ofSeconds(3), Duration.ofSeconds(10)).withDeployments(List.of(UNIT));
        try (Broker broker = new Broker(config); Connection db = DriverManager.getConnection("jdbc:h2:mem:fence", "sa", "")) {
            broker.start();
            String base = "http://127.0.0.1:" + broker.port();
            answered(DurableRestartTest.place(base, "o-fenced", "PT10M"), "o-fenced", "placed");
            try (Statement s = db.createStatement()) {
                // what a takeover does to the instance's row while this replica was presumed gone; the
                // other replica is alive (else this one, the leader, would take the instance back)
                s.executeUpdate("INSERT INTO replica_presence (replica, seen_ms) VALUES ('elsewhere', "
                        + (System.currentTimeMillis() + 600_000) + ")");
                assertEquals(1, s.executeUpdate("UPDATE instance_owner SET replica = 'elsewhere', writes = writes + 1"));
            }
            HttpResponse<String> r = DurableRestartTest.confirm(base, "o-fenced");
            assertNotEquals(200, r.statusCode(), r.body());
            try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery("SELECT INSTANCE_STATE FROM ODE_PROCESS_INSTANCE")) {
                rs.next();
                assertEquals(20, rs.getInt(1), "the instance is still active (ODE's 20), waiting for its confirmation on its new owner");
            }
        } finally {
            inventory.stop(0);
        }
    }
}
