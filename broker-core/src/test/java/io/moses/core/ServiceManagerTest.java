package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.model.ConcreteService;
import io.moses.sla.wsdl.services.AddService;
import io.moses.sla.wsdl.services.ChangeResponse;
import io.moses.sla.wsdl.services.ListServices;
import io.moses.sla.wsdl.services.ListServicesResponse;
import io.moses.sla.wsdl.services.ProviderSla;
import io.moses.sla.wsdl.services.RemoveService;
import io.moses.sla.wsdl.services.ServiceFault_Exception;
import io.moses.sla.wsdl.services.ServiceManagerPort;
import io.moses.sla.wsdl.services.ServiceManagerService;
import io.moses.sla.wsdl.services.UpdateService;
import io.moses.testing.Waits;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * The Service Manager, over SOAP through the wsdl2java-generated client and as JSON in the
 * admin API: every change re-planned before the reply, removing a used service under load moves
 * its traffic before the call returns with no failed request, refusals change nothing.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("e2e")
class ServiceManagerTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final ObjectMapper JSON = new ObjectMapper();
    @TempDir static Path work;
    static ManagementTestBroker setup;
    static EchoPartner partner;
    static Broker broker;
    static String base;
    static ServiceManagerService service;

    @BeforeAll
    static void start() throws Exception {
        setup = ManagementTestBroker.start(work, BrokerKnowledgeBaseTest.seed().replace("users:\n",
                "users:\n  - {name: olga, class: gold, rate: 0, password: olga-secret, role: operator}\n"), "mem:service-manager");
        partner = setup.partner;
        broker = setup.broker;
        base = setup.base;
        service = new ServiceManagerService(new URL(base + "/manage/services?wsdl"));
    }

    @AfterAll
    static void stop() {
        if (setup != null) setup.close();
    }

    static ServiceManagerPort client(String user, String password) {
        return ManagementTestBroker.as(service.getServiceManagerPort(), user, password);
    }

    static ServiceManagerPort operator() {
        return client("olga", "olga-secret");
    }

    static io.moses.sla.wsdl.services.ConcreteService service(String name, String task, String endpoint, double availability) {
        var s = new io.moses.sla.wsdl.services.ConcreteService();
        s.setName(name);
        s.setComposite("EchoPair");
        s.setTask(task);
        s.setEndpoint(endpoint);
        ProviderSla sla = new ProviderSla();
        sla.setResponseTime(0.1);
        sla.setAvailability(availability);
        sla.setCost(1);
        sla.setMaxRate(100);
        s.setSla(sla);
        return s;
    }

    static AddService add(io.moses.sla.wsdl.services.ConcreteService s) {
        AddService a = new AddService();
        a.setService(s);
        return a;
    }

    static String state() {
        return broker.knowledgeBase().concreteServices().stream().map(ConcreteService::toString).toList() + " plan "
                + broker.knowledgeBase().latestPlanVersion();
    }

    interface Call {
        void run() throws Exception;
    }

    static void refused(String code, String reason, Call call) {
        String before = state();
        ServiceFault_Exception f = assertThrows(ServiceFault_Exception.class, call::run);
        assertEquals(code, f.getFaultInfo().getCode(), f.getFaultInfo().getMessage());
        assertTrue(f.getFaultInfo().getMessage().contains(reason), f.getFaultInfo().getMessage());
        assertEquals(before, state(), "a refused call changes nothing");
    }

    static HttpResponse<String> admin(String method, String path, String body, String user, String password) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).method(method,
                body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (user != null) b.header("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes()));
        return HTTP.send(b.header("Content-Type", "application/json").build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    @Order(1)
    void listsAndAddsServicesEachReplanned() throws Exception {
        ListServicesResponse list = operator().listServices(new ListServices());
        assertEquals(List.of("left-1", "left-2", "right-1"), list.getService().stream().map(s -> s.getName()).toList());
        assertTrue(list.getService().stream().filter(s -> s.getName().equals("right-1")).findFirst().orElseThrow().isUsed());
        long plan = broker.planVersion();
        ChangeResponse added = operator().addService(add(service("left-3", "left.echo", partner.url("/left3"), 0.999)));
        assertTrue(added.getPlanVersion() > plan, "re-planned: " + added.getMessage());
        assertEquals(added.getPlanVersion(), broker.planVersion());
        assertTrue(broker.knowledgeBase().concreteService("left-3").isPresent());

        UpdateService u = new UpdateService();
        u.setName("left-3");
        ProviderSla slower = new ProviderSla();
        slower.setResponseTime(0.5);
        slower.setAvailability(0.95);
        slower.setCost(2);
        slower.setMaxRate(50);
        u.setSla(slower);
        ChangeResponse updated = operator().updateService(u);
        assertTrue(updated.getPlanVersion() > added.getPlanVersion());
        assertEquals(0.5, broker.knowledgeBase().concreteService("left-3").orElseThrow().sla().responseTime());
        assertEquals(partner.url("/left3"), updated.getService().getEndpoint(), "the endpoint is unchanged");
    }

    @Test
    @Order(2)
    void badInputIsRefusedPreciselyAndChangesNothing() {
        refused("UNKNOWN_TASK", "no task EchoPair/middle.echo", () -> operator().addService(add(service("m-1", "middle.echo", partner.url("/m"), 0.9))));
        refused("INVALID", "task must be partnerLink.operation", () -> operator().addService(add(service("m-1", "echo", partner.url("/m"), 0.9))));
        refused("INVALID", "endpoint is not a URL", () -> operator().addService(add(service("left-4", "left.echo", "not a url", 0.9))));
        refused("INVALID", "endpoint must be an http:// or https:// URL", () -> operator().addService(add(service("left-4", "left.echo", "relative/path", 0.9))));
        refused("INVALID", "endpoint must be an http:// or https:// URL", () -> operator().addService(add(service("left-4", "left.echo", "ftp://h/x", 0.9))));
        refused("INVALID", "endpoint is not a URL", () -> operator().addService(add(service("left-4", "left.echo", "http://h/a b^", 0.9))));
        refused("INVALID", "availability must be in (0, 1]", () -> operator().addService(add(service("left-4", "left.echo", partner.url("/l4"), 1.5))));
        refused("DUPLICATE_SERVICE", "'left-1' already exists", () -> operator().addService(add(service("left-1", "left.echo", partner.url("/l4"), 0.9))));
        refused("INVALID", "name must be", () -> operator().addService(add(service("../x", "left.echo", partner.url("/l4"), 0.9))));
        refused("FORBIDDEN", "not an operator", () -> client("alice", "alice-secret").addService(add(service("left-4", "left.echo", partner.url("/l4"), 0.9))));
        refused("UNAUTHENTICATED", "authentication required", () -> client(null, null).listServices(new ListServices()));
        refused("UNAUTHENTICATED", "unknown user or wrong password", () -> client("olga", "nope").listServices(new ListServices()));
        RemoveService ghost = new RemoveService();
        ghost.setName("ghost");
        refused("UNKNOWN_SERVICE", "no concrete service 'ghost'", () -> operator().removeService(ghost));
        UpdateService badEndpoint = new UpdateService();
        badEndpoint.setName("left-3");
        badEndpoint.setEndpoint("mailto:x@y");
        refused("INVALID", "endpoint must be", () -> operator().updateService(badEndpoint));
        RemoveService last = new RemoveService();
        last.setName("right-1");
        refused("LAST_SERVICE", "the only concrete service of EchoPair/right.echo", () -> operator().removeService(last));
    }

    @Test
    @Order(3)
    void removingAUsedServiceUnderLoadMovesItsTrafficBeforeTheCallReturns() throws Exception {
        String used = ServiceManagerTestSupport.usedLeft(broker);
        String path = broker.knowledgeBase().concreteService(used).orElseThrow().endpoint().getPath();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger failures = new AtomicInteger();
        AtomicInteger requests = new AtomicInteger();
        List<Thread> clients = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Thread t = new Thread(() -> {
                while (running.get()) {
                    try {
                        HttpResponse<String> r = BrokerKnowledgeBaseTest.call(broker.port(), "alice", "alice-secret");
                        requests.incrementAndGet();
                        if (r.statusCode() != 200) failures.incrementAndGet();
                    } catch (Exception e) {
                        failures.incrementAndGet();
                    }
                }
            });
            t.start();
            clients.add(t);
        }
        try {
            awaitRequests(requests, 10);
            RemoveService r = new RemoveService();
            r.setName(used);
            ChangeResponse removed = operator().removeService(r);
            assertTrue(removed.getMessage().contains("traffic moved"), removed.getMessage());
            assertFalse(broker.knowledgeBase().concreteService(used).isPresent());
            // from the reply on, no request reaches the removed service
            for (int i = 0; i < 20; i++) {
                HttpResponse<String> after = BrokerKnowledgeBaseTest.call(broker.port(), "alice", "alice-secret");
                assertEquals(200, after.statusCode(), after.body());
                assertFalse(after.body().contains("via " + path + "<"), "request " + i + " went to the removed " + used + ": " + after.body());
            }
            // the load goes on a while after the removal: requests that started before the reply end too
            awaitRequests(requests, requests.get() + 10);
        } finally {
            running.set(false);
            for (Thread t : clients) t.join(5000);
        }
        assertTrue(requests.get() > 10, "load ran: " + requests.get());
        assertEquals(0, failures.get(), "no request failed while the service was removed (of " + requests.get() + ")");
    }

    @Test
    @Order(4)
    void theAdminApiManagesServicesAsJson() throws Exception {
        HttpResponse<String> list = admin("GET", "/admin/services", null, "olga", "olga-secret");
        assertEquals(200, list.statusCode(), list.body());
        JsonNode services = JSON.readTree(list.body()).path("services");
        assertTrue(services.size() >= 2, list.body());
        assertEquals(403, admin("GET", "/admin/services", null, "alice", "alice-secret").statusCode());
        assertEquals(401, admin("GET", "/admin/services", null, null, null).statusCode());

        String before = state();
        HttpResponse<String> badJson = admin("POST", "/admin/services", "{\"name\":", "olga", "olga-secret");
        assertEquals(400, badJson.statusCode(), badJson.body());
        assertTrue(badJson.body().contains("not JSON"), badJson.body());
        HttpResponse<String> unknownField = admin("POST", "/admin/services", "{\"nme\":\"x\"}", "olga", "olga-secret");
        assertEquals(400, unknownField.statusCode());
        assertTrue(unknownField.body().contains("nme: unknown field"), unknownField.body());
        String json = "{\"name\":\"left-9\",\"composite\":\"EchoPair\",\"task\":\"TASK\",\"endpoint\":\"" + partner.url("/left9")
                + "\",\"responseTime\":0.1,\"availability\":AV,\"cost\":1,\"maxRate\":100}";
        assertEquals(404, admin("POST", "/admin/services", json.replace("TASK", "nope.echo").replace("AV", "0.9"), "olga", "olga-secret").statusCode());
        HttpResponse<String> badAv = admin("POST", "/admin/services", json.replace("TASK", "left.echo").replace("AV", "0"), "olga", "olga-secret");
        assertEquals(400, badAv.statusCode());
        assertTrue(badAv.body().contains("availability"), badAv.body());
        assertEquals(404, admin("DELETE", "/admin/services/ghost", null, "olga", "olga-secret").statusCode());
        assertEquals(before, state(), "refusals change nothing");

        long plan = broker.planVersion();
        HttpResponse<String> created = admin("POST", "/admin/services", json.replace("TASK", "left.echo").replace("AV", "0.99"), "olga", "olga-secret");
        assertEquals(201, created.statusCode(), created.body());
        assertTrue(JSON.readTree(created.body()).path("planVersion").asLong() > plan);
        HttpResponse<String> updated = admin("PUT", "/admin/services/left-9", "{\"maxRate\": 7}", "olga", "olga-secret");
        assertEquals(200, updated.statusCode(), updated.body());
        assertEquals(7.0, broker.knowledgeBase().concreteService("left-9").orElseThrow().sla().maxRate());
        assertEquals(0.99, broker.knowledgeBase().concreteService("left-9").orElseThrow().sla().availability(), "other fields kept");
        assertEquals(200, admin("DELETE", "/admin/services/left-9", null, "olga", "olga-secret").statusCode());
        assertTrue(broker.knowledgeBase().concreteService("left-9").isEmpty());
    }

    @Test
    @Order(5)
    void theAdminApiSaysWhetherAServicesTaskIsIdempotentAndReplans() throws Exception {
        io.moses.model.TaskRef left = new io.moses.model.TaskRef("EchoPair", "left.echo");
        // the services of left.echo still registered after the earlier tests
        List<String> lefts = broker.knowledgeBase().concreteServices(left).stream().map(ConcreteService::name).toList();
        String first = "/admin/services/" + lefts.get(0), last = "/admin/services/" + lefts.get(lefts.size() - 1);
        assertFalse(broker.knowledgeBase().idempotentTasks().contains(left), "not idempotent until said so");
        assertFalse(JSON.readTree(admin("GET", first, null, "olga", "olga-secret").body()).path("idempotent").asBoolean());
        HttpResponse<String> bad = admin("PUT", first, "{\"idempotent\": \"yes\"}", "olga", "olga-secret");
        assertEquals(400, bad.statusCode(), bad.body());
        assertTrue(bad.body().contains("idempotent must be true or false"), bad.body());

        long plan = broker.planVersion();
        HttpResponse<String> on = admin("PUT", first, "{\"idempotent\": true}", "olga", "olga-secret");
        assertEquals(200, on.statusCode(), on.body());
        assertTrue(JSON.readTree(on.body()).path("planVersion").asLong() > plan, on.body());
        assertTrue(broker.knowledgeBase().idempotentTasks().contains(left));
        assertTrue(JSON.readTree(admin("GET", last, null, "olga", "olga-secret").body()).path("idempotent").asBoolean(),
                "the flag is the task's, read through any of its services");

        HttpResponse<String> off = admin("PUT", last, "{\"idempotent\": false}", "olga", "olga-secret");
        assertEquals(200, off.statusCode(), off.body());
        assertFalse(broker.knowledgeBase().idempotentTasks().contains(left));
        io.moses.model.Plan inForce = broker.knowledgeBase().latestPlan().orElseThrow();
        assertEquals(JSON.readTree(off.body()).path("planVersion").asLong(), inForce.version());
        inForce.bindings().forEach((k, shares) -> shares.forEach(sh -> assertTrue(!k.task().equals(left)
                || sh.implementation().pattern() != io.moses.model.Implementation.Pattern.PARALLEL
                && sh.implementation().pattern() != io.moses.model.Implementation.Pattern.HEDGED, "no par or hedge for " + k + ": " + sh)));
    }

    @Test
    @Order(6)
    void theSoapServiceManagerSaysWhetherAServicesTaskIsIdempotentAndReplans() throws Exception {
        io.moses.model.TaskRef left = new io.moses.model.TaskRef("EchoPair", "left.echo");
        List<String> lefts = broker.knowledgeBase().concreteServices(left).stream().map(ConcreteService::name).toList();
        assertFalse(broker.knowledgeBase().idempotentTasks().contains(left), "left off by the test before");
        UpdateService flag = new UpdateService();
        flag.setName(lefts.get(0));
        flag.setIdempotent(true);
        long plan = broker.planVersion();
        ChangeResponse on = operator().updateService(flag);
        assertTrue(on.getPlanVersion() > plan, "re-planned: " + on.getMessage());
        assertEquals(lefts.get(0), on.getService().getName());
        assertTrue(on.getService().isIdempotent());
        assertTrue(broker.knowledgeBase().idempotentTasks().contains(left));
        ListServices composite = new ListServices();
        composite.setComposite("EchoPair");
        for (var s : operator().listServices(composite).getService())
            assertEquals(s.getTask().equals("left.echo"), s.isIdempotent(), "the flag is the task's, listed with each service: " + s.getName());

        var added = service("left-8", "left.echo", partner.url("/left8"), 0.99);
        added.setIdempotent(false); // declared with a new service: for its whole task
        ChangeResponse off = operator().addService(add(added));
        assertFalse(off.getService().isIdempotent());
        assertFalse(broker.knowledgeBase().idempotentTasks().contains(left));
        io.moses.model.Plan inForce = broker.knowledgeBase().latestPlan().orElseThrow();
        assertEquals(off.getPlanVersion(), inForce.version());
        inForce.bindings().forEach((k, shares) -> shares.forEach(sh -> assertTrue(!k.task().equals(left)
                || sh.implementation().pattern() != io.moses.model.Implementation.Pattern.PARALLEL
                && sh.implementation().pattern() != io.moses.model.Implementation.Pattern.HEDGED, "no par or hedge for " + k + ": " + sh)));
        UpdateService unknown = new UpdateService();
        unknown.setName("no-such-service");
        unknown.setIdempotent(true);
        refused("UNKNOWN_SERVICE", "no-such-service", () -> operator().updateService(unknown));
        RemoveService nine = new RemoveService();
        nine.setName("left-8");
        operator().removeService(nine);
    }

    @Test
    @Order(7)
    void theAdminApiAndTheSoapServiceManagerSayWhetherAServicesTaskIsStatefulAndReplanWithSinglesOnly() throws Exception {
        io.moses.model.TaskRef left = new io.moses.model.TaskRef("EchoPair", "left.echo");
        List<String> lefts = broker.knowledgeBase().concreteServices(left).stream().map(ConcreteService::name).toList();
        String first = "/admin/services/" + lefts.get(0);
        assertFalse(JSON.readTree(admin("GET", first, null, "olga", "olga-secret").body()).path("stateful").asBoolean(), "not until said so");
        HttpResponse<String> bad = admin("PUT", first, "{\"stateful\": 1}", "olga", "olga-secret");
        assertEquals(400, bad.statusCode(), bad.body());
        assertTrue(bad.body().contains("stateful must be true or false"), bad.body());

        long plan = broker.planVersion();
        HttpResponse<String> on = admin("PUT", first, "{\"stateful\": true, \"idempotent\": true}", "olga", "olga-secret");
        assertEquals(200, on.statusCode(), on.body());
        JsonNode answer = JSON.readTree(on.body());
        assertTrue(answer.path("planVersion").asLong() > plan, on.body());
        assertTrue(answer.path("service").path("stateful").asBoolean() && answer.path("service").path("idempotent").asBoolean(), on.body());
        assertEquals(java.util.Set.of(left), broker.knowledgeBase().statefulTasks());
        // idempotent, yet stateful: one provider per conversation, so single implementations only
        io.moses.model.Plan inForce = broker.knowledgeBase().latestPlan().orElseThrow();
        assertEquals(answer.path("planVersion").asLong(), inForce.version());
        inForce.bindings().forEach((k, shares) -> shares.forEach(sh -> assertTrue(!k.task().equals(left)
                || sh.implementation().pattern() == io.moses.model.Implementation.Pattern.SINGLE, "a single for " + k + ": " + sh)));
        ListServices composite = new ListServices();
        composite.setComposite("EchoPair");
        for (var s : operator().listServices(composite).getService())
            assertEquals(s.getTask().equals("left.echo"), Boolean.TRUE.equals(s.isStateful()), "the flag is the task's: " + s.getName());

        UpdateService off = new UpdateService();
        off.setName(lefts.get(lefts.size() - 1));
        off.setStateful(false);
        off.setIdempotent(false);
        ChangeResponse r = operator().updateService(off);
        assertFalse(r.getService().isStateful());
        assertTrue(broker.knowledgeBase().statefulTasks().isEmpty());
        assertFalse(broker.knowledgeBase().idempotentTasks().contains(left));
    }

    @Test
    @Order(8)
    void theAdminApiAndTheSoapServiceManagerSayHowAServicesTaskAnswersByItsCallbackOrInItsReply() throws Exception {
        io.moses.model.TaskRef left = new io.moses.model.TaskRef("EchoPair", "left.echo");
        String first = "/admin/services/" + broker.knowledgeBase().concreteServices(left).get(0).name();
        assertTrue(JSON.readTree(admin("GET", first, null, "olga", "olga-secret").body()).path("callback").isMissingNode(), "answers in its reply");
        for (String bad : List.of("{\"callback\": \"done\"}", "{\"callback\": {\"operation\": \"done\", \"timeout\": -1}}",
                "{\"callback\": {\"operation\": \"done\", \"after\": 1}}", "{\"callback\": {\"timeout\": 1}}")) {
            HttpResponse<String> r = admin("PUT", first, bad, "olga", "olga-secret");
            assertEquals(400, r.statusCode(), bad + ": " + r.body());
        }
        assertTrue(broker.knowledgeBase().asynchronousTasks().isEmpty(), "a refused change changes nothing");

        HttpResponse<String> on = admin("PUT", first, "{\"callback\": {\"operation\": \"done\", \"timeout\": 2.5}}", "olga", "olga-secret");
        assertEquals(200, on.statusCode(), on.body());
        assertEquals(java.util.Map.of(left, new io.moses.model.Callback("done", java.time.Duration.ofMillis(2500))), broker.knowledgeBase().asynchronousTasks());
        JsonNode shown = JSON.readTree(admin("GET", first, null, "olga", "olga-secret").body()).path("callback");
        assertEquals("done", shown.path("operation").asText(), shown.toString());
        assertEquals(2.5, shown.path("timeout").asDouble(), shown.toString());
        HttpResponse<String> off = admin("PUT", first, "{\"callback\": null}", "olga", "olga-secret");
        assertEquals(200, off.statusCode(), off.body());
        assertTrue(broker.knowledgeBase().asynchronousTasks().isEmpty());

        // over SOAP: a timeout out of (0 s, 7 days] is the caller's error, and changes nothing
        io.moses.sla.wsdl.services.ObjectFactory soap = new io.moses.sla.wsdl.services.ObjectFactory();
        String last = broker.knowledgeBase().concreteServices(left).get(broker.knowledgeBase().concreteServices(left).size() - 1).name();
        for (double timeout : new double[] {0, -1, 7 * 24 * 3600 + 1, Double.NaN}) {
            UpdateService bad = new UpdateService();
            bad.setName(last);
            bad.setCallback(soap.createUpdateServiceCallback(callback("done", timeout)));
            refused("INVALID", "callback timeout must be more than 0 and at most 604800 s", () -> operator().updateService(bad));
        }
        assertTrue(broker.knowledgeBase().asynchronousTasks().isEmpty(), "a refused change changes nothing");

        // declared with no timeout: the default 30 s, as the admin API, the knowledge base and the console's JSON report it
        long plan = broker.planVersion();
        UpdateService async = new UpdateService();
        async.setName(last);
        async.setCallback(soap.createUpdateServiceCallback(callback("done", null)));
        ChangeResponse r = operator().updateService(async);
        assertTrue(r.getPlanVersion() > plan, "re-planned: " + r.getMessage());
        assertEquals("done", r.getService().getCallback().getOperation());
        assertEquals(30.0, r.getService().getCallback().getTimeout());
        assertEquals(java.util.Map.of(left, new io.moses.model.Callback("done", java.time.Duration.ofSeconds(30))),
                broker.knowledgeBase().asynchronousTasks());
        shown = JSON.readTree(admin("GET", first, null, "olga", "olga-secret").body()).path("callback");
        assertEquals("done", shown.path("operation").asText(), shown.toString());
        assertEquals(30.0, shown.path("timeout").asDouble(), shown.toString());
        JsonNode traits = JSON.readTree(admin("GET", "/admin/composites", null, "olga", "olga-secret").body()).get(0).path("traits");
        assertEquals(30.0, traits.path("left.echo").path("callback").path("timeout").asDouble(), traits.toString());
        assertTrue(traits.path("right.echo").has("stateful") && !traits.path("right.echo").has("callback"), traits.toString());
        ListServices composite = new ListServices();
        composite.setComposite("EchoPair");
        for (var s : operator().listServices(composite).getService())
            assertEquals(s.getTask().equals("left.echo") ? "done" : null, s.getCallback() == null ? null : s.getCallback().getOperation(),
                    "the callback is the task's: " + s.getName());

        // nil: it answers in its reply again
        UpdateService inReply = new UpdateService();
        inReply.setName(last);
        inReply.setCallback(soap.createUpdateServiceCallback(null));
        assertEquals(null, operator().updateService(inReply).getService().getCallback());
        assertTrue(broker.knowledgeBase().asynchronousTasks().isEmpty());
        assertTrue(JSON.readTree(admin("GET", first, null, "olga", "olga-secret").body()).path("callback").isMissingNode());
    }

    static io.moses.sla.wsdl.services.Callback callback(String operation, Double timeout) {
        var c = new io.moses.sla.wsdl.services.Callback();
        c.setOperation(operation);
        c.setTimeout(timeout);
        return c;
    }

    /** Waits until the load has made {@code n} requests; the deadline only bounds a hang. */
    static void awaitRequests(java.util.concurrent.atomic.AtomicInteger requests, int n) {
        Waits.until(n + " requests of the load", 120, () -> requests.get() >= n, () -> "it made " + requests.get());
    }
}
