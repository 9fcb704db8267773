package io.moses.mdal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.model.Activity;
import io.moses.model.CompositeService;
import io.moses.model.ConcreteService;
import io.moses.model.Implementation;
import io.moses.model.Observation;
import io.moses.model.PayloadMapping;
import io.moses.model.Plan;
import io.moses.model.ProviderSla;
import io.moses.model.Role;
import io.moses.model.ServiceClass;
import io.moses.model.SlaEvent;
import io.moses.model.TaskRef;
import io.moses.model.User;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every back-end must have. Subclasses supply a fresh database per test; the
 * same tests then run on in-memory H2, file H2 and a real MariaDB server.
 */
abstract class KnowledgeBaseContract {
    static final String TP = "TripPlanner";
    static final TaskRef FLIGHT = new TaskRef(TP, "flight.findFlight");
    static final TaskRef HOTEL = new TaskRef(TP, "hotel.findHotel");
    /** Cheap hashes: the tests are about storage, not hashing cost. */
    static final String HASH = PasswordHasher.hash("secret".toCharArray(), 1000);

    /** A spec ({@code --db} value) of a new, empty database. */
    protected abstract String newDatabase() throws Exception;

    protected abstract Credentials credentials();

    /** A plain JDBC connection to the database of {@code spec}, bypassing MDAL. */
    protected abstract Connection rawConnection(String spec) throws SQLException;

    protected String spec;
    protected KnowledgeBase kb;

    @BeforeEach
    void open() throws Exception {
        spec = newDatabase();
        kb = Mdal.open(spec, credentials());
    }

    @AfterEach
    void close() {
        if (kb != null) kb.close();
    }

    static ServiceClass gold() {
        return new ServiceClass("gold", 1.5, 0.99, 10, 12);
    }

    static ConcreteService service(String name, TaskRef task) {
        return new ConcreteService(name, task, URI.create("http://127.0.0.1:9/stubs/" + name),
                new ProviderSla(0.2, 0.98, 1.5, 40), PayloadMapping.IDENTITY);
    }

    static Plan.Key key(String cls, TaskRef t) {
        return new Plan.Key(cls, t);
    }

    void seedBasics() {
        kb.addServiceClass(gold());
        kb.addServiceClass(new ServiceClass("silver", 3, 0.95, 6, 7));
        kb.addConcreteService(service("flight-a", FLIGHT));
        kb.addConcreteService(service("flight-b", FLIGHT));
        kb.addConcreteService(service("hotel-a", HOTEL));
    }

    static Plan draft(String reason) {
        return new Plan(99, Instant.parse("2026-01-02T03:04:05.678Z"),
                Map.of(key("gold", FLIGHT), List.of(new Plan.Share(Implementation.parse("par(flight-a,flight-b)"), 0.25),
                                new Plan.Share(Implementation.single("flight-a"), 0.75)),
                        key("gold", HOTEL), List.of(new Plan.Share(Implementation.single("hotel-a"), 1.0)),
                        key("silver", FLIGHT), List.of(new Plan.Share(Implementation.parse("alt(flight-b,flight-a)"), 1.0))),
                Map.of("gold", new Plan.Prediction(0.8, 0.995, 4.5), "silver", new Plan.Prediction(1.2, 0.97, 2)),
                0.4321, "lp_solve", 1.25, List.of(new Plan.ClassAtRisk("silver", 0.1, 0.0, 0.5, false)), reason);
    }

    static KnowledgeBaseException.Kind kindOf(Runnable r) {
        return assertThrows(KnowledgeBaseException.class, r::run).kind();
    }

    static String messageOf(Runnable r) {
        return assertThrows(KnowledgeBaseException.class, r::run).getMessage();
    }

    // ------------------------------------------------------------------ classes and users

    @Test
    void serviceClassesRoundTripAndRefuseDuplicates() {
        kb.addServiceClass(gold());
        assertEquals(gold(), kb.serviceClass("gold").orElseThrow());
        KnowledgeBaseException dup = assertThrows(KnowledgeBaseException.class, () -> kb.addServiceClass(gold()));
        assertEquals(KnowledgeBaseException.Kind.CONFLICT, dup.kind());
        assertTrue(dup.getMessage().contains("serviceClass.name"), dup.getMessage());

        kb.putServiceClass(new ServiceClass("gold", 2, 0.9, 8, 11));
        assertEquals(new ServiceClass("gold", 2, 0.9, 8, 11), kb.serviceClass("gold").orElseThrow());
        kb.putServiceClass(new ServiceClass("bronze", 5, 0.9, 3, 2));
        assertEquals(List.of("bronze", "gold"), kb.serviceClasses().stream().map(ServiceClass::name).toList());

        ServiceClass updated = kb.updateServiceClass("gold", k -> new ServiceClass(k.name(), k.maxResponseTime(), k.minAvailability(),
                k.maxCost(), k.price() + 1));
        assertEquals(12, updated.price());
        assertEquals(12, kb.serviceClass("gold").orElseThrow().price());
        assertEquals(KnowledgeBaseException.Kind.NOT_FOUND, kindOf(() -> kb.updateServiceClass("platinum", k -> k)));

        assertTrue(kb.removeServiceClass("bronze"));
        assertFalse(kb.removeServiceClass("bronze"));
        assertTrue(kb.serviceClass("bronze").isEmpty());
    }

    @Test
    void namesAreCaseSensitiveOnEveryBackEnd() {
        kb.addServiceClass(gold());
        kb.addServiceClass(new ServiceClass("Gold", 1, 0.9, 1, 1));
        assertEquals(2, kb.serviceClasses().size());
    }

    @Test
    void rolesAreStoredWithTheUser() {
        kb.addServiceClass(gold());
        kb.addUser(new User("alice", "gold", 1, HASH));
        kb.addUser(new User("olga", "gold", 0, HASH, Role.OPERATOR));
        assertEquals(Role.USER, kb.user("alice").orElseThrow().role());
        assertEquals(Role.OPERATOR, kb.user("olga").orElseThrow().role());
        kb.putUser(new User("alice", "gold", 1, HASH, Role.OPERATOR));
        assertTrue(kb.user("alice").orElseThrow().isOperator());
    }

    @Test
    void aSubscriptionCommitsOnlyOnTheVersionItWasDecidedOn() {
        kb.addServiceClass(gold());
        kb.addServiceClass(new ServiceClass("silver", 2, 0.9, 1, 1));
        long v0 = kb.subscriptionsVersion();
        long v1 = kb.subscribe(new User("alice", "gold", 1, HASH), v0);
        assertTrue(v1 > v0);
        assertEquals(1.0, kb.user("alice").orElseThrow().rate());
        // decided on v0, but alice came in meanwhile: refused, nothing stored
        KnowledgeBaseException stale = assertThrows(KnowledgeBaseException.class, () -> kb.subscribe(new User("bob", "gold", 1, HASH), v0));
        assertEquals(KnowledgeBaseException.Kind.CONFLICT, stale.kind());
        assertTrue(kb.user("bob").isEmpty());
        assertEquals(KnowledgeBaseException.Kind.CONFLICT, kindOf(() -> kb.subscribe(new User("alice", "gold", 3, HASH), v1)));
        assertEquals(1.0, kb.user("alice").orElseThrow().rate());

        long v2 = kb.changeSubscription("alice", "silver", 4, v1);
        assertEquals(new User("alice", "silver", 4, HASH), kb.user("alice").orElseThrow());
        assertEquals(KnowledgeBaseException.Kind.CONFLICT, kindOf(() -> kb.changeSubscription("alice", "gold", 1, v1)));
        assertEquals(KnowledgeBaseException.Kind.NOT_FOUND, kindOf(() -> kb.changeSubscription("nobody", "gold", 1, v2)));
        assertEquals(KnowledgeBaseException.Kind.INVALID, kindOf(() -> kb.changeSubscription("alice", "platinum", 1, v2)));
        assertEquals(v2, kb.subscriptionsVersion(), "refused changes leave the version alone");
        assertEquals("silver", kb.user("alice").orElseThrow().serviceClass());
        // plain user changes count as subscription changes too
        kb.putUser(new User("carol", "gold", 1, HASH));
        assertTrue(kb.subscriptionsVersion() > v2);
        long v3 = kb.subscriptionsVersion();
        assertTrue(kb.removeUser("carol"));
        assertTrue(kb.subscriptionsVersion() > v3);
    }

    @Test
    void aDecisionIsRefusedWhenAnyOfItsInputsChangedMeanwhile() {
        // the admission decides on users, concrete services, classes and composites: a change of
        // any of them, on any replica, between the decision and its storing sends it back
        kb.addServiceClass(gold());
        TaskRef t = new TaskRef("Trip", "flight.find");
        java.util.List<Runnable> changes = java.util.List.of(
                () -> kb.addServiceClass(new ServiceClass("silver", 2, 0.9, 1, 1)),
                () -> kb.updateServiceClass("silver", k -> new ServiceClass("silver", 1.5, 0.9, 1, 1)),
                () -> kb.putServiceClass(new ServiceClass("silver", 1.2, 0.9, 1, 1)),
                () -> kb.addConcreteService(service("flight-a", t)),
                () -> kb.updateConcreteService("flight-a", s -> new ConcreteService(s.name(), s.task(), s.endpoint(),
                        new ProviderSla(0.5, 0.9, 1, 10), s.mapping())),
                () -> kb.putConcreteService(service("flight-b", t)),
                () -> kb.removeConcreteService("flight-b"),
                () -> kb.removeServiceClass("silver"));
        int i = 0;
        for (Runnable change : changes) {
            long decidedOn = kb.subscriptionsVersion();
            change.run();
            String name = "u" + i++;
            assertEquals(KnowledgeBaseException.Kind.CONFLICT, kindOf(() -> kb.subscribe(new User(name, "gold", 1, HASH), decidedOn)),
                    "change " + i + " between decide and store");
            assertTrue(kb.user(name).isEmpty());
            kb.subscribe(new User(name, "gold", 1, HASH), kb.subscriptionsVersion()); // decided again: stored
        }
    }

    @Test
    void replanRequestsWaitForTheLeadersAnswer() {
        ReplanRequests r = kb.replanRequests();
        String a = r.ask("subscription of dave", Set.of(), "r2");
        String b = r.ask("concrete service x removed", Set.of("x", "y"), "r3");
        assertEquals(Set.of(a, b), r.pending().stream().map(ReplanRequests.Request::id).collect(java.util.stream.Collectors.toSet()));
        assertEquals(Set.of("x", "y"), r.request(b).orElseThrow().without());
        assertFalse(r.request(a).orElseThrow().answered());
        r.answer(List.of(a), 7, "optimal");
        ReplanRequests.Request done = r.request(a).orElseThrow();
        assertTrue(done.answered());
        assertEquals(7L, done.planVersion());
        assertEquals("optimal", done.answer());
        assertEquals(List.of(b), r.pending().stream().map(ReplanRequests.Request::id).toList());
        r.answer(List.of(a), 9, "again"); // an answered request keeps its answer
        assertEquals(7L, r.request(a).orElseThrow().planVersion());
        r.answer(List.of(b), 0, "no new plan: no available concrete service");
        assertTrue(r.pending().isEmpty());
        assertEquals(0L, r.request(b).orElseThrow().planVersion());
    }

    @Test
    void concurrentSubscriptionsOnOneVersionAdmitExactlyOne() throws Exception {
        kb.addServiceClass(gold());
        long v = kb.subscriptionsVersion();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Boolean>> results = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                String name = "u" + i;
                results.add(pool.submit(() -> {
                    go.await();
                    try {
                        kb.subscribe(new User(name, "gold", 1, HASH), v);
                        return true;
                    } catch (KnowledgeBaseException e) {
                        assertEquals(KnowledgeBaseException.Kind.CONFLICT, e.kind(), e.getMessage());
                        return false;
                    }
                }));
            }
            go.countDown();
            int won = 0;
            for (Future<Boolean> f : results) if (f.get(30, TimeUnit.SECONDS)) won++;
            assertEquals(1, won);
            assertEquals(1, kb.users().size());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void usersNeedAKnownClassAndAHashedPassword() {
        kb.addServiceClass(gold());
        String unknown = messageOf(() -> kb.addUser(new User("alice", "platinum", 1, HASH)));
        assertTrue(unknown.contains("user.serviceClass") && unknown.contains("platinum"), unknown);
        String plain = messageOf(() -> kb.addUser(new User("alice", "gold", 1, "secret")));
        assertTrue(plain.contains("user.passwordHash"), plain);

        kb.addUser(new User("alice", "gold", 2.5, HASH));
        User alice = kb.user("alice").orElseThrow();
        assertEquals(2.5, alice.rate());
        assertTrue(PasswordHasher.verify("secret".toCharArray(), alice.passwordHash()));
        assertFalse(PasswordHasher.verify("wrong".toCharArray(), alice.passwordHash()));
        assertEquals(KnowledgeBaseException.Kind.CONFLICT, kindOf(() -> kb.addUser(new User("alice", "gold", 1, HASH))));

        User faster = kb.updateUser("alice", u -> new User(u.name(), u.serviceClass(), u.rate() * 2, u.passwordHash()));
        assertEquals(5.0, faster.rate());
        String badRate = messageOf(() -> kb.updateUser("alice", u -> new User(u.name(), u.serviceClass(), -1, u.passwordHash())));
        assertTrue(badRate.contains("rate"), badRate);
        assertEquals(5.0, kb.user("alice").orElseThrow().rate());
        assertEquals(List.of("alice"), kb.users("gold").stream().map(User::name).toList());

        KnowledgeBaseException inUse = assertThrows(KnowledgeBaseException.class, () -> kb.removeServiceClass("gold"));
        assertEquals(KnowledgeBaseException.Kind.CONFLICT, inUse.kind());
        assertTrue(kb.removeUser("alice"));
        assertTrue(kb.removeServiceClass("gold"));
    }

    // ------------------------------------------------------------------ services

    @Test
    void concreteServicesKeepTheirSlaEndpointAndMapping() {
        kb.addServiceClass(gold());
        PayloadMapping mapping = new PayloadMapping("searchFlights", "urn:moses:provider-b:flight/searchFlights",
                Map.of("{urn:moses:task:flight}findFlightRequest", "{urn:moses:provider-b:flight}searchFlightsRequest"),
                Map.of("{urn:moses:provider-b:flight}searchFlightsResponse", "{urn:moses:task:flight}findFlightResponse",
                        "{urn:moses:provider-b:flight}outcome", "{urn:moses:task:flight}result"));
        ConcreteService b = new ConcreteService("flight-b", FLIGHT, URI.create("http://127.0.0.1:8089/stubs/flight-b"),
                new ProviderSla(0.35, 0.995, 2.25, 80), mapping);
        kb.addConcreteService(service("flight-a", FLIGHT));
        kb.addConcreteService(b);
        kb.addConcreteService(service("hotel-a", HOTEL));

        assertEquals(b, kb.concreteService("flight-b").orElseThrow());
        assertEquals(PayloadMapping.IDENTITY, kb.concreteService("flight-a").orElseThrow().mapping());
        assertEquals(List.of("flight-a", "flight-b"), kb.concreteServices(FLIGHT).stream().map(ConcreteService::name).toList());
        assertEquals(3, kb.concreteServices().size());
        assertEquals(List.of(FLIGHT, HOTEL), kb.tasks(TP));

        KnowledgeBaseException dup = assertThrows(KnowledgeBaseException.class, () -> kb.addConcreteService(b));
        assertEquals(KnowledgeBaseException.Kind.CONFLICT, dup.kind());
        assertTrue(dup.getMessage().contains("concreteService.name"), dup.getMessage());

        kb.putConcreteService(service("flight-b", FLIGHT));
        assertEquals(PayloadMapping.IDENTITY, kb.concreteService("flight-b").orElseThrow().mapping());
        assertTrue(kb.removeConcreteService("flight-b"));
        assertTrue(kb.concreteService("flight-b").isEmpty());
    }

    /**
     * The last service of a task that is in cannot be taken out, whatever the plan: before, it was
     * taken out, and its composite could no longer be planned.
     */
    @Test
    void theLastServiceOfATaskThatIsInCannotBeTakenOut() {
        seedBasics();
        OperatorSwitches switches = kb.operatorSwitches();
        KnowledgeBaseException only = assertThrows(KnowledgeBaseException.class, () -> switches.holdOut("hotel-a", true, "olga"));
        assertEquals(KnowledgeBaseException.Kind.CONFLICT, only.kind());
        assertTrue(only.getMessage().contains("'hotel-a' is the only concrete service of " + HOTEL + " that is in"), only.getMessage());
        assertEquals(0, switches.version(), "nothing changed");

        assertTrue(switches.holdOut("flight-a", true, "olga"));
        assertEquals(KnowledgeBaseException.Kind.CONFLICT, kindOf(() -> switches.holdOut("flight-b", true, "olga")));
        assertEquals(Set.of("flight-a"), switches.state().servicesOut());
        assertTrue(switches.holdOut("flight-a", false, "olga"));
        assertTrue(switches.holdOut("flight-b", true, "olga"), "flight-a is in again");
        assertEquals(new OperatorSwitches.State(3, Set.of(), Set.of("flight-b")), switches.state());
    }

    @Test
    void apiRefusesValuesOutsideTheirDomainNamingTheField() {
        seedBasics();
        // the model's records refuse at construction, naming the field
        IllegalArgumentException sla = assertThrows(IllegalArgumentException.class, () -> new ProviderSla(0.1, 1.5, 1, 1));
        assertTrue(sla.getMessage().startsWith("availability"), sla.getMessage());
        // a change that builds an invalid record becomes INVALID naming the field; nothing is written
        KnowledgeBaseException viaUpdate = assertThrows(KnowledgeBaseException.class, () -> kb.updateConcreteService("flight-a",
                s -> new ConcreteService(s.name(), s.task(), s.endpoint(), new ProviderSla(0.1, 0, 1, 1), s.mapping())));
        assertEquals(KnowledgeBaseException.Kind.INVALID, viaUpdate.kind());
        assertTrue(viaUpdate.getMessage().contains("availability"), viaUpdate.getMessage());
        assertEquals(0.98, kb.concreteService("flight-a").orElseThrow().sla().availability());
        String negCost = messageOf(() -> kb.updateConcreteService("flight-a",
                s -> new ConcreteService(s.name(), s.task(), s.endpoint(), new ProviderSla(0.1, 0.9, -1, 1), s.mapping())));
        assertTrue(negCost.contains("cost"), negCost);

        String obsAvail = messageOf(() -> kb.putServiceQos(new Observation.ServiceQos("flight-a", 0.2, 1.5, 10, Instant.now())));
        assertTrue(obsAvail.contains("serviceQos.availability"), obsAvail);
        String obsUnknown = messageOf(() -> kb.putServiceQos(new Observation.ServiceQos("nope", 0.2, 0.5, 10, Instant.now())));
        assertTrue(obsUnknown.contains("serviceQos.service"), obsUnknown);
        String longName = messageOf(() -> kb.addConcreteService(service("x".repeat(101), FLIGHT)));
        assertTrue(longName.contains("concreteService.name"), longName);
        String relative = messageOf(() -> kb.addConcreteService(new ConcreteService("rel", FLIGHT, URI.create("stubs/rel"),
                new ProviderSla(1, 1, 0, 1), null)));
        assertTrue(relative.contains("concreteService.endpoint"), relative);
        String visits = messageOf(() -> kb.putVisits(new Observation.TaskVisits("gold", FLIGHT, -1, 1, Instant.now())));
        assertTrue(visits.contains("visits.visits"), visits);
    }

    @Test
    void databaseCheckConstraintsRefuseRowsThatBypassTheApi() throws SQLException {
        seedBasics();
        try (Connection c = rawConnection(spec); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            assertRefused(s, "INSERT INTO service_class (name, max_response_time, min_availability, max_cost, price) "
                    + "VALUES ('bad', 1, 1.5, 1, 1)", "service_class.min_availability");
            assertRefused(s, "INSERT INTO service_class (name, max_response_time, min_availability, max_cost, price) "
                    + "VALUES ('bad', -1, 0.5, 1, 1)", "service_class.max_response_time");
            assertRefused(s, "INSERT INTO concrete_service (name, composite, task, endpoint, response_time, availability, cost, max_rate) "
                    + "VALUES ('bad', 'TripPlanner', 'flight.findFlight', 'http://x', 0.1, 0, 1, 1)", "concrete_service.availability");
            assertRefused(s, "INSERT INTO concrete_service (name, composite, task, endpoint, response_time, availability, cost, max_rate) "
                    + "VALUES ('bad', 'TripPlanner', 'flight.findFlight', 'http://x', 0.1, 0.9, -2, 1)", "concrete_service.cost");
            assertRefused(s, "UPDATE concrete_service SET max_rate = -5 WHERE name = 'flight-a'", "concrete_service.max_rate");
            assertRefused(s, "INSERT INTO app_user (name, class_name, rate, password_hash) VALUES ('eve', 'gold', -1, '" + HASH + "')",
                    "app_user.rate");
            assertRefused(s, "INSERT INTO app_user (name, class_name, rate, password_hash) VALUES ('eve', 'gold', 1, 'plain')",
                    "app_user.password_hash");
            // a user in an unknown class: the foreign key refuses it
            SQLException fk = assertThrows(SQLException.class, () -> s.executeUpdate(
                    "INSERT INTO app_user (name, class_name, rate, password_hash) VALUES ('eve', 'platinum', 1, '" + HASH + "')"));
            assertEquals(KnowledgeBaseException.Kind.INVALID, SqlErrors.translate("raw insert", "test", fk).kind());
            // a duplicate name: the primary key refuses it
            SQLException dup = assertThrows(SQLException.class, () -> s.executeUpdate(
                    "INSERT INTO service_class (name, max_response_time, min_availability, max_cost, price) VALUES ('gold', 1, 0.5, 1, 1)"));
            assertEquals(KnowledgeBaseException.Kind.CONFLICT, SqlErrors.translate("raw insert", "test", dup).kind());
        }
        assertEquals(0.98, kb.concreteService("flight-a").orElseThrow().sla().availability());
        assertEquals(40, kb.concreteService("flight-a").orElseThrow().sla().maxRate());
        assertEquals(2, kb.serviceClasses().size());
    }

    private static void assertRefused(Statement s, String sql, String field) {
        SQLException e = assertThrows(SQLException.class, () -> s.executeUpdate(sql), sql);
        String constraint = "ck_" + field.replace('.', '_');
        assertTrue(e.getMessage().toLowerCase(Locale.ROOT).contains(constraint), e.getMessage());
        KnowledgeBaseException k = SqlErrors.translate("raw write", "test", e);
        assertEquals(KnowledgeBaseException.Kind.INVALID, k.kind());
        assertTrue(k.getMessage().contains(field), k.getMessage());
    }

    // ------------------------------------------------------------------ composite services

    @Test
    void compositeServiceStructureRoundTrips() {
        TaskRef weather = new TaskRef(TP, "weather.getForecast");
        Activity root = new Activity.Sequence("/process/sequence", List.of(
                new Activity.NoOp("/process/sequence/receive", "receive"),
                new Activity.Flow("/process/sequence/flow", List.of(
                        new Activity.Invoke("/process/sequence/flow/invoke[1]", FLIGHT),
                        new Activity.Invoke("/process/sequence/flow/invoke[2]", HOTEL))),
                new Activity.Choice("/process/sequence/if", Activity.Choice.Kind.IF, List.of(
                        new Activity.Loop("/process/sequence/if/while", Activity.Loop.Kind.WHILE,
                                new Activity.Invoke("/process/sequence/if/while/invoke", weather)),
                        new Activity.NoOp("/process/sequence/if/else", "empty"))),
                new Activity.ParallelForEach("/process/sequence/forEach", new Activity.Invoke("/process/sequence/forEach/invoke", HOTEL)),
                new Activity.NoOp("/process/sequence/reply", "reply")));
        CompositeService cs = new CompositeService(TP, "urn:moses:trip-planner", List.of(FLIGHT, HOTEL, weather), root);
        kb.putCompositeService(cs);
        assertEquals(cs, kb.compositeService(TP).orElseThrow());
        assertEquals(List.of(FLIGHT, HOTEL, weather), kb.tasks(TP));
        assertEquals(List.of(cs), kb.compositeServices());

        CompositeService smaller = new CompositeService(TP, null, List.of(FLIGHT), new Activity.Invoke("/i", FLIGHT));
        kb.putCompositeService(smaller);
        assertEquals(smaller, kb.compositeService(TP).orElseThrow());

        String wrongComposite = messageOf(() -> kb.putCompositeService(new CompositeService("Other", null, List.of(FLIGHT),
                new Activity.Invoke("/i", FLIGHT))));
        assertTrue(wrongComposite.contains("compositeService.tasks[0].composite"), wrongComposite);
        assertTrue(kb.removeCompositeService(TP));
        assertTrue(kb.compositeService(TP).isEmpty());
        assertTrue(kb.tasks().contains(FLIGHT), "tasks outlive the structure");
    }

    @Test
    void aTaskIsNotStatefulUntilSaidSoAndTheFlagIsIndependentOfIdempotent() {
        seedBasics();
        assertTrue(kb.statefulTasks().isEmpty(), "the default: no task is stateful");
        TaskRef reserve = new TaskRef(TP, "room.reserve"), confirm = new TaskRef(TP, "room.confirm");
        kb.putTaskStateful(reserve, true);
        kb.putTaskStateful(confirm, true);
        kb.putTaskIdempotent(confirm, true);
        assertEquals(java.util.Set.of(reserve, confirm), kb.statefulTasks());
        assertEquals(java.util.Set.of(confirm), kb.idempotentTasks());
        kb.putTaskStateful(confirm, false);
        assertEquals(java.util.Set.of(reserve), kb.statefulTasks());
        assertEquals(java.util.Set.of(confirm), kb.idempotentTasks(), "one flag does not change the other");
        kb.putConcreteService(new ConcreteService("r1", reserve, URI.create("http://127.0.0.1:1/r1"), new ProviderSla(0.1, 0.99, 1, 10), null));
        assertEquals(java.util.Set.of(reserve), kb.statefulTasks(), "registering a service keeps its task's flag");
    }

    @Test
    void aTaskAnswersInItsReplyUntilItsCallbackIsSaid() {
        seedBasics();
        assertTrue(kb.asynchronousTasks().isEmpty(), "the default: every task answers in its reply");
        TaskRef quote = new TaskRef(TP, "supplier.requestQuote");
        io.moses.model.Callback ready = new io.moses.model.Callback("quoteReady", java.time.Duration.ofMillis(2500));
        kb.putTaskCallback(quote, ready);
        kb.putTaskStateful(quote, true);
        assertEquals(java.util.Map.of(quote, ready), kb.asynchronousTasks());
        kb.putTaskCallback(quote, null);
        assertTrue(kb.asynchronousTasks().isEmpty());
        assertEquals(java.util.Set.of(quote), kb.statefulTasks(), "one trait does not change another");
    }

    @Test
    void aTaskIsNotIdempotentUntilSaidSoAndTheFlagSurvivesItsServices() {
        seedBasics();
        assertTrue(kb.idempotentTasks().isEmpty(), "the default: no task is idempotent");
        TaskRef weather = new TaskRef(TP, "weather.getForecast"); // not registered yet: registered now
        kb.putTaskIdempotent(weather, true);
        kb.putTaskIdempotent(FLIGHT, true);
        assertEquals(java.util.Set.of(weather, FLIGHT), kb.idempotentTasks());
        assertTrue(kb.tasks().contains(weather));
        kb.putTaskIdempotent(FLIGHT, false);
        assertEquals(java.util.Set.of(weather), kb.idempotentTasks());
        kb.putConcreteService(new ConcreteService("w1", weather, URI.create("http://127.0.0.1:1/w1"), new ProviderSla(0.1, 0.99, 1, 10), null));
        assertEquals(java.util.Set.of(weather), kb.idempotentTasks(), "registering a service keeps its task's flag");
        KnowledgeBaseException bad = assertThrows(KnowledgeBaseException.class, () -> kb.putTaskIdempotent(new TaskRef(TP, ""), true));
        assertEquals(KnowledgeBaseException.Kind.INVALID, bad.kind());
    }

    // ------------------------------------------------------------------ plans

    @Test
    void publishedPlansGetNextVersionAndReloadWhole() {
        seedBasics();
        assertEquals(0, kb.latestPlanVersion());
        assertTrue(kb.latestPlan().isEmpty());

        Plan first = kb.publish(draft("first"));
        assertEquals(1, first.version());
        assertEquals(1, kb.latestPlanVersion());
        Plan loaded = kb.latestPlan().orElseThrow();
        assertEquals(first, loaded);
        assertEquals(draft("first").bindings(), loaded.bindings());
        assertEquals(List.of(new Plan.Share(Implementation.parse("par(flight-a,flight-b)"), 0.25),
                new Plan.Share(Implementation.single("flight-a"), 0.75)), loaded.shares("gold", FLIGHT), "share order is kept");
        assertEquals(Instant.parse("2026-01-02T03:04:05.678Z"), loaded.created());

        Plan second = kb.publish(new Plan(0, null, Map.of(key("gold", FLIGHT), List.of(new Plan.Share(Implementation.single("flight-b"), 1))),
                Map.of(), -3.5, "ojAlgo", 0, List.of(), null));
        assertEquals(2, second.version());
        assertEquals(second, kb.plan(2).orElseThrow());
        assertEquals(List.of(2L, 1L), kb.planHistory(5).stream().map(Plan::version).toList());
        assertEquals(List.of(2L), kb.planHistory(1).stream().map(Plan::version).toList());
        assertEquals(first, kb.plan(1).orElseThrow());
        assertTrue(kb.plan(3).isEmpty());

        // a plan of several composites predicts each (class, composite)
        Map<String, Plan.Prediction> perComposite = Map.of("gold/TripPlanner", new Plan.Prediction(1.5, 0.97, 2.5),
                "gold/Other", new Plan.Prediction(0.5, 0.99, 1));
        Plan third = kb.publish(new Plan(0, null, Map.of(key("gold", FLIGHT), List.of(new Plan.Share(Implementation.single("flight-b"), 1))),
                perComposite, 1, "ojAlgo", 0, List.of(), null));
        assertEquals(perComposite, kb.plan(third.version()).orElseThrow().predictions());
    }

    @Test
    void invalidPlansAreRefusedWholeNamingTheBinding() {
        seedBasics();
        Plan.Share half = new Plan.Share(Implementation.single("flight-a"), 0.5);
        String sum = messageOf(() -> kb.publish(new Plan(0, null, Map.of(key("gold", FLIGHT), List.of(half)), Map.of(), 0, "t", 0,
                List.of(), null)));
        assertTrue(sum.contains("plan.bindings[gold, TripPlanner/flight.findFlight]") && sum.contains("sum"), sum);
        String member = messageOf(() -> kb.publish(new Plan(0, null, Map.of(key("gold", FLIGHT),
                List.of(new Plan.Share(Implementation.parse("alt(flight-a,ghost)"), 1))), Map.of(), 0, "t", 0, List.of(), null)));
        assertTrue(member.contains("ghost"), member);
        String wrongTask = messageOf(() -> kb.publish(new Plan(0, null, Map.of(key("gold", FLIGHT),
                List.of(new Plan.Share(Implementation.single("hotel-a"), 1))), Map.of(), 0, "t", 0, List.of(), null)));
        assertTrue(wrongTask.contains("hotel-a") && wrongTask.contains("implements"), wrongTask);
        String cls = messageOf(() -> kb.publish(new Plan(0, null, Map.of(key("platinum", FLIGHT),
                List.of(new Plan.Share(Implementation.single("flight-a"), 1))), Map.of(), 0, "t", 0, List.of(), null)));
        assertTrue(cls.contains("serviceClass") && cls.contains("platinum"), cls);
        String predicted = messageOf(() -> kb.publish(new Plan(0, null, Map.of(), Map.of("platinum/TripPlanner",
                new Plan.Prediction(1, 0.9, 1)), 0, "t", 0, List.of(), null)));
        assertTrue(predicted.contains("plan.predictions") && predicted.contains("platinum"), predicted);
        String nan = messageOf(() -> kb.publish(new Plan(0, null, Map.of(), Map.of(), Double.NaN, "t", 0, List.of(), null)));
        assertTrue(nan.contains("plan.objective"), nan);
        assertEquals(0, kb.latestPlanVersion(), "no version was used up");
        assertEquals(1, kb.publish(draft("ok")).version());
    }

    @Test
    void aSecondKnowledgeBaseOnTheSameDatabaseSeesNewPlans() {
        seedBasics();
        try (KnowledgeBase replica = Mdal.open(spec, credentials())) {
            assertEquals(0, replica.latestPlanVersion());
            Plan p = kb.publish(draft("from the optimizer"));
            assertEquals(p.version(), replica.latestPlanVersion());
            assertEquals(p, replica.latestPlan().orElseThrow());
        }
    }

    @Test
    void concurrentPublishersGetUniqueGapFreeVersions() throws Exception {
        seedBasics();
        int threads = 8, each = 8;
        List<Plan> published = runConcurrently(threads, t -> {
            List<Plan> mine = new ArrayList<>();
            for (int i = 0; i < each; i++) mine.add(kb.publish(draft("t" + t + "-" + i)));
            return mine;
        });
        Set<Long> versions = new HashSet<>();
        for (Plan p : published) assertTrue(versions.add(p.version()), "duplicate version " + p.version());
        assertEquals(threads * each, versions.size());
        assertEquals(1L, Collections.min(versions));
        assertEquals((long) threads * each, Collections.max(versions), "gap-free");
        assertEquals(threads * each, kb.latestPlanVersion());
        for (Plan p : published) assertEquals(p.reason(), kb.plan(p.version()).orElseThrow().reason(), "version " + p.version());
    }

    @Test
    void concurrentUpdatesOfOneRecordLoseNothing() throws Exception {
        seedBasics();
        kb.addUser(new User("alice", "gold", 0, HASH));
        int threads = 8, each = 15;
        runConcurrently(threads, t -> {
            for (int i = 0; i < each; i++) {
                kb.updateConcreteService("flight-a", s -> new ConcreteService(s.name(), s.task(), s.endpoint(),
                        new ProviderSla(s.sla().responseTime(), s.sla().availability(), s.sla().cost() + 1, s.sla().maxRate()), s.mapping()));
                kb.updateUser("alice", u -> new User(u.name(), u.serviceClass(), u.rate() + 0.5, u.passwordHash()));
            }
            return List.of();
        });
        assertEquals(1.5 + threads * each, kb.concreteService("flight-a").orElseThrow().sla().cost(), 1e-9);
        assertEquals(0.5 * threads * each, kb.user("alice").orElseThrow().rate(), 1e-9);
    }

    @Test
    void concurrentWritersOfTheSameNewRecordsConflictCleanly() throws Exception {
        kb.addServiceClass(gold());
        // every thread tries to add the same names and to put the same observations
        List<String> outcomes = runConcurrently(8, t -> {
            List<String> out = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                try {
                    kb.addConcreteService(service("shared-" + i, new TaskRef(TP, "task" + i + ".op")));
                    out.add("added");
                } catch (KnowledgeBaseException e) {
                    assertEquals(KnowledgeBaseException.Kind.CONFLICT, e.kind());
                    out.add("conflict");
                }
            }
            return out;
        });
        assertEquals(5, outcomes.stream().filter("added"::equals).count(), "each name added exactly once");
        assertEquals(35, outcomes.stream().filter("conflict"::equals).count());
        runConcurrently(8, t -> {
            for (int i = 0; i < 5; i++) kb.putServiceQos(new Observation.ServiceQos("shared-" + i, 0.1 * t + 0.01, 0.9, t, Instant.now()));
            return List.of();
        });
        assertEquals(5, kb.serviceQos().size());
    }

    // ------------------------------------------------------------------ observations and events

    @Test
    void observationsKeepTheLatestValuePerKey() {
        seedBasics();
        Instant t0 = Instant.parse("2026-03-01T10:00:00Z");
        kb.putServiceQos(new Observation.ServiceQos("flight-a", 0.25, 0.97, 100, t0));
        kb.putServiceQos(new Observation.ServiceQos("flight-a", 0.31, 0.95, 250, t0.plusSeconds(30)));
        kb.putServiceQos(new Observation.ServiceQos("flight-b", 0.11, 1.0, 10, t0));
        assertEquals(new Observation.ServiceQos("flight-a", 0.31, 0.95, 250, t0.plusSeconds(30)), kb.serviceQos("flight-a").orElseThrow());
        assertEquals(2, kb.serviceQos().size());

        kb.putVisits(new Observation.TaskVisits("gold", FLIGHT, 1.0, 10, t0));
        kb.putVisits(new Observation.TaskVisits("gold", FLIGHT, 1.5, 40, t0.plusSeconds(5)));
        kb.putVisits(new Observation.TaskVisits("silver", HOTEL, 0.5, 3, t0));
        assertEquals(List.of(new Observation.TaskVisits("gold", FLIGHT, 1.5, 40, t0.plusSeconds(5)),
                new Observation.TaskVisits("silver", HOTEL, 0.5, 3, t0)), kb.visits());
        assertTrue(messageOf(() -> kb.putVisits(new Observation.TaskVisits("platinum", FLIGHT, 1, 1, t0))).contains("visits.serviceClass"));

        assertTrue(kb.removeConcreteService("flight-b"));
        assertTrue(kb.serviceQos("flight-b").isEmpty(), "observations go with their service");
    }

    @Test
    void aMonitorPeriodsObservationsAreWrittenTogetherLeavingOutServicesNoLongerRegistered() {
        seedBasics();
        Instant t0 = Instant.parse("2026-03-01T10:00:00Z");
        kb.putServiceQos(new Observation.ServiceQos("flight-a", 0.25, 0.97, 100, t0));
        kb.putServiceQos(List.of(new Observation.ServiceQos("flight-a", 0.31, 0.95, 250, t0.plusSeconds(1)),
                new Observation.ServiceQos("gone", 0.2, 0.9, 5, t0.plusSeconds(1)),
                new Observation.ServiceQos("flight-b", 0.11, 1.0, 10, t0.plusSeconds(1))));
        assertEquals(List.of(new Observation.ServiceQos("flight-a", 0.31, 0.95, 250, t0.plusSeconds(1)),
                new Observation.ServiceQos("flight-b", 0.11, 1.0, 10, t0.plusSeconds(1))), kb.serviceQos());
        assertTrue(messageOf(() -> kb.putServiceQos(List.of(new Observation.ServiceQos("flight-a", 0.4, 0.9, 1, t0.plusSeconds(2)),
                new Observation.ServiceQos("flight-b", -1, 0.9, 1, t0.plusSeconds(2))))).contains("serviceQos.responseTime"));
        assertEquals(0.31, kb.serviceQos("flight-a").orElseThrow().responseTime(), 1e-12, "an invalid one writes none");
        assertTrue(messageOf(() -> kb.putServiceQos(new Observation.ServiceQos("gone", 0.2, 0.9, 5, t0))).contains("unknown concrete service"),
                "alone, an unknown service is refused");
    }

    @Test
    void aClassMayNameItsOwnOverRatePolicyAndAUserAboveItsRateIsAnSlaEvent() {
        kb.addServiceClass(gold());
        kb.addServiceClass(new ServiceClass("silver", 3, 0.95, 6, 7));
        assertEquals(java.util.Map.of(), kb.classOverRates(), "none named: every class follows the broker");
        long v = kb.subscriptionsVersion();
        kb.putClassOverRate("silver", io.moses.model.OverRate.BEST_EFFORT);
        kb.putClassOverRate("gold", io.moses.model.OverRate.REJECT);
        assertTrue(kb.subscriptionsVersion() > v, "every replica reloads it");
        assertEquals(java.util.Map.of("gold", io.moses.model.OverRate.REJECT, "silver", io.moses.model.OverRate.BEST_EFFORT), kb.classOverRates());
        kb.putClassOverRate("gold", null);
        assertEquals(java.util.Map.of("silver", io.moses.model.OverRate.BEST_EFFORT), kb.classOverRates());
        kb.putServiceClass(new ServiceClass("silver", 4, 0.95, 6, 7));
        assertEquals(java.util.Map.of("silver", io.moses.model.OverRate.BEST_EFFORT), kb.classOverRates(), "a changed SLA keeps the policy");
        KnowledgeBaseException e = assertThrows(KnowledgeBaseException.class, () -> kb.putClassOverRate("platinum", io.moses.model.OverRate.OFF));
        assertEquals(KnowledgeBaseException.Kind.NOT_FOUND, e.kind());

        Instant t0 = Instant.parse("2026-03-01T10:00:00Z");
        kb.recordSlaEvent(new SlaEvent(t0, SlaEvent.Kind.OVER_RATE, "silver", "carl", "above 0.5 req/s for 5.0 s"));
        assertEquals(List.of(new SlaEvent(t0, SlaEvent.Kind.OVER_RATE, "silver", "carl", "above 0.5 req/s for 5.0 s")), kb.slaEvents(t0, 10));
    }

    @Test
    void slaEventsAreKeptInTimeOrder() {
        Instant t0 = Instant.parse("2026-03-01T10:00:00Z");
        kb.recordSlaEvent(new SlaEvent(t0.plusSeconds(2), SlaEvent.Kind.REJECTION, "gold", "bob", "rate 5 refused; counter-offer 3.2"));
        kb.recordSlaEvent(new SlaEvent(t0, SlaEvent.Kind.VIOLATION, "gold", null, "R 1.9 s > 1.5 s"));
        kb.recordSlaEvent(new SlaEvent(t0.plusSeconds(4), SlaEvent.Kind.AT_RISK, "silver", null, "x".repeat(3000)));
        List<SlaEvent> all = kb.slaEvents(t0, 10);
        assertEquals(List.of(SlaEvent.Kind.VIOLATION, SlaEvent.Kind.REJECTION, SlaEvent.Kind.AT_RISK), all.stream().map(SlaEvent::kind).toList());
        assertEquals(new SlaEvent(t0, SlaEvent.Kind.VIOLATION, "gold", null, "R 1.9 s > 1.5 s"), all.get(0));
        assertEquals(2000, all.get(2).detail().length(), "long details are truncated, not refused");
        assertEquals(2, kb.slaEvents(t0.plusSeconds(1), 10).size());
        assertEquals(1, kb.slaEvents(t0, 1).size());
    }

    @Test
    void aClosedKnowledgeBaseFailsAsUnavailable() {
        assertTrue(kb.isAvailable());
        kb.close();
        assertFalse(kb.isAvailable());
        assertEquals(KnowledgeBaseException.Kind.UNAVAILABLE, kindOf(kb::latestPlanVersion));
        assertNotEquals("", kb.description());
        kb = null;
    }

    // ------------------------------------------------------------------ helpers

    @FunctionalInterface
    interface PerThread<T> {
        List<T> run(int thread) throws Exception;
    }

    /** Runs {@code work} on {@code threads} threads released together; rethrows the first failure. */
    static <T> List<T> runConcurrently(int threads, PerThread<T> work) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<List<T>>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                Callable<List<T>> c = () -> {
                    go.await();
                    return work.run(id);
                };
                futures.add(pool.submit(c));
            }
            go.countDown();
            List<T> all = new ArrayList<>();
            for (Future<List<T>> f : futures) all.addAll(f.get(60, TimeUnit.SECONDS));
            return all;
        } finally {
            pool.shutdownNow();
        }
    }
}
