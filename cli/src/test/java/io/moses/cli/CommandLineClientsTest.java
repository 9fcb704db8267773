package io.moses.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.moses.management.PlanFormat;
import io.moses.model.Implementation;
import io.moses.model.Plan;
import io.moses.model.TaskRef;
import io.moses.model.auth.BasicCredentials;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The command-line clients in their own JVMs on this module's class path (what {@code ./moses}
 * runs them on), against a small HTTP server that answers as a broker would. The end-to-end
 * runs against a real broker are broker-core's (SlaManagerSoapTest, WhatIfTest,
 * TripPlannerEndToEndTest).
 */
@Tag("e2e")
class CommandLineClientsTest {
    private HttpServer server;
    private String base;
    private final List<String> authorizations = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void planPrintsThePlanInForceAsATableAndSendsTheOperatorsCredentials() throws Exception {
        TaskRef flight = TaskRef.of("Trip", "flight", "findFlight");
        Plan plan = new Plan(3, Instant.parse("2026-11-25T08:00:00Z"), Map.of(new Plan.Key("gold", flight),
                List.of(new Plan.Share(Implementation.hedged("flight0", "flight1", 0.1523), 1.0))), Map.of(), 0.5, "clp", 1, List.of(), "test");
        answer("/admin/plan", 200, "application/json", PlanFormat.toJson(plan));
        var run = run("io.moses.cli.PlanCommand", Map.of("MOSES_PASSWORD", "olga-secret"), "--broker", base, "--user", "olga");
        assertEquals(0, run.exit(), run.output());
        assertTrue(run.output().contains("plan 3") && run.output().contains("hedge(flight0,flight1;d=0.1523): 1.000"), run.output());
        assertEquals(List.of(new BasicCredentials("olga", "olga-secret").header()), authorizations);
    }

    @Test
    void slaPrintsTheReasonOfAFaultAndExitsWithOne() throws Exception {
        String wsdl;
        try (InputStream in = getClass().getResourceAsStream("/io/moses/sla/SlaManager.wsdl")) {
            wsdl = new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("http://localhost/manage/sla", base + "/manage/sla");
        }
        String fault = """
                <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><soap:Fault>\
                <faultcode>soap:Client</faultcode><faultstring>UNAVAILABLE: knowledge base unavailable</faultstring>\
                <detail><m:slaFault xmlns:m="urn:moses:sla-manager"><m:code>UNAVAILABLE</m:code>\
                <m:message>knowledge base unavailable</m:message></m:slaFault></detail></soap:Fault></soap:Body></soap:Envelope>""";
        server.createContext("/manage/sla", x -> {
            if (x.getRequestMethod().equals("GET")) respond(x, 200, "text/xml", wsdl);
            else {
                x.getRequestBody().readAllBytes();
                respond(x, 500, "text/xml; charset=UTF-8", fault);
            }
        });
        var run = run("io.moses.cli.SlaCommand", Map.of(), "classes", "--broker", base);
        assertEquals(1, run.exit(), run.output());
        assertTrue(run.output().contains("refused (UNAVAILABLE): knowledge base unavailable"), run.output());
    }

    @Test
    void usageExitsWithZeroAndAnUnreachableBrokerWithOne() throws Exception {
        var help = run("io.moses.cli.SlaCommand", Map.of(), "--help");
        assertEquals(0, help.exit(), help.output());
        assertTrue(help.output().contains("usage: moses sla"), help.output());
        var bad = run("io.moses.cli.ServicesCommand", Map.of(), "list", "--broker", base, "--nosuch", "x");
        assertEquals(2, bad.exit(), bad.output());
        assertTrue(bad.output().contains("unknown option --nosuch"), bad.output());
        String nobody = "http://127.0.0.1:1"; // a port nobody listens on
        var gone = run("io.moses.cli.ServicesCommand", Map.of("MOSES_PASSWORD", "x"), "list", "--broker", nobody, "--user", "olga");
        assertEquals(1, gone.exit(), gone.output());
        assertTrue(gone.output().contains("cannot talk to the broker at " + nobody), gone.output());
    }

    private void answer(String path, int status, String type, String body) {
        server.createContext(path, x -> respond(x, status, type, body));
    }

    private void respond(HttpExchange x, int status, String type, String body) throws IOException {
        String auth = x.getRequestHeaders().getFirst("Authorization");
        if (auth != null) authorizations.add(auth);
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().set("Content-Type", type);
        x.sendResponseHeaders(status, bytes.length);
        x.getResponseBody().write(bytes);
        x.close();
    }

    private record Run(int exit, String output) {}

    /** A client's main class in its own JVM on this JVM's class path, without the caller's MOSES_* variables. */
    private static Run run(String mainClass, Map<String, String> env, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), mainClass));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("MOSES_"));
        pb.environment().putAll(env);
        Process p = pb.start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), mainClass + " did not end: " + out);
            return new Run(p.exitValue(), out);
        } finally {
            p.destroyForcibly();
        }
    }
}
