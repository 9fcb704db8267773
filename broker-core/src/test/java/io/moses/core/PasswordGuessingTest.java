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
 * already verified keeps being served meanwhile.
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
