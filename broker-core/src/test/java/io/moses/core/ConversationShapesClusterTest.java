package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.mdal.testing.MariaDbServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every conversation shape of {@link ConversationEndToEndTest}, sent through HAProxy's front to
 * two replicas over MariaDB. The conversations run one at a time, so HAProxy
 * (leastconn, ties taken in turn) sends each next message to the other replica than the one
 * before: to the replica without the instance, which must forward it to the owner (at least
 * {@value #CONVERSATIONS} messages must have been forwarded; with eight at a time, as on one
 * broker, HAProxy kept most conversations on one replica). Same assertions: a message that reached another instance, or started
 * a new one, gives a wrong number; a lost one, the request timeout.
 */
@Tag("e2e")
class ConversationShapesClusterTest extends ConversationEndToEndTest {
    @RegisterExtension
    static final MariaDbServer MARIADB = new MariaDbServer();
    static TestCluster cluster;

    /** Hides the single broker's start: this class's cluster serves the same tests. */
    @BeforeAll
    static void start() throws Exception {
        TestCluster.requireHaProxy();
        startPartner(1); // one at a time: HAProxy then alternates the replicas, so a conversation's next message goes to the other one
        cluster = new TestCluster(work, MARIADB, List.of("r1", "r2"));
        List<String> seeding = new ArrayList<>(); // one replica seeds the shared knowledge base
        for (Path seed : seeds(work)) seeding.addAll(List.of("--seed", seed.toString()));
        seeding.addAll(List.of("--set", "PARTNER=" + partnerUrl()));
        cluster.start("r1", concat(seeding, "--deploy", UNITS.toString(), "--monitors", "none", "--optimizer", "off"));
        cluster.start("r2", "--deploy", UNITS.toString(), "--monitors", "none", "--optimizer", "off");
        cluster.haproxy.awaitUp(List.of("r1", "r2"), 30);
        base = cluster.front();
    }

    static String[] concat(List<String> first, String... more) {
        List<String> all = new ArrayList<>(first);
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    /** The replicas forwarded at least one message per conversation of a shape (one at a time, about one per conversation of each). */
    static void messagesWereForwarded() throws Exception {
        double forwarded = 0;
        StringBuilder each = new StringBuilder();
        for (String r : cluster.replicas.keySet()) {
            String metrics = http.send(HttpRequest.newBuilder(URI.create(cluster.replica(r) + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            var m = Pattern.compile("(?m)^moses_conversation_forwarded_total(?:\\{[^}]*\\})? ([0-9.E]+)").matcher(metrics);
            assertTrue(m.find(), "no forwarded counter on " + r);
            forwarded += Double.parseDouble(m.group(1));
            each.append(r).append('=').append(m.group(1)).append(' ');
        }
        System.out.println("messages forwarded to their owner: " + each);
        assertTrue(forwarded >= CONVERSATIONS, "too few messages crossed replicas: " + each);
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (cluster != null) messagesWereForwarded();
        } finally {
            if (cluster != null) cluster.close();
            stopPartner();
        }
    }
}
