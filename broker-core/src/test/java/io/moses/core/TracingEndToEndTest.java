package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.loadtest.demo.TraceCollector;
import io.moses.loadtest.demo.TraceCollector.Span;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Traces end to end (docs/tracing.md): the stub services, a broker exporting OTLP/HTTP to a real
 * receiver that decodes the wire format, and the trip planner's seed (gold: par for the searches,
 * alt for the rest). What the spans say is checked against what the stubs saw. Its log is JSON
 * lines ({@code --log-format json}), a request's with the ids of its trace.
 */
@Tag("e2e")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TracingEndToEndTest {
    static final String SERVICE_NAME = "moses-e2e";
    /** The gold class's plan in the seed, by task. */
    static final Map<String, String> GOLD = Map.of(
            "flight.findFlight", "par(flight-a,flight-b)", "hotel.findHotel", "par(hotel-a,hotel-b)",
            "weather.getForecast", "par(weather-a,weather-b)", "car.rentCar", "alt(car-a,car-b)",
            "attraction.bookAttraction", "alt(attraction-a,attraction-b)", "payment.charge", "alt(payment-a,payment-b)");
    static final List<String> SERVICES = GOLD.keySet().stream().map(t -> t.substring(0, t.indexOf('.')))
            .flatMap(t -> java.util.stream.Stream.of(t + "-a", t + "-b")).sorted().toList();
    static TraceCollector receiver;
    static StubServices stubs;
    static ChildProcess broker;
    static int brokerPort;
    @TempDir static Path work;

    @BeforeAll
    static void start() throws Exception {
        receiver = new TraceCollector();
        stubs = new StubServices();
        // the standard settings, as an operator gives them; spans go out every 100 ms
        broker = stubs.broker(work, Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint(), "OTEL_SERVICE_NAME", SERVICE_NAME,
                        "OTEL_BSP_SCHEDULE_DELAY", "100"),
                "--deploy", "../bpel-processes/trip-planner", "--seed", "../bpel-processes/trip-planner/seed.yaml",
                "--monitors", "none", "--optimizer", "off", "--log-format", "json",
                // one composite request at a time, none waiting: a second one while it runs is refused (and logged)
                "--max-in-flight", "1", "--max-queued", "0");
        brokerPort = Integer.parseInt(broker.await(BrokerProcessTest.LISTENING, 90));
    }

    @AfterAll
    static void stop() throws Exception {
        if (broker != null) broker.close();
        if (stubs != null) stubs.close();
        if (receiver != null) receiver.close();
    }

    static HttpResponse<String> planTrip(String traceparent) throws Exception {
        return TripPlannerEndToEndTest.HTTP.send(planTripRequest(traceparent), HttpResponse.BodyHandlers.ofString());
    }

    static HttpRequest planTripRequest(String traceparent) {
        String body = "<soap:Envelope xmlns:soap='http://schemas.xmlsoap.org/soap/envelope/'><soap:Body>"
                + "<tp:planTrip xmlns:tp='urn:moses:trip-planner'><tp:customer>alice</tp:customer>"
                + "<tp:destination>Rome</tp:destination><tp:departure>2026-06-01</tp:departure><tp:nights>3</tp:nights>"
                + "<tp:needsCar>true</tp:needsCar><tp:attractions>1</tp:attractions></tp:planTrip>"
                + "</soap:Body></soap:Envelope>";
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + brokerPort + "/services/TripPlannerService"))
                .header("Content-Type", "text/xml; charset=utf-8")
                .header("SOAPAction", "\"urn:moses:trip-planner/planTrip\"")
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("alice:alice-demo".getBytes()))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (traceparent != null) req.header("traceparent", traceparent);
        return req.build();
    }

    static List<Span> kind(List<Span> spans, String kind) {
        return spans.stream().filter(s -> s.kind().equals(kind)).toList();
    }

    /** A call's W3C traceparent without its flags: version, trace id, span id. */
    static String traceparentOf(Span call) {
        return "00-" + call.traceId() + "-" + call.spanId();
    }

    /** A received traceparent without its flags, which must say sampled (the random flag may be set besides). */
    static String withoutFlags(String traceparent) {
        String[] parts = traceparent.split("-");
        assertEquals(4, parts.length, traceparent);
        assertEquals(1, Integer.parseInt(parts[3], 16) & 1, "sampled: " + traceparent);
        return parts[0] + "-" + parts[1] + "-" + parts[2];
    }

    /** The calls the stubs counted, by service. */
    static Map<String, Long> stubCounts() throws Exception {
        Map<String, Long> out = new TreeMap<>();
        for (String s : SERVICES) out.put(s, stubs.requests(s));
        return out;
    }

    @Test
    @Order(1)
    void eachRequestIsOneTraceOfItsInvokesAndTheirCallsAsTheStubsSawThem() throws Exception {
        stubs.reset();
        int n = 8;
        for (int i = 0; i < n; i++) {
            HttpResponse<String> r = planTrip(null);
            assertEquals(200, r.statusCode(), r.body());
        }
        long sent = stubCounts().values().stream().mapToLong(Long::longValue).sum();
        // every call a stub counted has its client span (a 1-out-of-n loser's ends with its late reply)
        List<Span> spans = receiver.await(s -> kind(s, "SERVER").size() >= n && kind(s, "CLIENT").size() >= sent, 30);
        assertEquals(0, receiver.refused(), "every export is OTLP/HTTP protobuf to /v1/traces");
        List<Span> servers = kind(spans, "SERVER");
        assertEquals(n, servers.size(), "one server span per request: " + servers);
        assertEquals(n, servers.stream().map(Span::traceId).distinct().count(), "one trace per request");
        Map<String, Long> counts = stubCounts();
        for (Span server : servers) {
            assertEquals(SERVICE_NAME, server.service(), "OTEL_SERVICE_NAME names the broker");
            assertEquals("", server.parentSpanId().replace("0", ""), "a request without traceparent starts a trace");
            assertEquals("planTrip", server.string("moses.operation"));
            assertEquals("TripPlanner/planTrip", server.name(), "the request's span is named after its composite and operation");
            assertEquals("gold", server.string("moses.class"));
            assertEquals("ok", server.string("moses.outcome"));
            assertEquals(200L, server.attributes().get("http.response.status_code"));
            assertEquals("POST", server.string("http.request.method"));
            List<Span> trace = spans.stream().filter(s -> s.traceId().equals(server.traceId())).toList();
            List<Span> invokes = kind(trace, "INTERNAL");
            assertEquals(new TreeSet<>(GOLD.keySet()), invokes.stream().map(s -> s.string("moses.task")).collect(Collectors.toCollection(TreeSet::new)),
                    "an invoke span per task");
            for (Span invoke : invokes) {
                String task = invoke.string("moses.task");
                assertEquals(server.spanId(), invoke.parentSpanId(), task + ": a child of the request's span");
                assertEquals("invoke " + task, invoke.name());
                assertEquals(GOLD.get(task), invoke.string("moses.implementation"), task + ": the plan's implementation");
                assertEquals(GOLD.get(task).startsWith("par") ? "parallel" : "alternate", invoke.string("moses.pattern"));
                assertNotNull(invoke.attributes().get("moses.plan.version"), task + ": the plan's version");
                assertEquals("gold", invoke.string("moses.class"));
                assertEquals("reply", invoke.string("moses.outcome"));
                List<Span> calls = kind(trace, "CLIENT").stream().filter(c -> c.parentSpanId().equals(invoke.spanId())).toList();
                List<Span> used = calls.stream().filter(c -> !c.flag("moses.call.discarded")).toList();
                assertEquals(1, used.size(), task + ": one call's reply is used: " + calls);
                assertEquals(invoke.string("moses.answered_by"), used.get(0).string("moses.provider"), task + ": the call that answered");
                assertEquals("reply", used.get(0).string("moses.call.end"));
                if (GOLD.get(task).startsWith("par"))
                    assertEquals(2, calls.size(), task + ": 1-out-of-2 calls both, the loser discarded: " + calls);
                for (Span c : calls) {
                    assertEquals("127.0.0.1", c.string("server.address"));
                    assertEquals("call " + c.string("moses.provider"), c.name());
                    assertTrue(!c.flag("moses.call.retry") && !c.flag("moses.call.hedge") && !c.flag("moses.call.exploration")
                            && !c.flag("moses.call.trial"), "healthy stubs: no retry, hedge, exploration or trial: " + c);
                }
            }
            assertEquals(invokes.size() + 1 + kind(trace, "CLIENT").size(), trace.size(), "nothing else in the trace");
        }
        Map<String, Long> byProvider = new TreeMap<>();
        for (String s : SERVICES) byProvider.put(s, 0L);
        for (Span c : kind(spans, "CLIENT")) byProvider.merge(c.string("moses.provider"), 1L, Long::sum);
        assertEquals(counts, byProvider, "the providers named in the client spans are the calls the stubs counted");
        for (String s : SERVICES) {
            List<String> expected = kind(spans, "CLIENT").stream().filter(c -> s.equals(c.string("moses.provider")))
                    .map(TracingEndToEndTest::traceparentOf).sorted().toList();
            List<String> received = new ArrayList<>(stubs.traceparents(s).stream().map(TracingEndToEndTest::withoutFlags).toList());
            received.sort(null);
            assertEquals(expected, received, s + ": the traceparent each call carried is its client span's");
        }
    }

    @Test
    @Order(2)
    void aCallersTraceparentIsContinued() throws Exception {
        stubs.reset();
        Map<String, String> parents = new HashMap<>();
        for (int i = 0; i < 3; i++) {
            String traceId = HexFormat.of().formatHex(random(16)), parent = HexFormat.of().formatHex(random(8));
            parents.put(traceId, parent);
            HttpResponse<String> r = planTrip("00-" + traceId + "-" + parent + "-01");
            assertEquals(200, r.statusCode(), r.body());
        }
        Set<String> ids = parents.keySet();
        long sent = stubCounts().values().stream().mapToLong(Long::longValue).sum();
        List<Span> spans = receiver.await(s -> s.stream().filter(x -> ids.contains(x.traceId()) && x.kind().equals("CLIENT")).count() >= sent
                && s.stream().filter(x -> ids.contains(x.traceId()) && x.kind().equals("SERVER")).count() >= ids.size(), 30);
        for (var e : parents.entrySet()) {
            List<Span> trace = spans.stream().filter(s -> s.traceId().equals(e.getKey())).toList();
            List<Span> servers = kind(trace, "SERVER");
            assertEquals(1, servers.size(), "the request's span is in the caller's trace: " + trace);
            assertEquals(e.getValue(), servers.get(0).parentSpanId(), "the caller's span is its parent");
            assertEquals(GOLD.size(), kind(trace, "INTERNAL").size(), "its invokes are in the caller's trace");
            assertTrue(kind(trace, "CLIENT").size() >= GOLD.size(), "its calls are in the caller's trace");
        }
        long carried = 0;
        for (String s : SERVICES)
            for (String tp : stubs.traceparents(s)) {
                assertTrue(ids.contains(tp.split("-")[1]), s + " received a traceparent of the callers' traces: " + tp);
                carried++;
            }
        assertEquals(sent, carried, "every partner request carried the caller's trace");
    }

    @Test
    @Order(3)
    void theLineOfARequestRefusedForOverloadCarriesItsTraceId() throws Exception {
        java.util.concurrent.CompletableFuture<HttpResponse<String>> running = null;
        try {
            // the running request holds the only place for weather's 2 s
            for (String s : List.of("weather-a", "weather-b")) stubs.set(s, "{\"latencyMs\":2000,\"distribution\":\"fixed\"}");
            long before = stubs.requests("weather-a");
            running = TripPlannerEndToEndTest.HTTP.sendAsync(planTripRequest(null), HttpResponse.BodyHandlers.ofString());
            io.moses.testing.Waits.until("the first request reaching weather-a", 20, () -> stubs.requests("weather-a") != before);
            HttpResponse<String> refused = planTrip(null);
            assertEquals(503, refused.statusCode(), refused.body());
            // written on the refused request's thread, while its server span is current
            com.fasterxml.jackson.databind.JsonNode line = JSON.readTree(broker.await(java.util.regex.Pattern.compile("\"overloaded: "), 30));
            assertEquals("WARN", line.get("level").asText());
            String traceId = line.path("trace_id").asText(null), spanId = line.path("span_id").asText(null);
            assertNotNull(traceId, "the refused request's trace id: " + line);
            List<Span> spans = receiver.await(s -> s.stream().anyMatch(x -> x.spanId().equals(spanId)), 30);
            Span server = spans.stream().filter(x -> x.spanId().equals(spanId)).findFirst().orElseThrow();
            assertEquals("SERVER", server.kind(), "the line's span is the refused request's: " + server);
            assertEquals(traceId, server.traceId());
            assertEquals(503L, server.attributes().get("http.response.status_code"));
            assertEquals(200, running.get().statusCode(), "the running request was served");
        } finally {
            if (running != null) running.exceptionally(e -> null).get(30, java.util.concurrent.TimeUnit.SECONDS); // the place free for the next test
            stubs.reset();
        }
    }

    @Test
    @Order(4)
    void everyLogLineIsJsonAndAnEjectionNamesTheRequestWhoseCallFailed() throws Exception {
        try {
            // car: alt(car-a,car-b); every call to car-a ends with its connection dropped, and
            // the third in a row ejects it, on the thread that completed that call
            stubs.set("car-a", "{\"failureProbability\":1.0,\"failureKind\":\"drop\"}");
            for (int i = 0; i < 3; i++) planTrip(null); // each calls car-a once; whether car-b then answers is the seed's business
            String ejected = broker.await(java.util.regex.Pattern.compile("concrete service car-a ejected from selection"), 30);
            com.fasterxml.jackson.databind.JsonNode line = JSON.readTree(ejected);
            String traceId = line.path("trace_id").asText(null), spanId = line.path("span_id").asText(null);
            assertNotNull(traceId, "the ejection's line carries the trace id of the request whose call ejected car-a: " + ejected);
            assertNotNull(spanId, ejected);
            assertEquals("INFO", line.get("level").asText());
            assertEquals("io.moses.adaptation.ProviderHealth", line.get("logger").asText());
            List<Span> spans = receiver.await(s -> s.stream().anyMatch(x -> x.spanId().equals(spanId))
                    && s.stream().anyMatch(x -> x.kind().equals("SERVER") && x.traceId().equals(traceId)), 30);
            Span call = spans.stream().filter(x -> x.spanId().equals(spanId)).findFirst().orElseThrow();
            assertEquals("CLIENT", call.kind(), "the line's span is the failed call's: " + call);
            assertEquals(traceId, call.traceId());
            assertEquals("car-a", call.string("moses.provider"));
            assertEquals("protocol", call.string("moses.call.end"), "a dropped connection");
            Span request = spans.stream().filter(x -> x.kind().equals("SERVER") && x.traceId().equals(traceId)).findFirst().orElseThrow();
            assertEquals("TripPlanner/planTrip", request.name(), "the trace is the request's");
        } finally {
            stubs.reset();
        }
        List<String> lines = broker.output().lines().toList();
        assertTrue(lines.size() > 5, "the broker logged its start: " + lines);
        for (String l : lines) {
            com.fasterxml.jackson.databind.JsonNode n;
            try {
                n = JSON.readTree(l);
            } catch (com.fasterxml.jackson.core.JacksonException e) {
                throw new AssertionError("a line of the broker's output that is not JSON: " + l, e);
            }
            assertTrue(n.isObject() && n.hasNonNull("time") && n.hasNonNull("level") && n.hasNonNull("logger") && n.hasNonNull("message"),
                    "time, level, logger and message: " + l);
            if (n.get("message").asText().startsWith("broker listening on"))
                assertFalse(n.has("trace_id"), "no trace id outside a request: " + l);
        }
    }

    static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    @Test
    @Order(5)
    void theLatencyHistogramsExemplarsNameTracesOfRequestsInTheirBuckets() throws Exception {
        for (int i = 0; i < 3; i++) assertEquals(200, planTrip(null).statusCode());
        HttpResponse<String> open = TripPlannerEndToEndTest.HTTP.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + brokerPort + "/metrics"))
                .header("Accept", "application/openmetrics-text; version=1.0.0").build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, open.statusCode());
        assertTrue(open.headers().firstValue("Content-Type").orElse("").startsWith("application/openmetrics-text"),
                open.headers().firstValue("Content-Type").toString());
        // moses_composite_requests_seconds_bucket{...,le="0.089478485"} 2 # {span_id="...",trace_id="..."} 0.088675384
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                "(?m)^moses_composite_requests_seconds_bucket\\{[^}]*outcome=\"ok\"[^}]*} \\d+ # \\{([^}]*)} ([0-9.eE+-]+)").matcher(open.body());
        Set<String> named = new java.util.HashSet<>();
        while (m.find()) {
            if (named.isEmpty()) System.out.println("an exemplar: " + m.group());
            java.util.regex.Matcher id = java.util.regex.Pattern.compile("trace_id=\"([0-9a-f]{32})\"").matcher(m.group(1));
            assertTrue(id.find(), "an exemplar names its trace: " + m.group());
            assertTrue(Double.parseDouble(m.group(2)) > 0, "its value is the request's latency: " + m.group());
            named.add(id.group(1));
        }
        assertFalse(named.isEmpty(), "the composite histogram's buckets carry exemplars:\n" + open.body());
        // and the invokes' histogram, recorded on the thread each outcome came on, names the invoke's span
        java.util.regex.Matcher invokes = java.util.regex.Pattern.compile(
                "(?m)^moses_concrete_invokes_seconds_bucket\\{[^}]*} \\d+ # \\{[^}]*trace_id=\"([0-9a-f]{32})\"").matcher(open.body());
        Set<String> invokeTraces = new java.util.HashSet<>();
        while (invokes.find()) invokeTraces.add(invokes.group(1));
        assertFalse(invokeTraces.isEmpty(), "the invokes' histogram carries exemplars:\n" + open.body());
        named.addAll(invokeTraces);
        assertTrue(receiverHasAll(named), "each exemplar names a trace the broker exported: " + named);
        String plain = TripPlannerEndToEndTest.HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + brokerPort + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        assertFalse(plain.contains("trace_id="), "the Prometheus text format has no exemplars");
    }

    /** Whether every trace id was exported to the receiver. */
    private static boolean receiverHasAll(Set<String> traceIds) throws Exception {
        List<Span> spans = receiver.await(s -> s.stream().map(Span::traceId).collect(Collectors.toSet()).containsAll(traceIds), 30);
        return spans.stream().map(Span::traceId).collect(Collectors.toSet()).containsAll(traceIds);
    }

    private static byte[] random(int n) {
        byte[] b = new byte[n];
        do ThreadLocalRandom.current().nextBytes(b); while (b[0] == 0); // never the invalid all-zero id
        return b;
    }
}
