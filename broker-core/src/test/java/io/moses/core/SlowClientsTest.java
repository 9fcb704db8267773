package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.core.frontend.OverloadBound;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Slow clients, without credentials, against a real broker: bodies and headers sent a byte at a
 * time hold no engine place and no request thread while they arrive, real users are served
 * meanwhile, and the slow ones are cut off at the read deadline (408 for a late body; a late
 * header's connection closed).
 */
@Tag("e2e")
class SlowClientsTest {
    static final Duration DEADLINE = Duration.ofSeconds(2);
    /** How long an attacker keeps dripping if nobody stops it: far past the deadline. */
    static final Duration DRIP_FOR = Duration.ofSeconds(20);
    static final int PLACES = 4;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ExecutorService attackers = Executors.newCachedThreadPool();
    /** Paces the attackers' bytes: one every 200 ms per connection, the attack's rate. */
    private final java.util.concurrent.ScheduledExecutorService pace = Executors.newScheduledThreadPool(2);
    private final List<Socket> sockets = new ArrayList<>();
    private EchoPartner partner;
    private Broker broker;
    @TempDir Path work;

    @BeforeEach
    void start() throws Exception {
        partner = new EchoPartner(0);
        broker = new Broker(OverloadTest.echoPair(work, partner, new OverloadBound(PLACES, 0, Duration.ZERO)) // 36 request threads
                .withReadDeadline(DEADLINE));
        broker.start();
    }

    @AfterEach
    void stop() {
        attackers.shutdownNow();
        pace.shutdownNow();
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        if (broker != null) broker.close();
        if (partner != null) partner.close();
    }

    private HttpResponse<String> pair(String text) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + broker.port() + "/services/EchoPairService"))
                .header("Content-Type", "text/xml; charset=utf-8")
                .header("SOAPAction", "\"urn:moses:test:echo-pair/pair\"")
                .timeout(Duration.ofSeconds(5))
                .POST(HttpRequest.BodyPublishers.ofString(BrokerInProcessTest.pair(text))).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> health() throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + broker.port() + "/health"))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * A connection that has sent {@code head} and then drips {@code drip}, a byte every 200 ms,
     * for DRIP_FOR at most. Its outcome: "closed while sending: " and what the broker answered when
     * the broker closed it while the client still had bytes to send; "still sending" otherwise.
     */
    private Future<String> drip(String head, String drip) throws IOException {
        Socket s = new Socket("127.0.0.1", broker.port());
        sockets.add(s);
        s.setSoTimeout((int) DRIP_FOR.toMillis() + 10_000);
        OutputStream out = s.getOutputStream();
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        byte[] bytes = drip.getBytes(StandardCharsets.US_ASCII);
        int steps = (int) Math.min(bytes.length, DRIP_FOR.toMillis() / 200);
        java.util.concurrent.atomic.AtomicInteger sent = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.CompletableFuture<Boolean> sending = new java.util.concurrent.CompletableFuture<>();
        if (steps == 0) sending.complete(true); // nothing more to send: it holds the connection open
        java.util.concurrent.ScheduledFuture<?>[] task = new java.util.concurrent.ScheduledFuture<?>[1];
        task[0] = pace.scheduleAtFixedRate(() -> {
            int i = sent.getAndIncrement();
            if (i >= steps) {
                sending.complete(false); // ran out of bytes: nobody cut it off
                task[0].cancel(false);
                return;
            }
            try {
                out.write(bytes[i]);
                out.flush();
            } catch (IOException e) {
                sending.complete(true); // closed under it while it still had bytes to send
                task[0].cancel(false);
            }
        }, 0, 200, TimeUnit.MILLISECONDS);
        // what the broker answers before it closes: a status line, or nothing
        return attackers.submit(() -> {
            InputStream in = s.getInputStream();
            String answer;
            try {
                answer = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            } catch (SocketTimeoutException e) {
                return "still open";
            } catch (IOException e) {
                answer = ""; // reset: closed
            }
            boolean stillSending = steps == 0 || !sending.isDone() || sending.join();
            return (stillSending ? "closed while sending: " : "the client gave up first: ") + answer;
        });
    }

    /** What a slow connection got: closed by the broker while its client still had bytes to send. */
    private static String cutOffAtTheDeadline(Future<String> connection) throws Exception {
        String outcome = connection.get(DRIP_FOR.toSeconds() + 20, TimeUnit.SECONDS);
        assertTrue(outcome.startsWith("closed while sending: "), "cut off by the broker, not when the client gave up: " + outcome);
        return outcome;
    }

    private static String postHead(String path, int length) {
        return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/xml; charset=utf-8\r\n"
                + "SOAPAction: \"urn:moses:test:echo-pair/pair\"\r\nContent-Length: " + length + "\r\n\r\n<";
    }

    @Test
    void slowBodiesHoldNoEnginePlaceNorThreadAndAreCutOffAtTheDeadline() throws Exception {
        assertEquals(200, pair("before").statusCode());
        String body = BrokerInProcessTest.pair("slow");
        List<Future<String>> slow = new ArrayList<>();
        // twice the engine's places on the composite service, and more than the request threads on /manage
        for (int i = 0; i < 2 * PLACES; i++) slow.add(drip(postHead("/services/EchoPairService", body.length()), body.substring(1)));
        for (int i = 0; i < 50; i++) slow.add(drip(postHead("/manage/sla", body.length()), body.substring(1)));

        // while every slow body is still arriving, users are served and the balancer sees a healthy broker
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> r = pair("during" + i);
            assertEquals(200, r.statusCode(), "a user during the attack: " + r.body());
            assertTrue(r.body().contains("during" + i + " via /left"), r.body());
            assertEquals(200, health().statusCode());
        }
        for (Future<String> f : slow) {
            String outcome = cutOffAtTheDeadline(f);
            assertTrue(outcome.contains("HTTP/1.1 408") && outcome.contains("request body not received within 2000 ms"), outcome);
        }
        assertEquals(200, pair("after").statusCode());
    }

    @Test
    void slowHeadersAreClosedAtTheDeadlineWhileUsersAreServed() throws Exception {
        List<Future<String>> slow = new ArrayList<>();
        String header = "X-Slow: " + "a".repeat(200) + "\r\n";
        for (int i = 0; i < 20; i++) slow.add(drip("POST /services/EchoPairService HTTP/1.1\r\nHost: 127.0.0.1\r\n", header));
        for (int i = 0; i < 3; i++) assertEquals(200, pair("during" + i).statusCode());
        for (Future<String> f : slow) cutOffAtTheDeadline(f);
        assertEquals(200, pair("after").statusCode());
    }

    @Test
    void largeBodiesHeldOpenOnManyConnectionsShareABoundedBudgetAndThoseBeyondItGet503() throws Exception {
        // a broker whose bodies may be 64 KiB: all bodies being read share 64 of those, 4 MiB
        broker.close();
        Path second = java.nio.file.Files.createDirectories(work.resolve("small-bodies"));
        broker = new Broker(OverloadTest.echoPair(second, partner, new OverloadBound(PLACES, 0, Duration.ZERO))
                .withReadDeadline(DEADLINE).withMaxBodyBytes(64 * 1024));
        broker.start();
        // 100 connections each declare 64 KiB, send 60 KiB at once and then nothing: 6 MiB wanted
        List<Future<String>> held = new ArrayList<>();
        String almost = "x".repeat(60 * 1024);
        for (int i = 0; i < 100; i++) held.add(drip(postHead("/services/EchoPairService", 64 * 1024) + almost, ""));
        int busy = 0, late = 0;
        for (Future<String> f : held) {
            String outcome = cutOffAtTheDeadline(f);
            if (outcome.contains("HTTP/1.1 503")) {
                busy++;
                assertTrue(outcome.contains("too many request bodies at once") && outcome.contains("Retry-After: 1"), outcome);
            } else {
                late++;
                assertTrue(outcome.contains("HTTP/1.1 408"), outcome);
            }
        }
        assertTrue(busy >= 100 - 64 && late <= 64, "at most the budget's worth held: " + busy + " refused at once, " + late + " held to the deadline");
        assertEquals(200, pair("after").statusCode(), "their memory was given back");
    }

    @Test
    void aStreamedBodyOverTheLimitNeverReachesTheEngine() throws Exception {
        int before = partner.calls.get();
        try (Socket s = new Socket("127.0.0.1", broker.port())) {
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            // chunked, so nothing declares the size: 17 x 64 KiB is past the 1 MiB limit
            out.write(("POST /services/EchoPairService HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/xml\r\n"
                    + "SOAPAction: \"urn:moses:test:echo-pair/pair\"\r\nTransfer-Encoding: chunked\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = ("10000\r\n" + "x".repeat(0x10000) + "\r\n").getBytes(StandardCharsets.US_ASCII);
            String answer;
            try {
                for (int i = 0; i < 17; i++) out.write(chunk);
                out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                answer = new String(s.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
            } catch (IOException e) {
                answer = "reset"; // refused while the client was still sending: its unread bytes reset the connection
            }
            assertTrue(answer.equals("HTTP/1.1 413") || answer.equals("reset"), answer);
        }
        assertEquals(200, pair("after").statusCode());
        assertEquals(before + 2, partner.calls.get(), "only the request after called the partners");
    }
}
