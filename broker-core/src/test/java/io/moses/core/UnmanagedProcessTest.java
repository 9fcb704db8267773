package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.testing.Waits;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Planning covers what it can (docs/model.md, "What is planned"): the trip planner keeps adapting
 * with a process beside it whose partners are not registered as concrete services (its invokes go
 * to its WSDL's addresses), and a composite the knowledge base remembers but this broker does not
 * deploy is not planned for. On a broker that planned every composite or none, every solve failed
 * ("no available concrete service for task(s) [EchoPair/...]") and the seed's plan stayed.
 */
@Tag("e2e")
class UnmanagedProcessTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final ObjectMapper JSON = new ObjectMapper();
    static final String OPERATOR = "Basic " + Base64.getEncoder().encodeToString("operator:operator-demo".getBytes());
    @TempDir static Path work;
    static ChildProcess stubs, broker;
    static EchoPartner partner;
    static int stubPort;
    static String base;

    @BeforeAll
    static void start() throws Exception {
        stubs = new ChildProcess("io.moses.loadtest.stubs.StubServer", List.of("--port", "0"));
        stubPort = Integer.parseInt(stubs.await(Pattern.compile("stubs listening on http://[^:]+:(\\d+)"), 60));
        partner = new EchoPartner(0);
        // the echo pair process with its partners at this test's partner: addresses no concrete service names
        Path unit = Files.createDirectories(work.resolve("echo-pair"));
        try (var files = Files.list(Path.of("src/test/resources/processes/echo-pair"))) {
            for (Path f : files.toList())
                Files.writeString(unit.resolve(f.getFileName()), Files.readString(f)
                        .replace("http://127.0.0.1:19091", "http://127.0.0.1:" + partner.server.getAddress().getPort()));
        }
        broker = startBroker(true);
    }

    static ChildProcess startBroker(boolean withEchoPair) throws Exception {
        List<String> args = new ArrayList<>(List.of("--port", "0", "--work", work.resolve("broker").toString(),
                "--deploy", "../bpel-processes/trip-planner", "--seed", "../bpel-processes/trip-planner/seed.yaml",
                "--set", "STUBS=http://127.0.0.1:" + stubPort, "--monitor-period", "500", "--probe-period", "500", "--hold", "1000"));
        if (withEchoPair) args.addAll(List.of("--deploy", work.resolve("echo-pair").toString()));
        ChildProcess b = new ChildProcess("io.moses.core.Main", args);
        // 300 s only bounds a hang: a broker on a loaded machine once took over 90 s to start
        base = "http://127.0.0.1:" + Integer.parseInt(b.await(BrokerProcessTest.LISTENING, 300));
        return b;
    }

    @AfterAll
    static void stop() throws Exception {
        if (broker != null) broker.close();
        if (stubs != null) stubs.close();
        if (partner != null) partner.close();
    }

    static JsonNode get(String path) throws Exception {
        return JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", OPERATOR).build(),
                HttpResponse.BodyHandlers.ofString()).body());
    }

    static void stub(String service, String json) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + stubPort + "/admin/services/" + service))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
    }

    static HttpResponse<String> echoPair(String text) throws Exception {
        String body = "<s:Envelope xmlns:s='http://schemas.xmlsoap.org/soap/envelope/'><s:Body>"
                + "<e:pair xmlns:e='urn:moses:test:echo-pair'><e:text>" + text + "</e:text></e:pair></s:Body></s:Envelope>";
        return HTTP.send(HttpRequest.newBuilder(URI.create(base + "/services/EchoPairService"))
                .header("Content-Type", "text/xml; charset=utf-8").header("SOAPAction", "\"urn:moses:test:echo-pair/pair\"")
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("alice:alice-demo".getBytes()))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A service the plan gives some class's task on its own (or first in an alternate or a hedge). */
    static String serviceCalledFirst() throws Exception {
        for (JsonNode b : get("/admin/plan").path("bindings"))
            for (JsonNode s : b.path("shares")) {
                String impl = s.path("implementation").asText();
                if (s.path("fraction").asDouble() >= 0.5 && !impl.startsWith("par(") && b.path("task").asText().startsWith("hotel"))
                    return impl.startsWith("alt(") || impl.startsWith("hedge(") ? impl.substring(impl.indexOf('(') + 1, impl.indexOf(',')) : impl;
            }
        throw new AssertionError("no hotel service called on its own: " + get("/admin/plan"));
    }

    @Test
    void theTripPlannerKeepsAdaptingBesideAnUnmanagedProcess() throws Exception {
        // the start solve succeeds: the optimizer's plan replaces the seed's
        Waits.until("an optimizer's plan at start", 120,
                () -> get("/admin/plan").path("version").asLong() >= 2, () -> broker.output());
        assertTrue(!get("/admin/plan").path("solver").asText().equals("seed"), get("/admin/plan").toString());
        // planned once its providers answer their probes (a provider the WS Monitor finds down makes
        // a composite unplanned for as long, rightly); a broker that let EchoPair stop it never is
        Waits.until("the trip planner planned beside the unmanaged process", 60,
                () -> get("/health").path("adaptation").path("planning").path("planned").toString().equals("[\"TripPlanner\"]"), () -> broker.output());
        JsonNode planning = get("/health").path("adaptation").path("planning");
        assertTrue(planning.path("unplanned").path("EchoPair").asText().startsWith("unmanaged: no concrete service registered for"), planning.toString());
        assertTrue(planning.path("unmanagedTasks").toString().contains("EchoPair/left"), planning.toString());
        for (JsonNode b : get("/admin/plan").path("bindings"))
            assertEquals("TripPlanner", b.path("composite").asText(), "no binding for an unmanaged task: " + b);

        // its invokes go to the WSDL's addresses
        HttpResponse<String> r = echoPair("hello");
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(partner.calls.get() >= 2, "both partner calls reached the WSDL's address: " + partner.calls.get());

        // under traffic, a hotel service the plan relies on slows down: the optimizer makes a new plan
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger echoFailures = new AtomicInteger();
        List<Thread> clients = new ArrayList<>();
        for (String[] u : new String[][] {{"alice", "alice-demo"}, {"carl", "carl-demo"}}) {
            Thread t = new Thread(() -> {
                for (int i = 0; i < 100_000 && running.get(); i++) {
                    try {
                        TripPlannerEndToEndTest.planTrip(u[0], u[1], true, 1, base);
                        if (i % 10 == 0 && echoPair("x" + i).statusCode() != 200) echoFailures.incrementAndGet();
                    } catch (Exception e) {
                        // counted by the broker; this test judges the plans
                    }
                }
            });
            t.setDaemon(true);
            t.start();
            clients.add(t);
        }
        try {
            String slow = serviceCalledFirst();
            long before = get("/admin/plan").path("version").asLong();
            stub(slow, "{\"latencyMs\":3000,\"distribution\":\"fixed\"}");
            Waits.until("a new plan because " + slow + " slowed down", 120, () -> {
                for (JsonNode p : get("/admin/plans?n=50"))
                    if (p.path("version").asLong() > before && p.path("reason").asText().contains(slow)) return true;
                return false;
            }, () -> broker.output());
        } finally {
            running.set(false);
            for (Thread t : clients) t.join(30_000);
        }
        assertEquals(0, echoFailures.get(), "the unmanaged process's requests");
    }

    @Test
    void aCompositeRememberedButNotDeployedIsNotPlannedFor() throws Exception {
        // the same knowledge base (it holds EchoPair's model), a broker that deploys the trip planner only
        Waits.until("an optimizer's plan at start", 120,
                () -> get("/admin/plan").path("version").asLong() >= 2, () -> broker.output());
        broker.close();
        broker = startBroker(false);
        long before = get("/admin/plan").path("version").asLong();
        JsonNode adaptation = get("/health").path("adaptation");
        assertEquals("[\"TripPlanner\"]", adaptation.path("planning").path("planned").toString(), adaptation.toString());
        HttpResponse<String> replan = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/admin/replan")).header("Authorization", OPERATOR)
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertTrue(replan.statusCode() < 300, replan.statusCode() + " " + replan.body());
        Waits.until("a new plan after the operator's re-plan", 60,
                () -> get("/admin/plan").path("version").asLong() > before, () -> broker.output());
        assertTrue(get("/health").path("adaptation").path("notDeployed").toString().contains("EchoPair"), get("/health").toString());
        assertEquals(404, echoPair("gone").statusCode());
    }
}
