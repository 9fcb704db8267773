package io.moses.core.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.moses.adaptation.AdaptiveBinding;
import io.moses.adaptation.ServiceCallLog;
import io.moses.mdal.Credentials;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.Mdal;
import io.moses.model.Activity;
import io.moses.model.CompositeService;
import io.moses.model.ConcreteService;
import io.moses.model.Plan;
import io.moses.model.ProviderSla;
import io.moses.model.ServiceClass;
import io.moses.model.TaskRef;
import io.moses.model.User;
import io.moses.monitor.ClassMonitor;
import io.moses.monitor.PathAnalyzer;
import io.moses.monitor.QosMonitor;
import io.moses.monitor.Replanner;
import io.moses.monitor.WsMonitor;
import io.moses.optimizer.OptimizationEngine;
import io.moses.testing.Waits;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The feedback loop on parts the test gives it (its monitors, its Replanner, its engines, the
 * broker's clock), on an in-memory knowledge base; only the WS Monitor's probes go over the
 * network, to a local server and to a port where nothing listens.
 */
class LoopReactionTest {
    static final TaskRef FLIGHT = TaskRef.of("Trip", "flight", "findFlight");
    static final Adaptation SETTINGS = ServiceQosRulesTest.SETTINGS;
    static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    static ConcreteService service(String name, String endpoint) {
        return new ConcreteService(name, FLIGHT, URI.create(endpoint), new ProviderSla(0.1, 0.999, 1, 100), null);
    }

    @Test
    void aServiceTheWsMonitorFindsDownIsEjectedAtOnceAndTheNextPlanLeavesItOutStampedOnTheBrokersClock() throws Exception {
        HttpServer wsdls = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 10);
        wsdls.createContext("/", ex -> {
            byte[] b = "<definitions/>".getBytes();
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        wsdls.start();
        Clock wall = Clock.fixed(NOW, ZoneOffset.UTC);
        AtomicLong nanos = new AtomicLong(1_000_000_000L);
        try (KnowledgeBase kb = Mdal.open("mem:loop" + UUID.randomUUID().toString().replace("-", ""), Credentials.NONE)) {
            kb.putServiceClass(new ServiceClass("gold", 1.5, 0.99, 12, 15));
            kb.addUser(new User("alice", "gold", 2, PlanningInputsTest.HASH));
            kb.putCompositeService(new CompositeService("Trip", null, List.of(FLIGHT), new Activity.Invoke("/i", FLIGHT)));
            kb.putConcreteService(service("flight-a", "http://127.0.0.1:1/flight-a")); // nothing listens: refused
            kb.putConcreteService(service("flight-b", "http://127.0.0.1:" + wsdls.getAddress().getPort() + "/flight-b"));
            ServiceCallLog outcomes = new ServiceCallLog(256);
            AdaptiveBinding binding = new AdaptiveBinding(List.of(), null, null, outcomes, Duration.ofSeconds(1), Map.of(),
                    AdaptiveBinding.Options.defaults().withClocks(nanos::get, wall));
            KnowledgeCache knowledge = new KnowledgeCache(kb, binding);
            knowledge.load();
            // a generous probe timeout: it only bounds a hang
            Monitors monitors = new Monitors(new QosMonitor(500, 5_000, SETTINGS.minSamples(), nanos::get), new ClassMonitor(500),
                    new PathAnalyzer(500), new WsMonitor(Duration.ofSeconds(10), 2, 2));
            OptimizationEngine engine = new OptimizationEngine(OptimizationEngine.SolverChoice.OJALGO, wall);
            try (FeedbackLoop loop = new FeedbackLoop(kb, knowledge, outcomes, SETTINGS, Replicas.ALONE, null, engine,
                    () -> new OptimizationEngine(OptimizationEngine.SolverChoice.OJALGO, wall), monitors, new Replanner(), wall,
                    nanos::get)) {
                loop.probeTick();
                assertEquals(Set.of("flight-a"), binding.ejected(), "refused: out of selection at once, before a plan");
                assertEquals(Set.of("flight-a"), loop.live().down());
                Plan plan = awaitPlan(knowledge);
                assertTrue(plan.reason().contains("concrete service flight-a"), plan.reason());
                assertEquals(NOW, plan.created(), "stamped on the broker's wall clock");
                List<Plan.Share> shares = plan.bindings().get(new Plan.Key("gold", FLIGHT));
                assertEquals(Set.of("flight-b"), shares.stream().flatMap(s -> s.implementation().members().stream())
                        .collect(java.util.stream.Collectors.toSet()), "the plan leaves the service that is down out");
            }
        } finally {
            wsdls.stop(0);
        }
    }

    /** The plan the loop's Replanner publishes, on its own thread; the deadline only bounds a hang. */
    private static Plan awaitPlan(KnowledgeCache knowledge) {
        Waits.until("a plan", 60, () -> knowledge.plan() != null);
        return knowledge.plan();
    }
}
