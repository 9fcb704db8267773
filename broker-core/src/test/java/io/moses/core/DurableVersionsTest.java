package io.moses.core;

import static io.moses.core.DurableRestartTest.confirm;
import static io.moses.core.DurableRestartTest.place;
import static io.moses.core.DurableRestartTest.status;
import static io.moses.core.OrderConfirmationEndToEndTest.answered;
import static io.moses.core.OrderConfirmationEndToEndTest.fault;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Instances of a replaced version finish on it across a restart: the shipped order-confirmation
 * process deployed from a --deploy directory over the default H2 knowledge base; orders placed,
 * the broker SIGKILLed, the directory changed to a second version (another confirmation detail),
 * the broker started again with the same command line. The first version's orders are confirmed,
 * and expire, on the first version; new orders run on the second; once no instance of the first
 * version is left, its files are deleted.
 */
@Tag("e2e")
class DurableVersionsTest {
    static final String V1 = "confirmed before it expired"; // the shipped process's detail
    static final String V2 = "confirmed by version 2";

    @Test
    @Timeout(300) // bounds a hang only
    void ordersOfAReplacedVersionFinishOnItAfterARestart(@TempDir Path work) throws Exception {
        HttpServer inventory = InventoryStub.start();
        Path unit = version(work.resolve("units"), V1);
        List<String> args = List.of("--port", "0", "--work", work.resolve("w").toString(), "--deploy", unit.toString(),
                "--seed", DurableRestartTest.UNIT.resolve("seed.yaml").toString(),
                "--set", "STUBS=http://127.0.0.1:" + inventory.getAddress().getPort(), "--request-timeout", "10000",
                "--instance-retention", "3s");
        try {
            try (ChildProcess first = new ChildProcess("io.moses.core.Main", args)) {
                String base = "http://127.0.0.1:" + first.await(BrokerProcessTest.LISTENING, 120);
                answered(place(base, "o-v1", "PT10M"), "o-v1", "placed");
                answered(place(base, "o-v1-expires", "PT6S"), "o-v1-expires", "placed");
                first.process.destroyForcibly(); // SIGKILL
                assertTrue(first.process.waitFor(30, TimeUnit.SECONDS));
            }
            version(work.resolve("units"), V2); // the operator changes the unit's files and starts the broker again
            try (ChildProcess second = new ChildProcess("io.moses.core.Main", args)) {
                String base = "http://127.0.0.1:" + second.await(BrokerProcessTest.LISTENING, 120);
                assertTrue(second.output().contains("a replaced version of order-confirmation: its 2 unfinished instance(s) finish on it"),
                        second.output());
                answered(place(base, "o-v2", "PT10M"), "o-v2", "placed");
                HttpResponse<String> old = confirm(base, "o-v1");
                answered(old, "o-v1", "confirmed");
                assertTrue(old.body().contains(V1), () -> "the first version's order must finish on it: " + old.body() + "\n" + second.output());
                HttpResponse<String> fresh = confirm(base, "o-v2");
                answered(fresh, "o-v2", "confirmed");
                assertTrue(fresh.body().contains(V2), () -> "a new order runs on the deployed version: " + fresh.body());
                // the first version's alarm fires on it, here, and ends its order
                HttpResponse<String> r;
                while ((r = status(base, "o-v1-expires")).statusCode() == 200) {
                    answered(r, "o-v1-expires", "placed");
                    Thread.sleep(200); // between two polls of the status: the alarm is the event waited for
                }
                fault(r);
                // finished instances go after their retention; then the first version's files, which nothing runs on
                second.await(Pattern.compile("files of \\{[^}]+\\}OrderConfirmation-\\d+ deleted"), 60);
                second.stop(30); // before the knowledge base is read below: H2 lets one process open its file
            }
            try (var c = java.sql.DriverManager.getConnection("jdbc:h2:file:" + work.resolve("w").resolve("knowledge").toAbsolutePath(), "sa", "");
                 var s = c.createStatement(); var rs = s.executeQuery("SELECT COUNT(*) FROM process_version")) {
                rs.next();
                assertEquals(1, rs.getLong(1), "the deployed version's files stay, the replaced one's are gone");
            }
        } finally {
            inventory.stop(0);
        }
    }

    /** The shipped order-confirmation unit under {@code parent}, its confirmation's detail {@code detail}. */
    static Path version(Path parent, String detail) throws IOException {
        Path dir = parent.resolve("order-confirmation");
        Files.createDirectories(dir);
        try (var files = Files.list(DurableRestartTest.UNIT)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String text = Files.readString(f);
                if (f.toString().endsWith(".bpel")) {
                    assertTrue(text.contains(V1), "the shipped process's detail changed: " + f);
                    text = text.replace(V1, detail);
                }
                Files.writeString(dir.resolve(f.getFileName()), text);
            }
        }
        return dir;
    }
}
