package io.moses.loadtest.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("e2e")
class ClosedLoopDriverTest {
    private SoapTestServer server;

    @BeforeEach
    void start() throws Exception {
        server = new SoapTestServer(0);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private LoadSpec.Builder spec(BodySource bodies) {
        return LoadSpec.builder(server.uri(), bodies).soapAction("urn:test/op").requestTimeout(Duration.ofSeconds(5));
    }

    @Test
    void sendsExactlyMaxRequestsAfterTheWarmUp() throws Exception {
        LoadResult r = ClosedLoopDriver.run(spec(BodySource.fixed(SoapTestServer.body("ok", "a")))
                .clients(7).maxRequests(503).warmupRequests(50).build());
        assertEquals(503, r.requests());
        assertEquals(503, r.successes());
        assertEquals(0, r.errorCount());
        assertEquals(50, r.warmupRequests());
        assertEquals(503, r.latency().samples());
        assertEquals(553, server.received.get(), "the server saw warm-up plus measured requests, no more");
        assertTrue(r.elapsedSeconds() > 0);
        assertEquals(r.requests() / r.elapsedSeconds(), r.throughput(), 1e-9);
    }

    @Test
    void durationBoundStopsTheRunInTime() throws Exception {
        server.delayMs = 5;
        LoadResult r = ClosedLoopDriver.run(spec(BodySource.fixed(SoapTestServer.body("ok", "a")))
                .clients(4).maxDuration(Duration.ofMillis(1000)).build());
        assertTrue(r.elapsedSeconds() >= 1.0, "not before its bound: elapsed " + r.elapsedSeconds());
        // closed loop, 4 clients, >= 5 ms each: at most 4 requests per 5 ms of the run
        assertTrue(r.requests() > 20 && r.requests() <= 4 * r.elapsedSeconds() * 1000 / 5 + 4, "requests " + r.requests());
        // stopped: every client has ended, nothing more reaches the server
        assertEquals(r.requests(), server.received.get());
    }

    @Test
    void whicheverBoundComesFirstWins() throws Exception {
        server.delayMs = 5;
        LoadResult countFirst = ClosedLoopDriver.run(spec(BodySource.fixed(SoapTestServer.body("ok", "a")))
                .clients(2).maxRequests(20).maxDuration(Duration.ofSeconds(20)).build());
        assertEquals(20, countFirst.requests());

        LoadResult timeFirst = ClosedLoopDriver.run(spec(BodySource.fixed(SoapTestServer.body("ok", "a")))
                .clients(2).maxRequests(1_000_000).maxDuration(Duration.ofMillis(500)).build());
        assertTrue(timeFirst.requests() < 1_000_000 && timeFirst.requests() > 0);
        assertTrue(timeFirst.elapsedSeconds() >= 0.5, "elapsed " + timeFirst.elapsedSeconds());
    }

    @Test
    void latencyPercentilesAreOrderedAndIncludeTheServerDelay() throws Exception {
        server.delayMs = 20;
        LoadResult r = ClosedLoopDriver.run(spec(BodySource.fixed(SoapTestServer.body("ok", "a")))
                .clients(4).maxRequests(120).build());
        LoadResult.Latency l = r.latency();
        assertEquals(120, l.samples());
        assertTrue(l.p50Ms() >= 20, "p50 " + l.p50Ms());
        assertTrue(l.meanMs() >= 20, "mean " + l.meanMs());
        assertTrue(l.p50Ms() <= l.p95Ms() && l.p95Ms() <= l.p99Ms() && l.p99Ms() <= l.maxMs(), l.toString());
        assertTrue(l.p50Ms() < 500, "p50 " + l.p50Ms());
        // closed loop: 4 clients with ~20+ ms each cannot exceed 200 req/s
        assertTrue(r.throughput() <= 4 * 1000.0 / 20 * 1.05, "throughput " + r.throughput());
        assertTrue(r.throughput() > 4 * 1000.0 / l.maxMs() * 0.5, "throughput " + r.throughput());
    }

    @Test
    void errorsAreClassifiedByKindWithExamples() throws Exception {
        server.slowMs = 1500;
        LoadResult r = ClosedLoopDriver.run(spec(BodySource.roundRobin(List.of(SoapTestServer.body("ok", "a"),
                        SoapTestServer.body("fault", "a"), SoapTestServer.body("500", "a"), SoapTestServer.body("slow", "a"))))
                .clients(4).maxRequests(40).requestTimeout(Duration.ofMillis(300)).build());
        assertEquals(40, r.requests());
        assertEquals(10, r.successes());
        assertEquals(30, r.errorCount());
        assertEquals(10, r.errorCount(ErrorKind.SOAP_FAULT));
        assertEquals(10, r.errorCount(ErrorKind.HTTP_STATUS));
        assertEquals(10, r.errorCount(ErrorKind.TIMEOUT));
        assertEquals(0, r.errorCount(ErrorKind.CONNECTION));
        assertEquals(List.of("HTTP 500: Server busy & tired"), r.errors().get(ErrorKind.SOAP_FAULT).examples());
        assertEquals(List.of("HTTP 503: Service Unavailable"), r.errors().get(ErrorKind.HTTP_STATUS).examples());
        assertEquals(List.of("no reply within 300 ms"), r.errors().get(ErrorKind.TIMEOUT).examples());
        assertEquals(10, r.latency().samples(), "latency of successful requests only");
        String report = r.report();
        assertTrue(report.contains("SOAP_FAULT x10") && report.contains("Server busy & tired"), report);
    }

    @Test
    void connectionRefusedIsAConnectionError() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort(); // closed again: nobody listens there
        }
        LoadResult r = ClosedLoopDriver.run(LoadSpec.builder(URI.create("http://127.0.0.1:" + port + "/soap"),
                BodySource.fixed(SoapTestServer.body("ok", "a"))).clients(2).maxRequests(6).build());
        assertEquals(6, r.requests());
        assertEquals(6, r.errorCount(ErrorKind.CONNECTION));
        assertFalse(r.errors().get(ErrorKind.CONNECTION).examples().isEmpty());
        assertTrue(r.errors().get(ErrorKind.CONNECTION).examples().get(0).contains("Connect"),
                r.errors().get(ErrorKind.CONNECTION).examples().toString());
        assertEquals(0, r.latency().samples());
        assertTrue(Double.isNaN(r.latency().p50Ms()));
        new ObjectMapper().readTree(r.toJson()); // no NaN in the JSON
    }

    @Test
    void tallyCountsCaptureGroupOfEveryMatchInSuccessfulReplies() throws Exception {
        LoadResult r = ClosedLoopDriver.run(spec(BodySource.roundRobin(List.of(SoapTestServer.body("ok", "svc-a"),
                        SoapTestServer.body("ok", "svc-a"), SoapTestServer.body("twice", "svc-b"), SoapTestServer.body("fault", "svc-b"))))
                .clients(3).maxRequests(80).warmupRequests(4).tally("by ([a-z]+-[ab])").build());
        // measured tickets 4..83: 20 of each body; "twice" replies name svc-b twice, faults are not tallied
        assertEquals(java.util.Map.of("svc-a", 40L, "svc-b", 40L), r.tally());
        assertEquals(20, r.errorCount(ErrorKind.SOAP_FAULT));
    }

    @Test
    void credentialsAreAssignedToClientsInTurnAndReportedPerUser() throws Exception {
        List<UserCredentials> users = List.of(new UserCredentials("alice", "pw-a"), new UserCredentials("bob", "pw-b"));
        LoadResult r = ClosedLoopDriver.run(spec(BodySource.fixed(SoapTestServer.body("ok", "a")))
                .clients(3).maxRequests(90).credentials(users).build());
        assertEquals(2, r.perUser().size());
        LoadResult.UserStats alice = r.perUser().get("alice"), bob = r.perUser().get("bob");
        assertEquals(90, alice.requests() + bob.requests());
        assertEquals(alice.requests(), server.byAuthorization.get(users.get(0).authorizationHeader()).get());
        assertEquals(bob.requests(), server.byAuthorization.get(users.get(1).authorizationHeader()).get());
        assertEquals(alice.requests(), alice.latency().samples());
        assertFalse(server.byAuthorization.containsKey(""), "every request carried credentials");
        assertFalse(r.report().contains("pw-a"), "no passwords in the report");
    }

    @Test
    void sendsSoap11AndSoap12Headers() throws Exception {
        ClosedLoopDriver.run(spec(BodySource.fixed(SoapTestServer.body("ok", "a"))).maxRequests(2).build());
        assertEquals("text/xml; charset=utf-8", server.contentTypes.get(0));
        assertEquals("\"urn:test/op\"", server.soapActions.get(0));
        server.contentTypes.clear();
        server.soapActions.clear();
        String soap12 = "<s:Envelope xmlns:s=\"http://www.w3.org/2003/05/soap-envelope\"><s:Body><x/></s:Body></s:Envelope>";
        LoadResult r = ClosedLoopDriver.run(spec(BodySource.fixed(soap12)).maxRequests(2).build());
        assertEquals(2, r.successes());
        assertEquals("application/soap+xml; charset=utf-8; action=\"urn:test/op\"", server.contentTypes.get(0));
        assertEquals("null", server.soapActions.get(0));
    }

    @Test
    void progressIsReportedWhileRunning() throws Exception {
        server.delayMs = 5;
        List<Progress> seen = new CopyOnWriteArrayList<>();
        ClosedLoopDriver.run(spec(BodySource.fixed(SoapTestServer.body("ok", "a"))).clients(2)
                .maxDuration(Duration.ofMillis(800)).progress(seen::add).progressInterval(Duration.ofMillis(150)).build());
        assertTrue(seen.size() >= 3, "progress calls " + seen.size());
        for (int i = 1; i < seen.size(); i++) {
            assertTrue(seen.get(i).requests() >= seen.get(i - 1).requests());
            assertTrue(seen.get(i).seconds() > seen.get(i - 1).seconds());
        }
        Progress last = seen.get(seen.size() - 1);
        assertTrue(last.requests() > 0);
        assertTrue(last.toString().matches("  \\[\\d+\\.\\ds\\] \\d+ requests, \\d+ req/s, 0 errors"), last.toString());
    }

    @Test
    void jsonAndReportCarryTheFigures() throws Exception {
        server.delayMs = 2;
        LoadResult r = ClosedLoopDriver.run(spec(BodySource.roundRobin(List.of(SoapTestServer.body("ok", "svc-a"),
                        SoapTestServer.body("fault", "x")))).clients(2).maxRequests(10).tally("by ([a-z]+-[ab])")
                .credentials(List.of(UserCredentials.parse("carol:secret:with:colons"))).build());
        String json = r.toJson();
        assertFalse(json.contains("\n"));
        JsonNode n = new ObjectMapper().readTree(json);
        assertEquals(10, n.get("requests").asLong());
        assertEquals(5, n.get("successes").asLong());
        assertEquals(5, n.get("errors").get("SOAP_FAULT").get("count").asLong());
        assertEquals(5, n.get("tally").get("svc-a").asLong());
        assertTrue(n.get("latencyMs").get("p50").asDouble() >= 2);
        assertEquals(10, n.get("perUser").get("carol").get("requests").asLong());
        assertFalse(json.contains("secret"));
        String report = r.report();
        assertTrue(report.startsWith("requests    10 (5 ok, 5 errors), 2 clients"), report);
        assertTrue(report.contains("tally       svc-a 5 (100.0%)"), report);
        assertTrue(report.contains("p95"), report);
    }

    @Test
    void aFailingBodySourceFailsTheRunWithAClearError() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> ClosedLoopDriver.run(spec((seq, user) -> {
            if (seq == 3) throw new IllegalArgumentException("no body #3");
            return SoapTestServer.body("ok", "a");
        }).clients(2).maxRequests(10).build()));
        assertTrue(e.getMessage().contains("no body #3"), e.getMessage());
    }

    @Test
    void clientPerThreadTransportWorksToo() throws Exception {
        LoadResult r = ClosedLoopDriver.run(spec(BodySource.fixed(SoapTestServer.body("ok", "a"))).clients(5).maxRequests(100).build(),
                ClosedLoopDriver.Transport.CLIENT_PER_THREAD);
        assertEquals(100, r.successes());
        assertNotNull(r.latency());
    }
}
