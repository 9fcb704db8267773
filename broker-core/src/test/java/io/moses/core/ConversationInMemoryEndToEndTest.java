package io.moses.core;

import io.moses.core.loop.Adaptation;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** Every conversation shape of {@link ConversationEndToEndTest} (where they are durable), with the processes in memory. */
@Tag("e2e")
class ConversationInMemoryEndToEndTest extends ConversationEndToEndTest {
    /** Hides the durable start: the same tests, on an in-memory copy of the unit. */
    @BeforeAll
    static void start() throws Exception {
        startPartner(PARALLEL);
        BrokerConfig config = BrokerConfig.defaults().withAdaptation(Adaptation.off()).withPort(0).withWorkDir(work)
                .withDb("mem:conversations-in-memory").withSeeds(seeds(work))
                .withVariables(Map.of("PARTNER", partnerUrl()))
                .withTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(30))
                .withDeployments(List.of(InMemoryUnits.copy(UNITS, work.resolve("in-memory"))));
        broker = new Broker(config);
        broker.start();
        base = "http://127.0.0.1:" + broker.port();
    }
}
