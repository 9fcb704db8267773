package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.testing.Waits;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Asynchronous providers end to end: bpel-processes/quote-async sends a one-way requestQuote to
 * a supplier with its own endpoint reference as replyTo, and answers its client with the price
 * of the supplier's later quoteReady callback, correlated on the request id. The suppliers are the
 * stubs supplier-a and supplier-b (kind async), the seed's plan gives each half of the quotes;
 * the stubs and a broker as real processes (no optimizer, no monitors).
 *
 * <p>The suppliers call back the address the process gave them: its myRole reference on the
 * partner link, the broker's /services/QuoteCallbackService, with the call's number added
 * ({@code ?moses-call=}). They send no credentials: the number names the conversation's user.
 */
@Tag("e2e")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AsyncProvidersEndToEndTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final String[] SUPPLIERS = {"supplier-a", "supplier-b"};
    /** The stubs' prices (default-stubs.yaml): a base per supplier, plus CRC-32(requestId) mod 1000 cents. */
    static final Map<String, Long> BASE_CENTS = Map.of("supplier-a", 10_000L, "supplier-b", 20_000L);
    static final int QUOTES = 50;
    static final int CALLERS = 4;
    static final int REQUEST_TIMEOUT_MS = 3_000;
    static final Pattern REQUEST_ID = Pattern.compile("<(?:\\w+:)?requestId[^>]*>([^<]*)</");
    static final Pattern PRICE = Pattern.compile("<(?:\\w+:)?price[^>]*>([^<]*)</");
    static final Pattern FAULT = Pattern.compile("<faultcode>([^<]*)</faultcode><faultstring>([^<]*)</faultstring>");
    static StubServices stubs;
    static ChildProcess broker;
    /** The second broker, whose plan alternates the suppliers (the last test's). */
    static ChildProcess alternating;
    /** Where {@link #quote} sends: the broker under test. */
    static String base;
    @TempDir static Path work;

    @BeforeAll
    static void start() throws Exception {
        stubs = new StubServices();
        broker = stubs.broker(work, "--deploy", "../bpel-processes/quote-async", "--seed", "../bpel-processes/quote-async/seed.yaml",
                "--monitors", "none", "--optimizer", "off", "--request-timeout", Integer.toString(REQUEST_TIMEOUT_MS));
        base = "http://127.0.0.1:" + broker.await(BrokerProcessTest.LISTENING, 90);
        // the first quotes of a fresh broker take seconds here (classes loaded, code compiled), near
        // the short request timeout the never-calling-back case needs: they are not what is judged
        callBackToTheBroker();
        run(CALLERS, CALLERS, "warm-up-");
    }

    @AfterAll
    static void stop() throws Exception {
        if (broker != null) broker.close();
        if (alternating != null) alternating.close();
        if (stubs != null) stubs.close();
    }

    /** Back to the stubs' defaults: they call back where the requests say, with no credentials. */
    static void callBackToTheBroker() throws Exception {
        stubs.reset();
    }

    static HttpResponse<String> quote(String requestId, String item) throws Exception {
        String body = "<soap:Envelope xmlns:soap='http://schemas.xmlsoap.org/soap/envelope/'><soap:Body>"
                + "<qa:quote xmlns:qa='urn:moses:quote-async'><qa:requestId>" + requestId + "</qa:requestId><qa:item>" + item
                + "</qa:item></qa:quote></soap:Body></soap:Envelope>";
        return HTTP.send(HttpRequest.newBuilder(URI.create(base + "/services/QuoteAsyncService"))
                .header("Content-Type", "text/xml; charset=utf-8")
                .header("SOAPAction", "\"urn:moses:quote-async/quote\"")
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("alice:alice-demo".getBytes(StandardCharsets.UTF_8)))
                .timeout(Duration.ofSeconds(60)) // bounds a hang only: the broker answers by its own request timeout
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** What the stubs quote {@code requestId} at {@code supplier}. */
    static String price(String supplier, String requestId) {
        CRC32 crc = new CRC32();
        crc.update(requestId.getBytes(StandardCharsets.UTF_8));
        long cents = BASE_CENTS.get(supplier) + crc.getValue() % 1000;
        return String.format(Locale.ROOT, "%d.%02d", cents / 100, cents % 100);
    }

    /** The supplier whose price {@code price} is for {@code requestId}, or null. */
    static String quotedBy(String requestId, String price) {
        for (String s : SUPPLIERS) if (price(s, requestId).equals(price)) return s;
        return null;
    }

    /** Runs {@code calls} quotes, {@code callers} at a time; their replies and how long each took, in order. */
    static List<Timed> run(int calls, int callers, String prefix) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            List<Future<Timed>> running = new ArrayList<>();
            for (int i = 0; i < calls; i++) {
                String id = prefix + i;
                Callable<Timed> call = () -> {
                    long start = System.nanoTime();
                    HttpResponse<String> r = quote(id, "item-" + id);
                    return new Timed(id, r, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                };
                running.add(pool.submit(call));
            }
            List<Timed> out = new ArrayList<>();
            for (Future<Timed> f : running) out.add(f.get(3, TimeUnit.MINUTES));
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    record Timed(String requestId, HttpResponse<String> reply, long millis) {}

    static String counters() throws Exception {
        List<String> out = new ArrayList<>();
        for (String s : SUPPLIERS)
            out.add(s + ": requests " + stubs.requests(s) + ", callbacksSent " + stubs.counter(s, "callbacksSent") + ", callbacksFailed "
                    + stubs.counter(s, "callbacksFailed") + ", callbacksSkipped " + stubs.counter(s, "callbacksSkipped")
                    + ", rejected " + stubs.counter(s, "rejected"));
        return String.join("; ", out);
    }

    @Test
    @Order(1)
    void everyQuoteIsAnsweredWithThePriceItsSuppliersCallbackCarried() throws Exception {
        // the stubs are the moses-loadtest on this class path: one older than its asynchronous services answers 404 here
        stubs.counter("supplier-a", "callbacksSent");
        callBackToTheBroker();

        List<Timed> replies = run(QUOTES, CALLERS, "q-");
        String counters = counters();
        Map<String, Integer> answeredBy = new HashMap<>();
        List<String> failures = new ArrayList<>();
        for (Timed t : replies) {
            if (t.reply().statusCode() != 200) {
                failures.add(t.requestId() + ": " + t.reply().statusCode() + " " + t.reply().body());
                continue;
            }
            Matcher id = REQUEST_ID.matcher(t.reply().body());
            Matcher price = PRICE.matcher(t.reply().body());
            assertTrue(id.find() && price.find(), t.requestId() + ": " + t.reply().body());
            assertEquals(t.requestId(), id.group(1), "the callback of another quote answered " + t.requestId());
            String supplier = quotedBy(t.requestId(), price.group(1));
            assertTrue(supplier != null, t.requestId() + " answered with " + price.group(1) + ", no supplier's price for it");
            answeredBy.merge(supplier, 1, Integer::sum);
        }
        assertEquals(0, failures.size(), failures.size() + " of " + QUOTES + " quotes failed (" + counters + "), the first: "
                + failures.subList(0, Math.min(3, failures.size())));

        long requests = 0;
        for (String s : SUPPLIERS) {
            long got = stubs.requests(s);
            assertTrue(got > 0, s + " got no request: the plan uses both (" + counters + ")");
            // each answer's price is its supplier's: as many answers as the supplier called back
            assertEquals(got, (long) answeredBy.getOrDefault(s, 0), s + ": " + answeredBy + " (" + counters + ")");
            assertEquals(got, stubs.counter(s, "callbacksSent"), counters);
            assertEquals(0, stubs.counter(s, "callbacksFailed"), counters);
            assertEquals(0, stubs.counter(s, "pending"), counters);
            // every callback went where the request's replyTo said: the stubs have no other address
            assertEquals(0, stubs.counter(s, "withoutReplyTo"), s + ": the requests whose replyTo held no address (" + counters + ")");
            String replyTo = stubs.field(s, "lastReplyTo");
            assertTrue(replyTo != null && replyTo.matches(Pattern.quote(base) + "/services/QuoteCallbackService\\?moses-call=[A-Za-z0-9_-]{20,}"),
                    s + ": the reply address is the process's own endpoint, with the call's number: " + replyTo);
            requests += got;
        }
        assertEquals(QUOTES, requests, counters);
    }

    /** Last: the callbacks it leaves out become supplier-a's failures once the seed's callback timeout passes. */
    @Test
    @Order(2)
    void aSupplierThatNeverCallsBackLeavesItsQuotesToTheRequestTimeout() throws Exception {
        callBackToTheBroker();
        stubs.set("supplier-a", "{\"callback\":\"never\"}");

        // the plan alternates the suppliers: about half of these reach supplier-a
        List<Timed> replies = run(4, 4, "never-");
        String counters = counters();
        int answered = 0, timedOut = 0;
        for (Timed t : replies) {
            if (t.reply().statusCode() == 200) {
                Matcher price = PRICE.matcher(t.reply().body());
                assertTrue(price.find(), t.reply().body());
                assertEquals(price("supplier-b", t.requestId()), price.group(1), t.requestId());
                answered++;
                continue;
            }
            // the broker's request timeout: a server fault, once the timeout has passed
            assertEquals(500, t.reply().statusCode(), t.requestId() + ": " + t.reply().body());
            Matcher fault = FAULT.matcher(t.reply().body());
            assertTrue(fault.find(), t.reply().body());
            assertEquals("soap:Server", fault.group(1));
            assertEquals("no reply from QuoteAsyncService within " + REQUEST_TIMEOUT_MS + " ms", fault.group(2));
            // not before the timeout: the fault above names it, the HTTP client's own timeout bounds a hang
            assertTrue(t.millis() >= REQUEST_TIMEOUT_MS - 100, t.requestId() + " failed after " + t.millis() + " ms");
            timedOut++;
        }
        assertTrue(timedOut > 0, "no quote reached supplier-a (" + counters + ")");
        assertEquals(timedOut, stubs.counter("supplier-a", "callbacksSkipped"), counters);
        assertEquals(timedOut, stubs.requests("supplier-a"), counters);
        assertEquals(answered, stubs.counter("supplier-b", "callbacksSent"), counters);
    }

    /**
     * A reply address's call number is its callback's credential, and nothing more: a changed
     * number is refused (the quote waits on, and is answered by the genuine callback that comes
     * after), and the genuine one does not start a conversation.
     */
    @Test
    @Order(3)
    void theCallNumberIsTheCallbacksCredentialAndAChangedOneIsRefused() throws Exception {
        callBackToTheBroker();
        for (String s : SUPPLIERS) stubs.set(s, "{\"callback\":\"never\"}");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<HttpResponse<String>> waiting = pool.submit(() -> quote("forged-1", "item"));
            AtomicReference<String> got = new AtomicReference<>();
            Waits.within(30, () -> { // bounds a hang only
                for (String s : SUPPLIERS) if (got.get() == null) got.set(stubs.field(s, "lastReplyTo"));
                return got.get() != null;
            });
            String replyTo = got.get();
            assertTrue(replyTo != null, "no supplier got the quote: " + counters());
            String genuine = replyTo.substring(replyTo.indexOf("moses-call=") + "moses-call=".length());
            char last = genuine.charAt(genuine.length() - 1);
            String forged = replyTo.substring(0, replyTo.length() - 1) + (last == 'A' ? 'B' : 'A');

            double refusedBefore = unauthenticated();
            assertEquals(202, quoteReady(forged, "forged-1", "1.00").statusCode(), "a one-way message is answered before it is read");
            Waits.until("the forged callback refused", 30, () -> unauthenticated() >= refusedBefore + 1);
            // the genuine number starts nothing: quote starts a conversation
            HttpResponse<String> start = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/services/QuoteAsyncService?moses-call=" + genuine))
                    .header("Content-Type", "text/xml; charset=utf-8").header("SOAPAction", "\"urn:moses:quote-async/quote\"")
                    .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(
                            "<soap:Envelope xmlns:soap='http://schemas.xmlsoap.org/soap/envelope/'><soap:Body><qa:quote xmlns:qa='urn:moses:quote-async'>"
                                    + "<qa:requestId>forged-2</qa:requestId><qa:item>x</qa:item></qa:quote></soap:Body></soap:Envelope>")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(500, start.statusCode(), start.body());
            assertTrue(start.body().contains("only answers a conversation"), start.body());

            assertEquals(202, quoteReady(replyTo, "forged-1", "2.00").statusCode());
            HttpResponse<String> answered = waiting.get(60, TimeUnit.SECONDS);
            assertEquals(200, answered.statusCode(), answered.body());
            Matcher price = PRICE.matcher(answered.body());
            assertTrue(price.find(), answered.body());
            assertEquals("2.00", price.group(1), "answered by the genuine callback, not the forged one");
        } finally {
            pool.shutdownNow();
        }
    }

    /** A supplier's callback for {@code requestId}, with no credentials, to {@code address}. */
    static HttpResponse<String> quoteReady(String address, String requestId, String price) throws Exception {
        String body = "<soap:Envelope xmlns:soap='http://schemas.xmlsoap.org/soap/envelope/'><soap:Body>"
                + "<q:quoteReady xmlns:q='urn:moses:task:supplier'><q:requestId>" + requestId + "</q:requestId><q:price>" + price
                + "</q:price></q:quoteReady></soap:Body></soap:Envelope>";
        return HTTP.send(HttpRequest.newBuilder(URI.create(address)).header("Content-Type", "text/xml; charset=utf-8")
                .header("SOAPAction", "\"urn:moses:task:supplier/quoteReady\"").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Messages to QuoteAsync's services refused for their credentials so far ({@code /metrics}). */
    static double unauthenticated() throws Exception {
        String metrics = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
        Matcher m = Pattern.compile("moses_composite_requests_seconds_count\\{composite=\"QuoteAsync\",outcome=\"unauthenticated\",?}\\s+(\\S+)")
                .matcher(metrics);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    /**
     * A broker whose plan names alt(supplier-a, supplier-b) for the task, declared idempotent with
     * a 1 s callback timeout; supplier-a calls back after 2.5 s. Each quote's call goes to
     * supplier-b once supplier-a's callback is late, is answered with supplier-b's price, and
     * supplier-a's callback, when it comes, is discarded: accepted (so the stub counts it sent) and
     * never delivered to the instance, which has its answer.
     */
    @Test
    @Order(4)
    void aLateCallbackMovesTheCallToThePlansAlternateAndTheLateOneIsDiscarded() throws Exception {
        Path seed = work.resolve("alternate-seed.yaml");
        java.nio.file.Files.writeString(seed, java.nio.file.Files.readString(Path.of("../bpel-processes/quote-async/seed.yaml"))
                .replace("{task: supplier.requestQuote, callback: quoteReady, callbackTimeout: 10}",
                        "{task: supplier.requestQuote, callback: quoteReady, callbackTimeout: 1, idempotent: true}")
                .replace("shares: [{implementation: supplier-a, fraction: 0.5}, {implementation: supplier-b, fraction: 0.5}]",
                        "shares: [{implementation: \"alt(supplier-a,supplier-b)\", fraction: 1.0}]"));
        assertTrue(java.nio.file.Files.readString(seed).contains("alt(supplier-a,supplier-b)"), "the seed's plan changed");
        alternating = stubs.broker(work.resolve("alternating"), "--deploy", "../bpel-processes/quote-async", "--seed", seed.toString(),
                "--monitors", "none", "--optimizer", "off", "--request-timeout", Integer.toString(REQUEST_TIMEOUT_MS));
        base = "http://127.0.0.1:" + alternating.await(BrokerProcessTest.LISTENING, 90);
        callBackToTheBroker();
        stubs.set("supplier-a", "{\"callbackDelayMillis\":2500,\"distribution\":\"fixed\"}");

        // sent at once, all before the first late callback: more, and supplier-a, ejected after
        // three in a row, would get none of the later ones
        int quotes = 3;
        List<Timed> replies = run(quotes, quotes, "alt-");
        for (Timed t : replies) {
            assertEquals(200, t.reply().statusCode(), t.requestId() + ": " + t.reply().body() + " (" + counters() + ")");
            Matcher price = PRICE.matcher(t.reply().body());
            assertTrue(price.find(), t.reply().body());
            assertEquals(price("supplier-b", t.requestId()), price.group(1), t.requestId() + ": answered by supplier-b, the alternate");
            assertTrue(t.millis() >= 1000, t.requestId() + " answered after " + t.millis() + " ms, before supplier-a's callback was late");
        }
        assertEquals(quotes, stubs.requests("supplier-a"), counters());
        assertEquals(quotes, stubs.requests("supplier-b"), counters());
        // supplier-a's callbacks come 2.5 s after their requests: the broker takes each and drops it
        // the 30 s bound a hang only
        Waits.within(30, () -> stubs.counter("supplier-a", "callbacksSent") + stubs.counter("supplier-a", "callbacksFailed") >= quotes);
        assertTrue(stubs.counter("supplier-a", "callbacksSent") + stubs.counter("supplier-a", "callbacksFailed") >= quotes,
                "supplier-a's callbacks were not all sent: " + counters());
        assertEquals(quotes, stubs.counter("supplier-a", "callbacksSent"), "the broker accepted each late callback: " + counters());
        JsonCallbacks c = JsonCallbacks.of(base);
        assertEquals(quotes, c.resent(), c + "\n" + alternating.output());
        assertEquals(quotes, c.discarded(), c + "\n" + alternating.output());
        assertEquals(0, c.awaited(), c.toString());
        assertEquals(0, c.late(), "supplier-b's callbacks each answered a call awaited: " + c);
    }

    /** The broker's counts of asynchronous calls ({@code GET /admin/status}, {@code callbacks}). */
    record JsonCallbacks(long awaited, long late, long discarded, long resent) {
        static JsonCallbacks of(String base) throws Exception {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/admin/status"))
                    .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("operator:operator-demo".getBytes(StandardCharsets.UTF_8)))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), r.body());
            com.fasterxml.jackson.databind.JsonNode n = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.body()).path("callbacks");
            return new JsonCallbacks(n.path("awaited").asLong(-1), n.path("late").asLong(-1), n.path("discarded").asLong(-1), n.path("resent").asLong(-1));
        }
    }
}
