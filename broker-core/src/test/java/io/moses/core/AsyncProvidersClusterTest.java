package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.mdal.testing.MariaDbServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Asynchronous suppliers behind HAProxy: bpel-processes/quote-async (in memory) on two replicas
 * over MariaDB, given {@code --public-url} the front's address, with the stubs supplier-a and
 * supplier-b (kind async). Its own class: the quote-async seed's classes, users and plan replace
 * the whole plan, and another composite in a cluster test's knowledge base (the trip planner of
 * AdmissionClusterTest) left subscriptions unplannable ("unknown service class 'silver/QuoteAsync'").
 */
@Tag("e2e")
class AsyncProvidersClusterTest {
    @org.junit.jupiter.api.extension.RegisterExtension
    static final MariaDbServer MARIADB = new MariaDbServer();
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    @TempDir static Path dir;
    static StubServices stubs;
    static TestCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        TestCluster.requireHaProxy();
        stubs = new StubServices();
        cluster = new TestCluster(dir, MARIADB, List.of("r1", "r2"));
        // the front's port is chosen with HAProxy, before any replica: the replicas give partners
        // (the suppliers' replyTo) the front's address, as a cluster behind HAProxy must
        String[] common = {"--deploy", "../bpel-processes/quote-async", "--monitors", "none", "--optimizer", "off",
                "--public-url", cluster.front()};
        cluster.start("r1", ConversationShapesClusterTest.concat(List.of(common), "--seed", "../bpel-processes/quote-async/seed.yaml",
                "--set", "STUBS=" + stubs.url()));
        cluster.start("r2", common);
        cluster.haproxy.awaitUp(List.of("r1", "r2"), 60);
    }

    @AfterAll
    static void stop() throws Exception {
        if (cluster != null) cluster.close();
        if (stubs != null) stubs.close();
    }

    /**
     * quote-async through the front: each supplier's callback goes to the front (the replyTo the
     * replicas gave it), HAProxy takes it to either replica, and it reaches the instance, on its
     * owner, that awaits it. One quote at a time: its request holds a connection to the replica
     * that took it, so HAProxy (leastconn) gives the callback to the other one, which forwards it.
     */
    @Test
    void asynchronousSuppliersCallBackThroughTheFrontAndEachCallbackReachesItsQuote() throws Exception {
        stubs.reset(); // no credentials: the call's number names alice, and every replica holds the key
        int quotes = 20;
        Map<String, Integer> answeredBy = new java.util.TreeMap<>();
        for (int i = 0; i < quotes; i++) {
            String id = "cluster-q-" + i;
            HttpResponse<String> r = quote(id);
            assertEquals(200, r.statusCode(), () -> id + ": " + r.body() + cluster.logs());
            Matcher rid = AsyncProvidersEndToEndTest.REQUEST_ID.matcher(r.body());
            Matcher price = AsyncProvidersEndToEndTest.PRICE.matcher(r.body());
            assertTrue(rid.find() && price.find(), id + ": " + r.body());
            assertEquals(id, rid.group(1), "the callback of another quote answered " + id);
            String supplier = AsyncProvidersEndToEndTest.quotedBy(id, price.group(1));
            assertTrue(supplier != null, id + " answered with " + price.group(1) + ", no supplier's price for it");
            answeredBy.merge(supplier, 1, Integer::sum);
        }
        long requests = 0;
        for (String s : AsyncProvidersEndToEndTest.SUPPLIERS) {
            long got = stubs.requests(s);
            assertEquals(got, (long) answeredBy.getOrDefault(s, 0), s + ": each answer carries the price of the supplier called " + answeredBy);
            assertEquals(got, stubs.counter(s, "callbacksSent"), s + " failed callbacks: " + stubs.field(s, "lastFailure"));
            assertEquals(0, stubs.counter(s, "withoutReplyTo"), s + ": requests whose replyTo held no address");
            if (got > 0) {
                String replyTo = stubs.field(s, "lastReplyTo");
                assertTrue(replyTo != null && replyTo.startsWith(cluster.front() + "/services/QuoteCallbackService?moses-call="),
                        s + ": the reply address is the front's: " + replyTo);
            }
            requests += got;
        }
        assertEquals(quotes, requests, "one request per quote: " + answeredBy);
        // every callback was attributed to its call, on the replica that made it
        for (String r : cluster.replicas.keySet()) {
            AsyncProvidersEndToEndTest.JsonCallbacks c = AsyncProvidersEndToEndTest.JsonCallbacks.of(cluster.replica(r));
            assertEquals(0, c.late(), r + ": " + c);
            assertEquals(0, c.awaited(), r + ": " + c);
        }
        double forwarded = 0;
        for (String r : cluster.replicas.keySet()) {
            String metrics = HTTP.send(HttpRequest.newBuilder(URI.create(cluster.replica(r) + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            Matcher m = Pattern.compile("(?m)^moses_conversation_forwarded_total(?:\\{[^}]*\\})? ([0-9.E]+)").matcher(metrics);
            assertTrue(m.find(), "no forwarded counter on " + r);
            forwarded += Double.parseDouble(m.group(1));
        }
        // HAProxy (leastconn) gives a callback the replica the quote's request does not hold: the other one forwards it
        assertTrue(forwarded >= 1, "no callback was forwarded to its owner (" + forwarded + " of " + quotes + "), HAProxy's 2xx per replica: "
                + cluster.haproxy.answered2xx());
    }

    static HttpResponse<String> quote(String requestId) throws Exception {
        String body = "<soap:Envelope xmlns:soap='http://schemas.xmlsoap.org/soap/envelope/'><soap:Body>"
                + "<qa:quote xmlns:qa='urn:moses:quote-async'><qa:requestId>" + requestId + "</qa:requestId><qa:item>item-" + requestId
                + "</qa:item></qa:quote></soap:Body></soap:Envelope>";
        return HTTP.send(HttpRequest.newBuilder(URI.create(cluster.front() + "/services/QuoteAsyncService"))
                .header("Content-Type", "text/xml; charset=utf-8").header("SOAPAction", "\"urn:moses:quote-async/quote\"")
                .header("Authorization", "Basic " + java.util.Base64.getEncoder().encodeToString("alice:alice-demo".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .timeout(Duration.ofSeconds(60)) // bounds a hang only: the seed's callback timeout is 10 s
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
