package io.moses.mdal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.model.ConcreteService;
import io.moses.model.Implementation;
import io.moses.model.Plan;
import io.moses.model.TaskRef;
import io.moses.model.User;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The trip planner's seed file, and the loader's refusals. */
class SeedTest {
    static final Path TRIP_PLANNER_SEED = Path.of("..", "bpel-processes", "trip-planner", "seed.yaml");
    static final String STUBS = "http://127.0.0.1:18089";
    static final List<String> TASKS = List.of("flight.findFlight", "hotel.findHotel", "weather.getForecast", "car.rentCar",
            "attraction.bookAttraction", "payment.charge");

    @Test
    void theTripPlannerSeedDescribesClassesUsersAndTwoProvidersPerTask() {
        Seed seed = Seed.load(TRIP_PLANNER_SEED, Map.of("STUBS", STUBS));
        assertEquals(List.of("gold", "silver", "bronze"), seed.classes().stream().map(c -> c.name()).toList());
        Map<String, Long> usersPerClass = seed.users().stream().collect(Collectors.groupingBy(User::serviceClass, Collectors.counting()));
        assertEquals(Set.of("gold", "silver", "bronze"), usersPerClass.keySet());
        usersPerClass.values().forEach(n -> assertTrue(n >= 2));
        User alice = seed.users().stream().filter(u -> u.name().equals("alice")).findFirst().orElseThrow();
        assertTrue(PasswordHasher.verify("alice-demo".toCharArray(), alice.passwordHash()), "plain seed passwords are hashed");

        assertEquals(12, seed.services().size());
        for (String task : TASKS) {
            String x = task.substring(0, task.indexOf('.'));
            ConcreteService a = byName(seed, x + "-a"), b = byName(seed, x + "-b");
            assertEquals(new TaskRef("TripPlanner", task), a.task());
            assertEquals(new TaskRef("TripPlanner", task), b.task());
            assertEquals(STUBS + "/stubs/" + x + "-a", a.endpoint().toString());
            assertEquals(STUBS + "/stubs/" + x + "-b", b.endpoint().toString());
            assertTrue(a.mapping().isIdentity());
            assertFalse(b.mapping().isIdentity());
            String op = task.substring(task.indexOf('.') + 1);
            assertEquals("{urn:moses:task:" + x + "}result", b.mapping().replyNames().get("{urn:moses:provider-b:" + x + "}outcome"));
            assertTrue(b.mapping().requestNames().get("{urn:moses:task:" + x + "}" + op + "Request").startsWith("{urn:moses:provider-b:" + x + "}"));
        }
        assertEquals("searchFlights", byName(seed, "flight-b").mapping().operation());

        Plan plan = seed.plan().orElseThrow();
        assertEquals(18, plan.bindings().size(), "every class and task");
        assertEquals(List.of(new Plan.Share(Implementation.parse("par(flight-a,flight-b)"), 1.0)),
                plan.shares("gold", new TaskRef("TripPlanner", "flight.findFlight")));
    }

    @Test
    void theTripPlannersSearchesAreIdempotentItsBookingsAndPaymentAreNotAndItsPlanHasNoParForThem() {
        Seed seed = Seed.load(TRIP_PLANNER_SEED, Map.of("STUBS", STUBS));
        Set<String> idempotent = seed.idempotent().entrySet().stream().filter(Map.Entry::getValue).map(e -> e.getKey().name())
                .collect(Collectors.toSet());
        assertEquals(Set.of("flight.findFlight", "hotel.findHotel", "weather.getForecast"), idempotent);
        assertEquals(new TreeSet<>(TASKS), seed.idempotent().keySet().stream().map(TaskRef::name).collect(Collectors.toCollection(TreeSet::new)));
        seed.plan().orElseThrow().bindings().forEach((k, shares) -> shares.forEach(sh -> assertTrue(
                idempotent.contains(k.task().name()) || sh.implementation().pattern() != Implementation.Pattern.PARALLEL, k + ": " + sh)));
        try (KnowledgeBase kb = Mdal.open("mem:", Credentials.NONE)) {
            seed.applyTo(kb);
            assertEquals(idempotent, kb.idempotentTasks().stream().map(TaskRef::name).collect(Collectors.toSet()));
        }
    }

    @Test
    void aSeedPlanWithParForATaskThatIsNotIdempotentIsRefusedNamingTheField() {
        String seed = """
                composite: Shop
                tasks:
                  - {task: stock.check, idempotent: true}
                plan:
                  bindings:
                    - {class: gold, task: stock.check, shares: [{implementation: "par(s1,s2)", fraction: 1.0}]}
                    - {class: gold, task: card.charge, shares: [{implementation: "par(c1,c2)", fraction: 1.0}]}
                """;
        KnowledgeBaseException e = assertThrows(KnowledgeBaseException.class, () -> Seed.parse(seed, "shop.yaml", Map.of()));
        assertEquals("shop.yaml: plan.bindings[1].shares[0].implementation: par(c1,c2) calls every member at once, but task card.charge"
                + " is not idempotent (declare it under tasks: with idempotent: true if a second call is safe)", e.getMessage());
        KnowledgeBaseException notBoolean = assertThrows(KnowledgeBaseException.class,
                () -> Seed.parse("composite: Shop\ntasks:\n  - {task: card.charge, idempotent: maybe}\n", "shop.yaml", Map.of()));
        assertEquals("shop.yaml: tasks[0].idempotent must be true or false", notBoolean.getMessage());
    }

    @Test
    void statefulTasksAreReadAndAPlanThatSpreadsOneOverProvidersIsRefused() {
        String seed = """
                composite: Hotel
                tasks:
                  - {task: room.reserve, stateful: true}
                  - {task: room.confirm, stateful: true, idempotent: true}
                  - {task: room.search, idempotent: true}
                plan:
                  bindings:
                    - {class: gold, task: room.reserve, shares: [{implementation: "a-reserve", fraction: 0.5}, {implementation: "b-reserve", fraction: 0.5}]}
                """;
        Seed parsed = Seed.parse(seed, "hotel.yaml", Map.of());
        assertEquals(Map.of(new TaskRef("Hotel", "room.reserve"), true, new TaskRef("Hotel", "room.confirm"), true), parsed.stateful());
        assertEquals(Map.of(new TaskRef("Hotel", "room.confirm"), true, new TaskRef("Hotel", "room.search"), true), parsed.idempotent());
        KnowledgeBaseException spread = assertThrows(KnowledgeBaseException.class, () -> Seed.parse(
                seed.replace("\"a-reserve\", fraction: 0.5}, {implementation: \"b-reserve\", fraction: 0.5}", "\"alt(a-reserve,b-reserve)\", fraction: 1.0}"),
                "hotel.yaml", Map.of()));
        assertEquals("hotel.yaml: plan.bindings[0].shares[0].implementation: alt(a-reserve,b-reserve) calls more than one provider, but task"
                + " room.reserve is stateful: its conversation stays with one provider (give single services)", spread.getMessage());
        KnowledgeBaseException silent = assertThrows(KnowledgeBaseException.class,
                () -> Seed.parse("composite: Hotel\ntasks:\n  - {task: room.reserve}\n", "hotel.yaml", Map.of()));
        assertEquals("hotel.yaml: tasks[0]: says nothing of task Hotel/room.reserve (give idempotent:, stateful:, callback: or more)", silent.getMessage());
        KnowledgeBaseException twice = assertThrows(KnowledgeBaseException.class, () -> Seed.parse(
                "composite: Hotel\ntasks:\n  - {task: room.reserve, stateful: true}\n  - {task: room.reserve, idempotent: false}\n", "hotel.yaml", Map.of()));
        assertEquals("hotel.yaml: tasks[1].task: a second entry for task Hotel/room.reserve", twice.getMessage());
        KnowledgeBaseException notBoolean = assertThrows(KnowledgeBaseException.class,
                () -> Seed.parse("composite: Hotel\ntasks:\n  - {task: room.reserve, stateful: yes please}\n", "hotel.yaml", Map.of()));
        assertEquals("hotel.yaml: tasks[0].stateful must be true or false", notBoolean.getMessage());
    }

    @Test
    void asynchronousTasksAreReadWithTheirCallbackAndTimeout() {
        String seed = """
                composite: Quote
                tasks:
                  - {task: supplier.requestQuote, callback: quoteReady, callbackTimeout: 2.5}
                  - {task: other.ask, callback: answer}
                  - {task: room.reserve, stateful: true}
                """;
        Seed parsed = Seed.parse(seed, "quote.yaml", Map.of());
        assertEquals(Map.of(new TaskRef("Quote", "supplier.requestQuote"), new io.moses.model.Callback("quoteReady", java.time.Duration.ofMillis(2500)),
                new TaskRef("Quote", "other.ask"), new io.moses.model.Callback("answer", io.moses.model.Callback.DEFAULT_TIMEOUT)), parsed.callbacks());
        KnowledgeBaseException alone = assertThrows(KnowledgeBaseException.class,
                () -> Seed.parse("composite: Quote\ntasks:\n  - {task: s.r, stateful: true, callbackTimeout: 3}\n", "quote.yaml", Map.of()));
        assertEquals("quote.yaml: tasks[0].callbackTimeout: without a callback:", alone.getMessage());
        KnowledgeBaseException zero = assertThrows(KnowledgeBaseException.class,
                () -> Seed.parse("composite: Quote\ntasks:\n  - {task: s.r, callback: done, callbackTimeout: 0}\n", "quote.yaml", Map.of()));
        assertEquals("quote.yaml: tasks[0].callbackTimeout must be in (0, 604800] seconds, was 0.0", zero.getMessage());
    }

    @Test
    void aSeedPlanWithHedgeIsReadWithItsDelayAndRefusedForATaskThatIsNotIdempotent() {
        String ok = """
                composite: Shop
                tasks:
                  - {task: stock.check, idempotent: true}
                plan:
                  bindings:
                    - {class: gold, task: stock.check, shares: [{implementation: "hedge(s1,s2;d=0.05)", fraction: 1.0}]}
                """;
        Plan plan = Seed.parse(ok, "shop.yaml", Map.of()).plan().orElseThrow();
        assertEquals(List.of(new Plan.Share(Implementation.hedged("s1", "s2", 0.05), 1.0)), plan.bindings().values().iterator().next());
        KnowledgeBaseException e = assertThrows(KnowledgeBaseException.class, () -> Seed.parse(
                ok.replace("stock.check, shares", "card.charge, shares"), "shop.yaml", Map.of()));
        assertEquals("shop.yaml: plan.bindings[0].shares[0].implementation: hedge(s1,s2;d=0.05) calls its second member while the first"
                + " may still answer, but task card.charge is not idempotent (declare it under tasks: with idempotent: true if a second call is safe)",
                e.getMessage());
        KnowledgeBaseException noDelay = assertThrows(KnowledgeBaseException.class, () -> Seed.parse(
                ok.replace(";d=0.05", ""), "shop.yaml", Map.of()));
        assertTrue(noDelay.getMessage().contains("hedge(a,b;d=0.25)"), noDelay.getMessage());
    }

    @Test
    void applyingTheSeedFillsTheKnowledgeBaseAndKeepsALaterPlan() {
        Seed seed = Seed.load(TRIP_PLANNER_SEED, Map.of("STUBS", STUBS));
        try (KnowledgeBase kb = Mdal.open("mem:", Credentials.NONE)) {
            Plan published = seed.applyTo(kb).orElseThrow();
            assertEquals(1, published.version());
            assertEquals("seed", published.solver());
            assertEquals(3, kb.serviceClasses().size());
            assertEquals(7, kb.users().size());
            assertTrue(kb.user("operator").orElseThrow().isOperator());
            assertEquals(12, kb.concreteServices().size());
            assertEquals(new TreeSet<>(TASKS), kb.tasks("TripPlanner").stream().map(TaskRef::name).collect(Collectors.toCollection(TreeSet::new)));
            assertEquals(byName(seed, "flight-b"), kb.concreteService("flight-b").orElseThrow());
            assertEquals(published, kb.latestPlan().orElseThrow());

            // a restart with the same seed: nothing duplicated, the plan in force is kept
            assertTrue(seed.applyTo(kb).isEmpty());
            assertEquals(1, kb.latestPlanVersion());
            assertEquals(12, kb.concreteServices().size());
        }
    }

    private static ConcreteService byName(Seed seed, String name) {
        return seed.services().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow(() -> new AssertionError(name));
    }

    private static String refusal(String yaml, Map<String, String> vars) {
        KnowledgeBaseException e = assertThrows(KnowledgeBaseException.class, () -> Seed.parse(yaml, "test.yaml", vars));
        assertEquals(KnowledgeBaseException.Kind.INVALID, e.kind());
        assertTrue(e.getMessage().startsWith("test.yaml: "), e.getMessage());
        return e.getMessage();
    }

    static final String CLASS = "classes: [{name: gold, maxResponseTime: 1, minAvailability: 0.9, maxCost: 1, price: 1}]\n";
    static final String SERVICE = "services:\n  - {name: s1, composite: C, task: p.op, endpoint: 'http://h/s1', responseTime: 0.1, "
            + "availability: AVAIL, cost: 1, maxRate: 10}\n";

    @Test
    void badSeedsAreRefusedNamingTheField() {
        assertEquals("test.yaml: services[0].availability must be in (0, 1], was 1.5",
                refusal(SERVICE.replace("AVAIL", "1.5"), Map.of()));
        assertTrue(refusal(SERVICE.replace("AVAIL", "high"), Map.of()).contains("services[0].availability must be a number"));
        assertTrue(refusal(SERVICE.replace("AVAIL", "0.9").replace("cost: 1", "cost: -1"), Map.of()).contains("services[0].cost"));
        assertTrue(refusal(CLASS.replace("minAvailability: 0.9", "minAvailability: 1"), Map.of())
                .contains("classes[0].minAvailability must be in (0, 1)"));
        assertTrue(refusal(CLASS + "users: [{name: u, class: platinum, rate: 1, password: p}]", Map.of()).contains("users[0].class"));
        assertTrue(refusal(CLASS + "users: [{name: u, class: gold, rate: -1, password: p}]", Map.of()).contains("users[0].rate"));
        assertTrue(refusal(CLASS + "users: [{name: u, class: gold, rate: 1, password: p}, {name: u, class: gold, rate: 1, password: q}]",
                Map.of()).contains("users[1].name: duplicate"));
        assertTrue(refusal(CLASS + "users: [{name: u, class: gold, rate: 1}]", Map.of()).contains("exactly one of password"));
        assertTrue(refusal(CLASS + "users: [{name: u, class: gold, rate: 1, passwordEnv: MOSES_SURELY_UNSET_VAR_42}]", Map.of())
                .contains("users[0].passwordEnv"));
        assertTrue(refusal(SERVICE.replace("AVAIL", "0.9").replace("'http://h/s1'", "'${NOPE_UNSET_42}/s1'"), Map.of())
                .contains("services[0].endpoint: unknown variable ${NOPE_UNSET_42}"));
        assertTrue(refusal(SERVICE.replace("AVAIL", "0.9").replace("cost:", "costs:"), Map.of()).contains("services[0].costs: unknown field"));
        assertTrue(refusal(SERVICE.replace("AVAIL", "0.9").replace("p.op", "op"), Map.of()).contains("services[0].task"));
        assertTrue(refusal(CLASS + "users: [{name: u, class: gold, rate: 0, password: p, role: admin}]", Map.of())
                .contains("users[0].role must be user or operator, was 'admin'"));
        assertTrue(refusal("classes: {name: gold}", Map.of()).contains("classes must be a list"));
        assertTrue(refusal("classes: [", Map.of()).contains("not valid YAML"));
    }

    @Test
    void passwordsMayComeFromVariablesAndPlansAreCheckedOnApply() {
        Seed seed = Seed.parse(CLASS + "users: [{name: u, class: gold, rate: 1, passwordEnv: U_PW}]\n"
                        + SERVICE.replace("AVAIL", "0.9").replace("'http://h/s1'", "'${STUBS}/s1'")
                        + "plan: {bindings: [{class: gold, composite: C, task: p.op, shares: [{implementation: s1, fraction: 0.4}]}]}",
                "test.yaml", Map.of("U_PW", "from-var", "STUBS", "http://127.0.0.1:1"));
        assertTrue(PasswordHasher.verify("from-var".toCharArray(), seed.users().get(0).passwordHash()));
        assertEquals("http://127.0.0.1:1/s1", seed.services().get(0).endpoint().toString());
        try (KnowledgeBase kb = Mdal.open("mem:", Credentials.NONE)) {
            KnowledgeBaseException e = assertThrows(KnowledgeBaseException.class, () -> seed.applyTo(kb));
            assertTrue(e.getMessage().contains("plan.bindings[gold, C/p.op]: fractions must sum to 1"), e.getMessage());
        }
    }

    @Test
    void aClassMayNameItsOwnOverRatePolicyAndABadOneIsRefusedNamingTheField() {
        String two = "classes: [{name: gold, maxResponseTime: 1, minAvailability: 0.9, maxCost: 1, price: 2},"
                + " {name: bronze, maxResponseTime: 1, minAvailability: 0.9, maxCost: 1, price: 1, overRate: POLICY}]\n";
        Seed seed = Seed.parse(two.replace("POLICY", "best-effort"), "test.yaml", Map.of());
        assertEquals(Map.of("bronze", io.moses.model.OverRate.BEST_EFFORT), seed.overRates());
        assertEquals("test.yaml: classes[1].overRate must be off, reject or best-effort, was 'maybe'",
                refusal(two.replace("POLICY", "maybe"), Map.of()));
        assertTrue(refusal(two.replace("POLICY", "[reject]"), Map.of()).contains("classes[1].overRate must be a string"));
        try (KnowledgeBase kb = Mdal.open("mem:", Credentials.NONE)) {
            kb.putServiceClass(new io.moses.model.ServiceClass("gold", 1, 0.9, 1, 2));
            kb.putClassOverRate("gold", io.moses.model.OverRate.OFF);
            seed.applyTo(kb);
            assertEquals(Map.of("bronze", io.moses.model.OverRate.BEST_EFFORT), kb.classOverRates(),
                    "the seed states every class's policy: gold, naming none, follows the broker again");
        }
    }

    @Test
    void aUserMayBeAnOperator() {
        Seed seed = Seed.parse(CLASS + "users: [{name: o, class: gold, rate: 0, password: p, role: operator}, "
                + "{name: u, class: gold, rate: 1, password: q}]", "test.yaml", Map.of());
        assertEquals(io.moses.model.Role.OPERATOR, seed.users().get(0).role());
        assertEquals(io.moses.model.Role.USER, seed.users().get(1).role());
    }

    @Test
    void aMissingFileIsAClearError(@org.junit.jupiter.api.io.TempDir Path dir) {
        KnowledgeBaseException e = assertThrows(KnowledgeBaseException.class, () -> Seed.load(dir.resolve("nope.yaml")));
        assertTrue(e.getMessage().contains("nope.yaml") && e.getMessage().contains("cannot read"), e.getMessage());
        assertTrue(Files.notExists(dir.resolve("nope.yaml")));
    }
}
