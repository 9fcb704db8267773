package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.moses.core.loop.Adaptation;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user who starts conversations and never ends them holds the broker's memory: past
 * {@code --max-instances-per-user} waiting instances, a message that would start one more is
 * refused, while the user's messages to the conversations under way, and other users, are served.
 */
@Tag("e2e")
class ConversationLimitTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final int LIMIT = 2;
    static Broker broker;
    @TempDir static Path work;

    @BeforeAll
    static void start() throws Exception {
        Files.writeString(work.resolve("seed.yaml"), """
                classes:
                  - {name: gold, maxResponseTime: 20.0, minAvailability: 0.5, maxCost: 10, price: 5}
                users:
                  - {name: alice, class: gold, rate: 100, password: alice-secret}
                  - {name: bob, class: gold, rate: 100, password: bob-secret}
                """);
        broker = new Broker(BrokerConfig.defaults().withAdaptation(Adaptation.off()).withPort(0).withWorkDir(work).withDb("mem:conv-limit")
                .withSeeds(List.of(work.resolve("seed.yaml"))).withMaxInstancesPerUser(LIMIT)
                .withDeployments(List.of(ConversationEndToEndTest.UNITS)));
        broker.start();
    }

    @AfterAll
    static void stop() {
        if (broker != null) broker.close();
    }

    /** ConvReceive: {@code start} creates an instance and replies, which then waits for {@code next}. */
    static HttpResponse<String> send(String user, String operation, int id) throws Exception {
        String ns = ConversationEndToEndTest.NS;
        String payload = "<c:" + operation + " xmlns:c='" + ns + "'><c:id>" + id + "</c:id><c:value>1</c:value></c:" + operation + ">";
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + broker.port() + "/services/ConvReceiveService"))
                .header("Content-Type", "text/xml; charset=utf-8").header("SOAPAction", "\"" + ns + "/" + operation + "\"")
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":" + user + "-secret").getBytes()))
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(ConversationEndToEndTest.ENV + payload + ConversationEndToEndTest.END)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aUserAtTheLimitCannotStartAnotherConversationButContinuesItsOwnAndOthersStartTheirs() throws Exception {
        for (int id = 1; id <= LIMIT; id++) assertEquals(200, send("alice", "start", id).statusCode(), "alice's conversation " + id);
        BrokerInProcessTest.assertFault(send("alice", "start", 3), "Client",
                "user 'alice' has 2 conversations under way, the most one user may have (--max-instances-per-user): end one first");
        assertEquals(200, send("bob", "start", 4).statusCode(), "another user starts one");
        HttpResponse<String> next = send("alice", "next", 1);
        assertEquals(200, next.statusCode(), "a message to a conversation under way is served at the limit: " + next.body());
    }
}
