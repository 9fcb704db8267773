package io.moses.core;

import io.moses.mdal.testing.MariaDbServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every conversation shape of {@link ConversationEndToEndTest}, sent through HAProxy's front to
 * two replicas over MariaDB (issue 21). The conversations run one at a time, so HAProxy
 * (leastconn, ties taken in turn) sends each next message to the other replica than the one
 * before: to the replica without the instance, which must forward it to the owner (at least
 * {@value #CONVERSATIONS} messages must have been forwarded; with eight at a time, as on one
 * broker, HAProxy kept most conversations on one replica). Same assertions: a message that reached another instance, or started
 * a new one, gives a wrong number; a lost one, the request timeout.
 */
class ConversationShapesClusterTest extends ConversationEndToEndTest {
    @RegisterExtension
    static final MariaDbServer MARIADB = new MariaDbServer();
    static final Map<String, ChildProcess> replicas = new LinkedHashMap<>();
    static HaProxyProcess haproxy;
    static final Map<String, Integer> ports = new LinkedHashMap<>();

    /** Hides the single broker's start: this class's cluster serves the same tests. */
    @BeforeAll
    static void start() throws Exception {
        if (!HaProxyProcess.installed()) {
            String reason = "the cluster tests need HAProxy (apt-get install haproxy)";
            if ("true".equalsIgnoreCase(System.getenv("CI"))) throw new IllegalStateException(reason);
            Assumptions.abort(reason);
        }
        startPartner(1); // one at a time: HAProxy then alternates the replicas, so a conversation's next message goes to the other one
        String db = MARIADB.createDatabase() + "?user=" + MARIADB.user() + "&password=" + MARIADB.password();
        for (String r : List.of("r1", "r2")) ports.put(r, HaProxyProcess.freePort());
        haproxy = new HaProxyProcess(work, ports);
        for (String r : ports.keySet()) {
            List<String> args = new ArrayList<>(List.of("--port", Integer.toString(ports.get(r)), "--work", work.resolve(r).toString(),
                    "--db", db, "--deploy", UNITS.toString(), "--replica", r, "--monitors", "none", "--optimizer", "off"));
            if (r.equals("r1")) { // one replica seeds the shared knowledge base
                for (Path seed : seeds(work)) args.addAll(List.of("--seed", seed.toString()));
                args.addAll(List.of("--set", "PARTNER=" + partnerUrl()));
            }
            ChildProcess p = new ChildProcess("io.moses.core.Main", args);
            replicas.put(r, p);
            p.await(BrokerProcessTest.LISTENING, 300);
        }
        haproxy.awaitUp(List.of("r1", "r2"), 30);
        base = haproxy.front();
    }

    /** The replicas forwarded at least one message per conversation of a shape (one at a time, about one per conversation of each). */
    static void messagesWereForwarded() throws Exception {
        double forwarded = 0;
        StringBuilder each = new StringBuilder();
        for (var r : ports.entrySet()) {
            String metrics = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://127.0.0.1:" + r.getValue() + "/metrics")).build(), java.net.http.HttpResponse.BodyHandlers.ofString()).body();
            var m = java.util.regex.Pattern.compile("(?m)^moses_conversation_forwarded_total(?:\\{[^}]*\\})? ([0-9.E]+)").matcher(metrics);
            org.junit.jupiter.api.Assertions.assertTrue(m.find(), "no forwarded counter on " + r.getKey());
            forwarded += Double.parseDouble(m.group(1));
            each.append(r.getKey()).append('=').append(m.group(1)).append(' ');
        }
        System.out.println("messages forwarded to their owner: " + each);
        org.junit.jupiter.api.Assertions.assertTrue(forwarded >= CONVERSATIONS, "too few messages crossed replicas: " + each);
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            messagesWereForwarded();
        } finally {
            stopCluster();
        }
    }

    static void stopCluster() {
        for (ChildProcess r : replicas.values()) r.process.destroyForcibly();
        try {
            for (ChildProcess r : replicas.values()) r.process.waitFor(10, TimeUnit.SECONDS);
            if (haproxy != null) haproxy.close();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        } finally {
            stopPartner();
        }
    }
}
