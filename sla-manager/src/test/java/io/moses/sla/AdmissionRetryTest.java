package io.moses.sla;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.mdal.Credentials;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.Mdal;
import io.moses.mdal.PasswordHasher;
import io.moses.model.Activity;
import io.moses.model.CompositeService;
import io.moses.model.ConcreteService;
import io.moses.model.PayloadMapping;
import io.moses.model.Plan;
import io.moses.model.ProviderSla;
import io.moses.model.Role;
import io.moses.model.ServiceClass;
import io.moses.model.SlaEvent;
import io.moses.model.TaskRef;
import io.moses.model.User;
import io.moses.optimizer.OptimizationEngine;
import io.moses.optimizer.PlanningInput;
import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The admission's retry (docs/model.md, "Admission and counter-offer"): a decision is stored only
 * on the version of the inputs it was made on. Here another replica changes an input while this
 * one decides (the planning input is read, then the other replica writes), so the first decision
 * is refused by the knowledge base, made again on what is there now, and rejected: one capacity,
 * one winner.
 */
class AdmissionRetryTest {
    static final String HASH = PasswordHasher.hash("secret-password".toCharArray(), 1000);
    static final TaskRef PAY = new TaskRef("Shop", "pay.charge");
    static final CompositeService SHOP = new CompositeService("Shop", "urn:shop", List.of(PAY), new Activity.Invoke("/pay", PAY));
    /** The manager's wall clock, stopped: the time of the SLA events it records. */
    static final Instant WALL = Instant.parse("2026-01-01T00:00:00Z");
    KnowledgeBase kb;

    @BeforeEach
    void open() {
        kb = Mdal.open("mem:", Credentials.NONE);
        kb.putCompositeService(SHOP);
        kb.addServiceClass(new ServiceClass("gold", 1, 0.9, 10, 5));
        // one provider, 10 req/s: with alice and bob (2 req/s) the class can admit about 8 more
        kb.addConcreteService(new ConcreteService("pay-a", PAY, URI.create("http://127.0.0.1:9/pay"),
                new ProviderSla(0.1, 0.999, 1, 10), PayloadMapping.IDENTITY));
        kb.addUser(new User("alice", "gold", 1, HASH));
        kb.addUser(new User("bob", "gold", 1, HASH));
        kb.addUser(new User("olga", "gold", 0, HASH, Role.OPERATOR));
    }

    @AfterEach
    void close() {
        kb.close();
    }

    /** The knowledge base as it is now, and (once) another replica's write right after it was read. */
    final class Racing implements Planning {
        final AtomicInteger reads = new AtomicInteger();
        final Runnable otherReplica;

        Racing(Runnable otherReplica) {
            this.otherReplica = otherReplica;
        }

        @Override
        public PlanningInput input() {
            Map<String, Double> load = new HashMap<>();
            for (User u : kb.users()) load.merge(u.serviceClass(), u.rate(), Double::sum);
            PlanningInput.Builder b = PlanningInput.builder().composite(SHOP).services(kb.concreteServices());
            for (ServiceClass k : kb.serviceClasses()) b.serviceClass(k, load.getOrDefault(k.name(), 0.0));
            PlanningInput in = b.build();
            if (reads.incrementAndGet() == 1) otherReplica.run(); // decided on what was read: now stale
            return in;
        }

        @Override
        public Replanned replan(String why, Set<String> without) {
            return new Replanned(true, null, "planned");
        }

        @Override
        public Plan current() {
            return null;
        }
    }

    SlaManager manager(Planning p) {
        return new SlaManager(kb, new OptimizationEngine(OptimizationEngine.SolverChoice.OJALGO), p, SlaManager.Registration.OPEN,
                Clock.fixed(WALL, ZoneOffset.UTC));
    }

    @Test
    void aSubscriptionStoredOnAnotherReplicaMeanwhileIsSeenAndTheLastCapacityHasOneWinner() {
        Racing p = new Racing(() -> kb.subscribe(new User("carol", "gold", 5, HASH), kb.subscriptionsVersion()));
        SlaManager.Subscription s = manager(p).subscribe(null, "dave", "secret-password", "gold", 5);
        assertEquals(2, p.reads.get(), "decided again after the knowledge base refused the first decision");
        assertFalse(s.accepted(), "carol took the capacity first: " + s);
        assertTrue(kb.user("dave").isEmpty());
        assertEquals(5.0, kb.user("carol").orElseThrow().rate());
        // the counter-offer is what is left after carol (about 3 req/s), not before her (about 8)
        double offer = s.counterOffers().stream().filter(o -> o.serviceClass().equals("gold")).mapToDouble(SlaManager.CounterOffer::rate)
                .max().orElse(0);
        assertTrue(offer > 2 && offer <= 3.0 + 1e-9, s.toString());
        SlaEvent rejection = kb.slaEvents(null, 10).stream().filter(e -> e.kind() == SlaEvent.Kind.REJECTION).findFirst().orElseThrow();
        assertEquals("dave", rejection.user());
        assertEquals(WALL, rejection.at(), "the refusal is recorded at the time of the manager's clock");
    }

    @Test
    void aProviderTightenedOnAnotherReplicaMeanwhileIsSeen() {
        // an operator lowers the provider's capacity to 6 req/s while this replica decides: 2 + 5 no longer fit
        Racing p = new Racing(() -> kb.updateConcreteService("pay-a", s -> new ConcreteService(s.name(), s.task(), s.endpoint(),
                new ProviderSla(0.1, 0.999, 1, 6), s.mapping())));
        SlaManager.Subscription s = manager(p).subscribe(null, "dave", "secret-password", "gold", 5);
        assertEquals(2, p.reads.get(), "decided again after the knowledge base refused the first decision");
        assertFalse(s.accepted(), s.toString());
        assertTrue(kb.user("dave").isEmpty());
    }

    @Test
    void withoutARaceOneDecisionIsStored() {
        Racing p = new Racing(() -> { });
        SlaManager.Subscription s = manager(p).subscribe(null, "dave", "secret-password", "gold", 5);
        assertTrue(s.accepted(), s.toString());
        assertEquals(1, p.reads.get());
        assertEquals(5.0, kb.user("dave").orElseThrow().rate());
    }

    @Test
    void oneAnswerOfTheClassesServesEveryCallerForASecondOrUntilAChangeIsAdmitted() throws Exception {
        Racing p = new Racing(() -> {});
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(WALL.toEpochMilli());
        Clock moving = new Clock() {
            @Override public java.time.ZoneId getZone() { return ZoneOffset.UTC; }
            @Override public Clock withZone(java.time.ZoneId zone) { return this; }
            @Override public java.time.Instant instant() { return java.time.Instant.ofEpochMilli(now.get()); }
        };
        SlaManager m = new SlaManager(kb, new OptimizationEngine(OptimizationEngine.SolverChoice.OJALGO), p, SlaManager.Registration.OPEN,
                SlaManager.DEFAULT_REGISTRATION_CAP, moving);
        // anonymous callers asking at once: one computation
        java.util.concurrent.ExecutorService callers = java.util.concurrent.Executors.newFixedThreadPool(8);
        try {
            java.util.List<java.util.concurrent.Future<java.util.List<SlaManager.ClassOffer>>> asked = new java.util.ArrayList<>();
            for (int i = 0; i < 40; i++) asked.add(callers.submit(m::classes));
            for (var f : asked) assertEquals(1, f.get(60, java.util.concurrent.TimeUnit.SECONDS).size());
        } finally {
            callers.shutdownNow();
        }
        assertEquals(1, p.reads.get(), "one planning input read for all of them");
        double before = m.classes().get(0).admissibleRate();
        now.addAndGet(SlaManager.OFFERS_FRESH_MILLIS - 1);
        m.classes();
        assertEquals(1, p.reads.get(), "still fresh");
        m.subscribe(null, "erin", "secret-password", "gold", 1);
        int afterSubscribe = p.reads.get();
        double after = m.classes().get(0).admissibleRate();
        assertEquals(afterSubscribe + 1, p.reads.get(), "an admitted change is answered anew at once");
        assertTrue(after < before, "the offer shows the new subscription: " + before + " -> " + after);
        now.addAndGet(SlaManager.OFFERS_FRESH_MILLIS);
        m.classes();
        assertEquals(afterSubscribe + 2, p.reads.get(), "a second later, anew");
    }
}