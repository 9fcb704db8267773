package io.moses.core;

import static io.moses.core.OrderConfirmationEndToEndTest.END;
import static io.moses.core.OrderConfirmationEndToEndTest.ENV;
import static io.moses.core.OrderConfirmationEndToEndTest.NS;
import static io.moses.core.OrderConfirmationEndToEndTest.answered;
import static io.moses.core.OrderConfirmationEndToEndTest.fault;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A durable conversation outlives its broker: the shipped order-confirmation process (durable, as
 * its deploy.xml says) on a broker process over the default H2 knowledge base; orders placed,
 * the broker SIGKILLed and started again with the same command line; the waiting order is
 * confirmed by the new broker, and the order whose timer fell due while it was down expires.
 */
@Tag("e2e")
class DurableRestartTest {
    static final Path UNIT = Path.of("../bpel-processes/order-confirmation");
    static final HttpClient http = HttpClient.newHttpClient();

    @Test
    @Timeout(300) // bounds a hang only
    void aBrokerKilledAndStartedAgainContinuesItsConversationsAndFiresTheTimersThatFellDue(@TempDir Path work) throws Exception {
        HttpServer inventory = InventoryStub.start();
        List<String> args = List.of("--port", "0", "--work", work.resolve("w").toString(), "--deploy", UNIT.toString(),
                "--seed", UNIT.resolve("seed.yaml").toString(), "--set", "STUBS=http://127.0.0.1:" + inventory.getAddress().getPort(),
                "--request-timeout", "10000");
        try {
            String replicaBefore;
            try (ChildProcess first = new ChildProcess("io.moses.core.Main", args)) {
                String base = "http://127.0.0.1:" + first.await(BrokerProcessTest.LISTENING, 120);
                answered(place(base, "o-waits", "PT10M"), "o-waits", "placed");
                answered(place(base, "o-expires", "PT4S"), "o-expires", "placed");
                replicaBefore = replica(first.output());
                first.process.destroyForcibly(); // SIGKILL: no shutdown hook, nothing flushed on the way out
                assertTrue(first.process.waitFor(30, TimeUnit.SECONDS));
            }
            try (ChildProcess second = new ChildProcess("io.moses.core.Main", args)) {
                String base = "http://127.0.0.1:" + second.await(BrokerProcessTest.LISTENING, 120);
                assertEquals(replicaBefore, replica(second.output()), "the same command line names the same replica");
                // the instance placed before the kill, waiting in the knowledge base, takes the confirmation
                HttpResponse<String> waiting = status(base, "o-waits");
                assertEquals(200, waiting.statusCode(), () -> waiting.body() + "\n--- the broker started again:\n" + second.output());
                answered(waiting, "o-waits", "placed");
                answered(confirm(base, "o-waits"), "o-waits", "confirmed");
                // the other order's alarm fell due (or falls due) after the kill: it fires on this broker and the order ends
                HttpResponse<String> r;
                do {
                    r = status(base, "o-expires");
                } while (r.statusCode() == 200 && pause());
                fault(r);
                assertTrue(second.output().contains("durable jobs resumed"), second.output());
                second.stop(30); // before the knowledge base is read below: H2 lets one process open its file
            }
            // both conversations ended on the second broker: their instances are kept, finished (30 is
            // ODE's completed, 40 completed with a fault), until their retention
            try (var c = java.sql.DriverManager.getConnection("jdbc:h2:file:" + work.resolve("w").resolve("knowledge").toAbsolutePath(), "sa", "");
                 var s = c.createStatement()) {
                assertEquals(0, count(s, "SELECT COUNT(*) FROM ODE_PROCESS_INSTANCE WHERE INSTANCE_STATE NOT IN (30, 40)"), "instances not finished");
                assertEquals(2, count(s, "SELECT COUNT(*) FROM ODE_PROCESS_INSTANCE"), "instances kept");
                // the expired order's timer ran (and was deleted); the confirmed order's 10-minute alarm
                // stays until it falls due, when ODE finds its instance gone
                assertEquals(0, count(s, "SELECT COUNT(*) FROM ODE_JOB WHERE type = 'TIMER' AND ts <= " + System.currentTimeMillis()),
                        "timers due and not run");
                assertEquals(1, count(s, "SELECT COUNT(*) FROM ODE_JOB WHERE type = 'TIMER'"), "the confirmed order's alarm");
            }
        } finally {
            inventory.stop(0);
        }
    }

    private static long count(java.sql.Statement s, String sql) throws java.sql.SQLException {
        try (var rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static boolean pause() throws InterruptedException {
        Thread.sleep(200); // between two polls of an order's status: the alarm is the event waited for
        return true;
    }

    private static String replica(String log) {
        Matcher m = Pattern.compile("replica (\\S+?)[,)]").matcher(log);
        assertTrue(m.find(), log);
        return m.group(1);
    }

    static HttpResponse<String> send(String base, String operation, String fields) throws Exception {
        String payload = "<o:" + operation + " xmlns:o='" + NS + "'>" + fields + "</o:" + operation + ">";
        return http.send(HttpRequest.newBuilder(URI.create(base + "/services/OrderConfirmationService"))
                .header("Content-Type", "text/xml; charset=utf-8")
                .header("SOAPAction", "\"" + NS + "/" + operation + "\"")
                .timeout(Duration.ofSeconds(60)) // bounds a hang only
                .POST(HttpRequest.BodyPublishers.ofString(ENV + payload + END)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> place(String base, String orderId, String expiresAfter) throws Exception {
        return send(base, "placeOrder", "<o:orderId>" + orderId + "</o:orderId><o:item>widget</o:item><o:quantity>1</o:quantity><o:expiresAfter>"
                + expiresAfter + "</o:expiresAfter>");
    }

    static HttpResponse<String> confirm(String base, String orderId) throws Exception {
        return send(base, "confirm", "<o:orderId>" + orderId + "</o:orderId>");
    }

    static HttpResponse<String> status(String base, String orderId) throws Exception {
        return send(base, "status", "<o:orderId>" + orderId + "</o:orderId>");
    }
}
