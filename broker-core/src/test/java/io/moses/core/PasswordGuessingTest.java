package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.core.loop.Adaptation;
import io.moses.model.auth.LoginThrottle;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Guessing passwords against a real broker: after a few failures for a name, every attempt for
 * it is refused at once (no hash computed) until a delay has passed, the right password
 * included, on composite requests and on the admin API alike; a user whose password the broker
 * already verified keeps being served meanwhile. One client guessing at many names is delayed
 * too, by its address, while another client logs in.
 */
@Tag("e2e")
class PasswordGuessingTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static EchoPartner partner;
    static Broker broker;
    @TempDir static Path work;

    @BeforeAll
    static void start() throws Exception {
        Files.writeString(work.resolve("seed.yaml"), BrokerKnowledgeBaseTest.seed().replace("rate: 1, password: alice-secret",
                "rate: 100, password: alice-secret").replace("users:\n",
                "users:\n  - {name: bob, class: gold, rate: 100, password: bob-secret}\n"
                        + "  - {name: dave, class: gold, rate: 100, password: dave-secret}\n"
                        + "  - {name: olga, class: gold, rate: 0, password: olga-secret, role: operator}\n"));
        partner = new EchoPartner(0);
        broker = new Broker(BrokerConfig.defaults().withAdaptation(Adaptation.off()).withPort(0).withWorkDir(work)
                .withDb("mem:guessing").withSeeds(List.of(work.resolve("seed.yaml"))).withVariables(Map.of("PARTNER", partner.url("")))
                .withDeployments(List.of(Path.of("src/test/resources/processes/echo-pair"))))
                // rates policed: the policing filter checks credentials in front of the endpoint, and a
                // wrong password still counts once per request, not once per check
                .ratePolicy(new io.moses.core.frontend.RatePolicy(io.moses.core.frontend.RatePolicy.OverRate.REJECT, 2));
        broker.start();
    }

    @AfterAll
    static void stop() {
        if (broker != null) broker.close();
        if (partner != null) partner.close();
    }

    static HttpResponse<String> call(String user, String password) throws Exception {
        return BrokerKnowledgeBaseTest.call(broker.port(), user, password);
    }

    static HttpResponse<String> admin(String user, String password) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + broker.port() + "/admin/plan"))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes()))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aCompositeCallersNameIsDelayedAfterFiveWrongPasswordsWhileAKnownLoginIsServed() throws Exception {
        assertEquals(200, call("alice", "alice-secret").statusCode(), "alice's password is verified once, then known");
        for (int i = 0; i < LoginThrottle.FREE_FAILURES; i++)
            BrokerInProcessTest.assertFault(call("bob", "guess-" + i), "Client", "unknown user or wrong password");
        // the right password too: what is refused is the name, so that a guess costs the broker nothing
        BrokerInProcessTest.assertFault(call("bob", "bob-secret"), "Client", "too many failed logins for user 'bob': retry after 1 s");
        assertEquals(200, call("alice", "alice-secret").statusCode(), "a login already verified is not delayed");
        // the delay's end and a success clearing the count run on the throttle's clock: LoginThrottleTest
    }

    static String from(String localAddress, String user, String password) throws Exception {
        return from(localAddress, broker.port(), user, password);
    }

    /**
     * An EchoPair call to 127.0.0.1:{@code port} over a connection from {@code localAddress}
     * (127.0.0.0/8 is all loopback, so a test can be several clients): the whole response.
     */
    static String from(String localAddress, int port, String user, String password) throws Exception {
        try (java.net.Socket s = new java.net.Socket()) {
            s.bind(new java.net.InetSocketAddress(localAddress, 0));
            s.connect(new java.net.InetSocketAddress("127.0.0.1", port), 10_000);
            s.setSoTimeout(30_000);
            byte[] body = BrokerInProcessTest.pair("kb").getBytes(java.nio.charset.StandardCharsets.UTF_8);
            String head = "POST /services/EchoPairService HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/xml; charset=utf-8\r\n"
                    + "Authorization: Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes()) + "\r\n"
                    + "Content-Length: " + body.length + "\r\nConnection: close\r\n\r\n";
            s.getOutputStream().write(head.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            s.getOutputStream().write(body);
            s.getOutputStream().flush();
            return new String(s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    @Test
    void oneClientGuessingAtManyNamesIsDelayedByItsAddressWhileAnotherClientLogsIn() throws Exception {
        for (int i = 0; i < LoginThrottle.FREE_CLIENT_FAILURES; i++) {
            String r = from("127.0.0.2", "stranger" + i, "guess");
            assertTrue(r.contains("unknown user or wrong password"), r);
        }
        // a name it never tried, with the right password: refused for the client, without a hash
        String refused = from("127.0.0.2", "dave", "dave-secret");
        assertTrue(refused.contains("too many failed logins from 127.0.0.2: retry after 1 s"), refused);
        String other = from("127.0.0.3", "dave", "dave-secret");
        assertTrue(other.startsWith("HTTP/1.1 200"), "another client logs in:\n" + other);
    }

    @Test
    void anOperatorsNameIsDelayedOnTheAdminApiAndUnknownNamesCountAlike() throws Exception {
        for (String name : List.of("olga", "nobody")) {
            for (int i = 0; i < LoginThrottle.FREE_FAILURES; i++) {
                HttpResponse<String> r = admin(name, "guess-" + i);
                assertEquals(401, r.statusCode(), r.body());
                assertTrue(r.body().contains("nknown user or wrong password"), r.body());
            }
            HttpResponse<String> refused = admin(name, "olga-secret");
            assertEquals(401, refused.statusCode(), refused.body());
            assertTrue(refused.body().contains("too many failed logins for user '" + name + "'"), refused.body());
        }
    }
}
