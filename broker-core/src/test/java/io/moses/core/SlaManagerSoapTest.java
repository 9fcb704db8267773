package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.mdal.KnowledgeBase;
import io.moses.model.User;
import io.moses.sla.wsdl.sla.Cancel;
import io.moses.sla.wsdl.sla.ChangeSubscription;
import io.moses.sla.wsdl.sla.GetClasses;
import io.moses.sla.wsdl.sla.GetClassesResponse;
import io.moses.sla.wsdl.sla.ServiceClassOffer;
import io.moses.sla.wsdl.sla.SlaFault_Exception;
import io.moses.sla.wsdl.sla.SlaManagerPort;
import io.moses.sla.wsdl.sla.SlaManagerService;
import io.moses.sla.wsdl.sla.Subscribe;
import io.moses.sla.wsdl.sla.SubscriptionResult;
import io.moses.testing.Waits;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SLA Manager over SOAP, driven only through the client that CXF wsdl2java generated (in the
 * sla-manager build) from the WSDL the broker publishes at /manage/sla?wsdl: admission until a
 * refusal, the counter-offer taken, the race for the last capacity, refusals that change
 * nothing, and the admitted users' SLAs kept under their load.
 *
 * <p>One concrete service per task, 10 req/s each: the broker can admit 10 req/s in total.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("e2e")
class SlaManagerSoapTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final String SEED = """
            composite: EchoPair
            classes:
              - {name: gold, maxResponseTime: 1.0, minAvailability: 0.9, maxCost: 10, price: 5}
              - {name: bronze, maxResponseTime: 3.0, minAvailability: 0.5, maxCost: 10, price: 1}
            users:
              - {name: olga, class: gold, rate: 0, password: olga-secret, role: operator}
            services:
              - {name: left-1, task: left.echo, endpoint: "${PARTNER}/left1", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 10}
              - {name: right-1, task: right.echo, endpoint: "${PARTNER}/right1", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 10}
            """;
    @TempDir static Path work;
    static ManagementTestBroker setup;
    static EchoPartner partner;
    static Broker broker;
    static String base;
    static SlaManagerService service;

    @BeforeAll
    static void start() throws Exception {
        setup = ManagementTestBroker.start(work, SEED, "mem:sla-soap");
        partner = setup.partner;
        broker = setup.broker;
        base = setup.base;
        // the generated service class reads the WSDL the broker publishes
        service = new SlaManagerService(new URL(base + "/manage/sla?wsdl"));
    }

    @AfterAll
    static void stop() {
        if (setup != null) setup.close();
    }

    static SlaManagerPort client(String user, String password) {
        return ManagementTestBroker.as(service.getSlaManagerPort(), user, password);
    }

    static SubscriptionResult subscribe(String user, String cls, double rate) throws SlaFault_Exception {
        Subscribe s = new Subscribe();
        s.setUser(user);
        s.setPassword(user + "-password");
        s.setServiceClass(cls);
        s.setRate(rate);
        return client(null, null).subscribe(s).getResult();
    }

    static SubscriptionResult change(String caller, String target, String cls, Double rate) throws SlaFault_Exception {
        ChangeSubscription c = new ChangeSubscription();
        c.setUser(target);
        c.setServiceClass(cls);
        c.setRate(rate);
        return client(caller, caller + "-password").changeSubscription(c).getResult();
    }

    /** Users with their classes and rates, and the plan version: what a refused call must leave alone. */
    static String state() {
        KnowledgeBase kb = broker.knowledgeBase();
        return kb.users().stream().map(User::toString).toList() + " plan " + kb.latestPlanVersion() + " subscriptions "
                + kb.subscriptionsVersion();
    }

    static void refused(String code, String reason, Executable call) {
        String before = state();
        SlaFault_Exception f = assertThrows(SlaFault_Exception.class, call::execute);
        assertEquals(code, f.getFaultInfo().getCode(), f.getFaultInfo().getMessage());
        assertTrue(f.getFaultInfo().getMessage().contains(reason), f.getFaultInfo().getMessage());
        assertEquals(before, state(), "a refused call changes nothing");
    }

    interface Executable {
        void execute() throws Exception;
    }

    @Test
    @Order(1)
    void thePublishedWsdlIsTheOneTheClientWasGeneratedFrom() throws Exception {
        String wsdl = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/manage/sla?wsdl")).build(), HttpResponse.BodyHandlers.ofString()).body();
        for (String op : List.of("GetClasses", "Subscribe", "ChangeSubscription", "Cancel", "ChangePassword"))
            assertTrue(wsdl.contains("<wsdl:operation name=\"" + op + "\">"), op);
        assertTrue(wsdl.contains("location=\"" + base + "/manage/sla\""), "the address is the broker's");
        GetClassesResponse classes = client(null, null).getClasses(new GetClasses());
        assertEquals(List.of("bronze", "gold"), classes.getServiceClass().stream().map(ServiceClassOffer::getName).sorted().toList());
        ServiceClassOffer gold = classes.getServiceClass().stream().filter(k -> k.getName().equals("gold")).findFirst().orElseThrow();
        assertEquals(1.0, gold.getMaxResponseTime());
        assertEquals(0.9, gold.getMinAvailability());
        assertEquals(5.0, gold.getPrice());
        // 10 req/s per endpoint, every request visits both: about 10 req/s to give away
        assertTrue(gold.getAdmissibleRate() > 9 && gold.getAdmissibleRate() <= 10.0, "admissible " + gold.getAdmissibleRate());
    }

    @Test
    @Order(2)
    void subscribesUntilAdmissionRefusesAndTheCounterOfferIsAcceptedWhenTaken() throws Exception {
        long plan = broker.planVersion();
        List<String> accepted = new ArrayList<>();
        SubscriptionResult refusal = null;
        for (int i = 1; i <= 10 && refusal == null; i++) {
            SubscriptionResult r = subscribe("user" + i, "gold", 3);
            if (r.isAccepted()) {
                accepted.add(r.getUser());
                assertTrue(r.getPlanVersion() > plan, "each acceptance is re-planned: " + r.getPlanVersion());
                plan = r.getPlanVersion();
                assertEquals(plan, broker.planVersion(), "the plan in the reply is in force before it returns");
            } else {
                refusal = r;
            }
        }
        assertEquals(List.of("user1", "user2", "user3"), accepted, "3 x 3 req/s fit in 10 req/s, a fourth does not");
        assertNotNull(refusal);
        assertTrue(broker.knowledgeBase().user("user4").isEmpty(), "a refused user is not stored");
        assertEquals(plan, refusal.getPlanVersion());
        assertFalse(refusal.getCounterOffer().isEmpty(), refusal.getReason());
        var offer = refusal.getCounterOffer().get(0);
        assertEquals("gold", offer.getServiceClass());
        assertTrue(offer.getRate() > 0.9 && offer.getRate() <= 1.0, "about 1 req/s is left: " + offer.getRate());
        assertTrue(broker.knowledgeBase().slaEvents(null, 100).stream().anyMatch(e -> "user4".equals(e.user())), "the refusal is an SLA event");

        SubscriptionResult taken = subscribe("user4", offer.getServiceClass(), offer.getRate());
        assertTrue(taken.isAccepted(), "the counter-offer is admissible: " + taken.getReason());
        assertEquals(offer.getRate(), taken.getRate());
        assertFalse(subscribe("user5", "bronze", 0.5).isAccepted(), "nothing is left, in any class");
    }

    @Test
    @Order(3)
    void concurrentSubscriptionsRacingForTheLastCapacityAdmitOnlyWhatFits() throws Exception {
        Cancel c = new Cancel();
        var reply = client("user4", "user4-password").cancel(c);
        assertEquals("user4", reply.getUser());
        assertTrue(broker.knowledgeBase().user("user4").isEmpty());
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<SubscriptionResult>> racers = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                String name = "racer" + i;
                racers.add(pool.submit(() -> {
                    go.await();
                    return subscribe(name, "gold", 0.6);
                }));
            }
            go.countDown();
            int won = 0;
            for (Future<SubscriptionResult> f : racers) if (f.get(60, TimeUnit.SECONDS).isAccepted()) won++;
            assertEquals(1, won, "about 1 req/s was free: one 0.6 req/s subscription fits, two do not");
        } finally {
            pool.shutdownNow();
        }
        double total = broker.knowledgeBase().users().stream().mapToDouble(User::rate).sum();
        assertTrue(total <= 10.0 + 1e-9, "admitted load " + total + " within capacity");
    }

    @Test
    @Order(4)
    void changesAreAdmittedLikeSubscriptions() throws Exception {
        SubscriptionResult up = change("user1", null, null, 5.0);
        assertFalse(up.isAccepted(), up.getReason());
        assertEquals(3.0, up.getRate(), "the subscription in force stays");
        assertEquals(3.0, broker.knowledgeBase().user("user1").orElseThrow().rate());
        assertFalse(up.getCounterOffer().isEmpty());
        assertTrue(up.getCounterOffer().get(0).getRate() < 5.0 && up.getCounterOffer().get(0).getRate() >= 3.0, up.getCounterOffer().get(0).getRate() + "");

        SubscriptionResult down = change("user1", null, "bronze", 2.0);
        assertTrue(down.isAccepted(), down.getReason());
        assertEquals("bronze", broker.knowledgeBase().user("user1").orElseThrow().serviceClass());
        assertEquals(2.0, broker.knowledgeBase().user("user1").orElseThrow().rate());
        assertEquals(broker.planVersion(), down.getPlanVersion());
        // an operator may change another user's subscription
        SubscriptionResult byOperator = client("olga", "olga-secret").changeSubscription(with("user2", null, 2.5)).getResult();
        assertTrue(byOperator.isAccepted(), byOperator.getReason());
        assertEquals(2.5, broker.knowledgeBase().user("user2").orElseThrow().rate());
    }

    static ChangeSubscription with(String user, String cls, Double rate) {
        ChangeSubscription c = new ChangeSubscription();
        c.setUser(user);
        c.setServiceClass(cls);
        c.setRate(rate);
        return c;
    }

    @Test
    @Order(5)
    void badInputIsRefusedPreciselyAndChangesNothing() {
        refused("INVALID", "rate must be a number from 0", () -> subscribe("neg", "gold", -1));
        refused("INVALID", "rate must be a number from 0", () -> subscribe("nan", "gold", Double.NaN));
        refused("INVALID", "rate must be a number from 0", () -> subscribe("huge", "gold", 1e12));
        refused("INVALID", "rate must be a number from 0", () -> subscribe("inf", "gold", Double.POSITIVE_INFINITY));
        refused("UNKNOWN_CLASS", "no service class 'platinum'", () -> subscribe("plat", "platinum", 1));
        refused("DUPLICATE_USER", "user 'user2' already exists", () -> subscribe("user2", "gold", 0.1));
        refused("INVALID", "user must be", () -> subscribe("../etc", "gold", 0.1));
        refused("INVALID", "password must be", () -> {
            Subscribe s = new Subscribe();
            s.setUser("shorty");
            s.setPassword("x");
            s.setServiceClass("gold");
            s.setRate(0.1);
            client(null, null).subscribe(s);
        });
        refused("FORBIDDEN", "may change only its own subscription", () -> change("user2", "user3", null, 0.1));
        refused("FORBIDDEN", "may change only its own subscription", () -> {
            Cancel c = new Cancel();
            c.setUser("user3");
            client("user2", "user2-password").cancel(c);
        });
        refused("UNAUTHENTICATED", "unknown user or wrong password", () -> client("user2", "wrong-password").changeSubscription(with(null, null, 0.1)));
        refused("UNAUTHENTICATED", "authentication required", () -> client(null, null).cancel(new Cancel()));
        refused("UNKNOWN_CLASS", "no service class 'platinum'", () -> change("user2", null, "platinum", null));
        refused("INVALID", "rate must be", () -> change("user2", null, null, -3.0));
        refused("UNKNOWN_USER", "no user 'ghost'", () -> client("olga", "olga-secret").changeSubscription(with("ghost", null, 1.0)));
    }

    @Test
    @Order(6)
    void admittedClassesKeepTheirSlasUnderTheirLoad() throws Exception {
        List<User> users = broker.knowledgeBase().users().stream().filter(u -> u.rate() > 0).toList();
        assertTrue(users.size() >= 4, users.toString());
        String plan = OperatorRoleTest.get(broker.port(), "/admin/plan", "olga", "olga-secret").body();
        assertTrue(plan.contains("\"atRisk\" : [ ]"), "the plan keeps every SLA: " + plan);
        AtomicInteger failures = new AtomicInteger();
        Map<String, List<Double>> seconds = new java.util.concurrent.ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(users.size());
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (User u : users) {
                runs.add(pool.submit((Callable<Void>) () -> {
                    long period = (long) (1e9 / u.rate());
                    long next = System.nanoTime();
                    for (int i = 0; i < Math.max(4, (int) (u.rate() * 4)); i++) { // about 4 s at the agreed rate
                        long wait = next - System.nanoTime();
                        if (wait > 0) Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                        next += period;
                        long t0 = System.nanoTime();
                        HttpResponse<String> r = BrokerKnowledgeBaseTest.call(broker.port(), u.name(),
                                u.name().equals("olga") ? "olga-secret" : u.name() + "-password");
                        double s = (System.nanoTime() - t0) / 1e9;
                        if (r.statusCode() != 200) failures.incrementAndGet();
                        seconds.computeIfAbsent(u.serviceClass(), k -> java.util.Collections.synchronizedList(new ArrayList<>())).add(s);
                    }
                    return null;
                }));
            }
            for (Future<?> f : runs) f.get(60, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertEquals(0, failures.get(), "every request of an admitted user succeeds");
        Map<String, Double> rMax = Map.of("gold", 1.0, "bronze", 3.0);
        seconds.forEach((cls, list) -> {
            double mean = list.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
            assertTrue(mean < rMax.get(cls), cls + ": mean response time " + mean + " s within R_max " + rMax.get(cls));
        });
    }

    /**
     * Runs a command-line client in its own JVM on the cli module's class path, as {@code ./moses}
     * does (a few runs: each loads CXF): exit code and output.
     */
    static Map.Entry<Integer, String> cli(String mainClass, Map<String, String> env, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", ChildProcess.commandLineClassPath(), mainClass));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove("MOSES_USER");
        pb.environment().remove("MOSES_PASSWORD");
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return Map.entry(p.exitValue(), out);
    }

    @Test
    @Order(7)
    void theCommandLineClientsSpeakTheSameOperations() throws Exception {
        String sla = "io.moses.cli.SlaCommand", services = "io.moses.cli.ServicesCommand";
        var help = cli(sla, Map.of(), "--help");
        assertEquals(0, help.getKey());
        assertTrue(help.getValue().contains("usage: moses sla"), help.getValue());
        var tooMuch = cli(sla, Map.of("MOSES_PASSWORD", "cli-user-password"), "subscribe", "--broker", base, "--user", "cliuser",
                "--class", "gold", "--rate", "100");
        assertEquals(1, tooMuch.getKey(), tooMuch.getValue());
        assertTrue(tooMuch.getValue().contains("rejected") && tooMuch.getValue().contains("counter-offer"), tooMuch.getValue());
        assertTrue(broker.knowledgeBase().user("cliuser").isEmpty());
        var lower = cli(sla, Map.of("MOSES_USER", "user2", "MOSES_PASSWORD", "user2-password"), "change", "--broker", base, "--rate", "2");
        assertEquals(0, lower.getKey(), lower.getValue());
        assertTrue(lower.getValue().contains("accepted"), lower.getValue());
        assertEquals(2.0, broker.knowledgeBase().user("user2").orElseThrow().rate());
        var list = cli(services, Map.of("MOSES_USER", "olga", "MOSES_PASSWORD", "olga-secret"), "list", "--broker", base);
        assertEquals(0, list.getKey(), list.getValue());
        assertTrue(list.getValue().contains("left-1") && list.getValue().contains("right-1"), list.getValue());
    }

    static HttpResponse<String> classes(String method, String path, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(base + path)).method(method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Authorization", "Basic " + java.util.Base64.getEncoder().encodeToString("olga:olga-secret".getBytes()))
                .header("Content-Type", "application/json").build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    @Order(8)
    void operatorsManageClassesAndCannotPromiseWhatThePlanCannotKeep() throws Exception {
        HttpResponse<String> list = classes("GET", "/admin/classes", null);
        assertEquals(200, list.statusCode(), list.body());
        assertTrue(list.body().contains("\"subscribers\""), list.body());
        String before = broker.knowledgeBase().serviceClasses() + " plan " + broker.knowledgeBase().latestPlanVersion();
        HttpResponse<String> impossible = classes("PUT", "/admin/classes/gold", "{\"maxResponseTime\": 0.05}");
        assertEquals(409, impossible.statusCode(), impossible.body());
        assertTrue(impossible.body().contains("IMPOSSIBLE_SLA") && impossible.body().contains("cannot keep"), impossible.body());
        HttpResponse<String> badA = classes("PUT", "/admin/classes/gold", "{\"minAvailability\": 1.0}");
        assertEquals(400, badA.statusCode());
        assertTrue(badA.body().contains("minAvailability must be in (0, 1)"), badA.body());
        assertEquals(400, classes("PUT", "/admin/classes/gold", "{\"maxResponseTime\": -1}").statusCode());
        assertEquals(400, classes("POST", "/admin/classes", "{\"name\": \"tin\", \"maxResponseTime\": 0, \"minAvailability\": 0.9, \"maxCost\": 1, \"price\": 1}").statusCode());
        assertEquals(409, classes("POST", "/admin/classes", "{\"name\": \"gold\", \"maxResponseTime\": 1, \"minAvailability\": 0.9, \"maxCost\": 1, \"price\": 1}").statusCode());
        HttpResponse<String> inUse = classes("DELETE", "/admin/classes/gold", null);
        assertEquals(409, inUse.statusCode());
        assertTrue(inUse.body().contains("CLASS_IN_USE"), inUse.body());
        assertEquals(404, classes("DELETE", "/admin/classes/ghost", null).statusCode());
        assertEquals(before, broker.knowledgeBase().serviceClasses() + " plan " + broker.knowledgeBase().latestPlanVersion(),
                "refusals change nothing");

        assertEquals(201, classes("POST", "/admin/classes", "{\"name\": \"platinum\", \"maxResponseTime\": 2, \"minAvailability\": 0.95, \"maxCost\": 10, \"price\": 8}").statusCode());
        assertTrue(broker.knowledgeBase().serviceClass("platinum").isPresent());
        HttpResponse<String> cheaper = classes("PUT", "/admin/classes/gold", "{\"price\": 6}");
        assertEquals(200, cheaper.statusCode(), cheaper.body());
        assertEquals(6.0, broker.knowledgeBase().serviceClass("gold").orElseThrow().price());
        assertEquals(200, classes("DELETE", "/admin/classes/platinum", null).statusCode());
        assertTrue(broker.knowledgeBase().serviceClass("platinum").isEmpty());
    }

    @Test
    @Order(9)
    void operatorsSetAClassesOwnPolicyAboveTheAgreedRateAndABadOneChangesNothing() throws Exception {
        String before = broker.knowledgeBase().serviceClasses() + " " + broker.knowledgeBase().classOverRates();
        HttpResponse<String> bad = classes("PUT", "/admin/classes/gold", "{\"price\": 3, \"overRate\": \"sometimes\"}");
        assertEquals(400, bad.statusCode(), bad.body());
        assertTrue(bad.body().contains("overRate must be off, reject or best-effort, was 'sometimes'"), bad.body());
        assertEquals(400, classes("PUT", "/admin/classes/gold", "{\"overRate\": 2}").statusCode());
        HttpResponse<String> badNew = classes("POST", "/admin/classes", "{\"name\": \"tin\", \"maxResponseTime\": 2, "
                + "\"minAvailability\": 0.9, \"maxCost\": 10, \"price\": 1, \"overRate\": \"never\"}");
        assertEquals(400, badNew.statusCode(), badNew.body());
        assertTrue(badNew.body().contains("overRate"), badNew.body());
        assertEquals(before, broker.knowledgeBase().serviceClasses() + " " + broker.knowledgeBase().classOverRates(),
                "nothing half-applied: neither the price nor the policy");

        HttpResponse<String> set = classes("PUT", "/admin/classes/gold", "{\"overRate\": \"best-effort\"}");
        assertEquals(200, set.statusCode(), set.body());
        assertTrue(set.body().contains("\"overRate\" : \"best-effort\""), set.body());
        assertEquals(io.moses.model.OverRate.BEST_EFFORT, broker.knowledgeBase().classOverRates().get("gold"));
        assertTrue(classes("GET", "/admin/classes", null).body().contains("\"overRate\" : \"best-effort\""));
        // the broker polices gold with it from its next refresh: the class table says so
        Waits.until("gold policed best-effort", 60,
                () -> classes("GET", "/admin/compliance", null).body().matches("(?s).*\"name\" ?: ?\"gold\".*?\"overRate\" ?: ?\"best-effort\".*"));
        HttpResponse<String> added = classes("POST", "/admin/classes", "{\"name\": \"tin\", \"maxResponseTime\": 2, "
                + "\"minAvailability\": 0.9, \"maxCost\": 10, \"price\": 1, \"overRate\": \"reject\"}");
        assertEquals(201, added.statusCode(), added.body());
        assertEquals(io.moses.model.OverRate.REJECT, broker.knowledgeBase().classOverRates().get("tin"));
        HttpResponse<String> cleared = classes("PUT", "/admin/classes/gold", "{\"overRate\": null}");
        assertEquals(200, cleared.statusCode(), cleared.body());
        assertTrue(!broker.knowledgeBase().classOverRates().containsKey("gold"), "null: the broker's policy again");
        assertEquals(200, classes("DELETE", "/admin/classes/tin", null).statusCode());
    }

    @Test
    void guessingPasswordsIsRefusedWithoutHashingAfterFiveFailuresAlsoForUnknownNames() {
        // an unknown name counts as a known one does: its answers tell a guesser nothing about which names exist
        for (int i = 0; i < io.moses.model.auth.LoginThrottle.FREE_FAILURES; i++)
            refused("UNAUTHENTICATED", "unknown user or wrong password", () -> client("mallory", "guess").changeSubscription(with(null, null, 0.1)));
        refused("UNAUTHENTICATED", "too many failed logins for user 'mallory': retry after 1 s",
                () -> client("mallory", "guess").changeSubscription(with(null, null, 0.1)));
    }
}
