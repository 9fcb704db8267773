package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.moses.core.loop.Adaptation;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Conversations (a first message starts an instance, the next ones are correlated to it) on a
 * real broker over SOAP, in every shape that takes a correlated message: a receive, a pick, an
 * event handler, a flow of two receives, a second message on the instance-creating operation
 * itself (betsy's Invoke-Correlation-Pattern-InitSync), after a one-way start
 * (InitAsync), and on a correlation set a request-response invoke's reply initiates.
 *
 * <p>Each shape runs {@value #CONVERSATIONS} conversations, {@value #PARALLEL} at a time, every
 * next message sent as soon as the previous one is answered (or accepted, for a one-way
 * message): the next message then often arrives while the instance's job that leads to its
 * receive still runs, which is the case the engine must keep the message for. The answers
 * combine the values of the conversation's messages, so a message that reached another
 * instance, or started a new one, gives a wrong number; a lost one, the request timeout.
 */
@Tag("e2e")
class ConversationEndToEndTest {
    static final String ENV = "<s:Envelope xmlns:s='http://schemas.xmlsoap.org/soap/envelope/'><s:Body>";
    static final String END = "</s:Body></s:Envelope>";
    static final String NS = "urn:moses:test:conversation";
    static final int CONVERSATIONS = 50;
    static final int PARALLEL = 8;
    /** What the partner adds to a conversation's id to make its ticket number. */
    static final int TICKET = 500_000;

    static HttpServer partner;
    static final Map<String, AtomicInteger> issued = new ConcurrentHashMap<>();
    static final Path UNITS = Path.of("src/test/resources/processes/conversations");
    static Broker broker;
    /** Where the conversations are sent: the broker, or a cluster's front. */
    static String base;
    static final HttpClient http = HttpClient.newHttpClient();
    static ExecutorService clients;
    @TempDir static Path work;

    @BeforeAll
    static void start() throws Exception {
        start(UNITS, "mem:conversations");
    }

    /** One broker with {@code units} (the conversation unit, or a copy of it) on the knowledge base {@code db}. */
    static void start(Path units, String db) throws Exception {
        startPartner(PARALLEL);
        BrokerConfig config = BrokerConfig.defaults().withAdaptation(Adaptation.off()).withPort(0).withWorkDir(work)
                .withDb(db).withSeeds(seeds(work))
                .withVariables(Map.of("PARTNER", partnerUrl()))
                .withTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(30))
                .withDeployments(List.of(units));
        broker = new Broker(config);
        broker.start();
        base = "http://127.0.0.1:" + broker.port();
    }

    /** The partner that issues tickets (the number is the conversation's id plus {@value #TICKET}), and a pool of {@code parallel} clients. */
    static void startPartner(int parallel) throws Exception {
        issued.clear(); // a subclass runs the same tests in the same JVM
        partner = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 100);
        partner.setExecutor(Executors.newFixedThreadPool(4));
        partner.createContext("/", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            issued.computeIfAbsent(exchange.getRequestURI().getPath(), k -> new AtomicInteger()).incrementAndGet();
            int id = Integer.parseInt(body.replaceAll("(?s).*<(\\w+:)?id[^>]*>\\s*(-?\\d+)\\s*<.*", "$2"));
            byte[] reply = (ENV + "<t:ticket xmlns:t='" + NS + "'><t:number>" + (id + TICKET) + "</t:number></t:ticket>" + END)
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/xml; charset=utf-8");
            exchange.sendResponseHeaders(200, reply.length);
            exchange.getResponseBody().write(reply);
            exchange.close();
        });
        partner.start();
        clients = Executors.newFixedThreadPool(parallel);
    }

    static String partnerUrl() {
        return "http://127.0.0.1:" + partner.getAddress().getPort();
    }

    /** The seeds of the composites that call the partner (${PARTNER} is its address). */
    static List<Path> seeds(Path dir) throws java.io.IOException {
        List<Path> seeds = new ArrayList<>();
        for (String composite : List.of("ConvInitSync", "ConvInvoke")) {
            Path seed = dir.resolve("seed-" + composite + ".yaml");
            Files.writeString(seed, """
                    composite: %s
                    services:
                      - {name: %s-issuer, task: ticket.issue, endpoint: "${PARTNER}/%s", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 1000}
                    """.formatted(composite, composite, composite));
            seeds.add(seed);
        }
        return seeds;
    }

    @AfterAll
    static void stop() throws Exception {
        if (broker != null) broker.close();
        stopPartner();
    }

    static void stopPartner() {
        if (clients != null) clients.shutdownNow();
        if (partner != null) {
            partner.stop(0);
            ((ExecutorService) partner.getExecutor()).shutdownNow();
        }
    }

    static CompletableFuture<HttpResponse<String>> send(String process, String operation, int id, int value) {
        String payload = "<c:" + operation + " xmlns:c='" + NS + "'><c:id>" + id + "</c:id><c:value>" + value + "</c:value></c:" + operation + ">";
        return http.sendAsync(HttpRequest.newBuilder(URI.create(base + "/services/" + process + "Service"))
                .header("Content-Type", "text/xml; charset=utf-8")
                .header("SOAPAction", "\"" + NS + "/" + operation + "\"")
                .POST(HttpRequest.BodyPublishers.ofString(ENV + payload + END)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The number a request-response operation answered. */
    static int answer(CompletableFuture<HttpResponse<String>> call, String what) throws Exception {
        HttpResponse<String> r = call.get(60, TimeUnit.SECONDS);
        assertEquals(200, r.statusCode(), what + ": " + r.body());
        String body = r.body();
        assertTrue(body.matches("(?s).*<(\\w+:)?result[^>]*>\\s*-?\\d+\\s*<.*"), what + ": " + body);
        return Integer.parseInt(body.replaceAll("(?s).*<(\\w+:)?result[^>]*>\\s*(-?\\d+)\\s*<.*", "$2"));
    }

    /** A one-way message the broker accepted. */
    static void accepted(CompletableFuture<HttpResponse<String>> call, String what) throws Exception {
        HttpResponse<String> r = call.get(60, TimeUnit.SECONDS);
        assertEquals(2, r.statusCode() / 100, what + ": " + r.statusCode() + " " + r.body());
    }

    interface Conversation {
        void run(int id) throws Exception;
    }

    /** Runs conversations {@code first} .. {@code first + CONVERSATIONS - 1}, as many at a time as there are clients; rethrows the first failure. */
    static void converse(int first, Conversation conversation) throws Exception {
        List<Future<?>> running = new ArrayList<>();
        for (int id = first; id < first + CONVERSATIONS; id++) {
            int conv = id;
            running.add(clients.submit(() -> {
                conversation.run(conv);
                return null;
            }));
        }
        for (Future<?> f : running) {
            try {
                f.get(5, TimeUnit.MINUTES);
            } catch (java.util.concurrent.ExecutionException e) {
                if (e.getCause() instanceof Exception x) throw x;
                throw (Error) e.getCause();
            }
        }
    }

    @Test
    void aSecondMessageOnTheInstanceCreatingOperationReachesItsInstance() throws Exception {
        converse(1000, id -> {
            assertEquals(id, answer(send("ConvInitSync", "start", id, id), "first start of " + id));
            assertEquals(id + 1000, answer(send("ConvInitSync", "start", id, 1000), "second start of " + id
                    + " (its own value alone: it started a new instance)"));
        });
        // every instance called the partner once before it could take its second message; an
        // instance started by a second message would have called it too
        assertEquals(CONVERSATIONS, issued.get("/ConvInitSync").get(), "one ticket per conversation");
    }

    @Test
    void aRequestRightAfterAOneWayStartReachesItsInstance() throws Exception {
        converse(2000, id -> {
            accepted(send("ConvInitAsync", "begin", id, id), "begin of " + id);
            assertEquals(id + 1000, answer(send("ConvInitAsync", "next", id, 1000), "next of " + id));
        });
    }

    @Test
    void aReceiveTakesTheNextMessageSentRightAfterTheReply() throws Exception {
        converse(3000, id -> {
            assertEquals(id, answer(send("ConvReceive", "start", id, id), "start of " + id));
            assertEquals(id + 1000, answer(send("ConvReceive", "next", id, 1000), "next of " + id));
        });
    }

    @Test
    void aPickTakesEitherMessageSentRightAfterTheReply() throws Exception {
        converse(4000, id -> {
            assertEquals(id, answer(send("ConvPick", "start", id, id), "start of " + id));
            if (id % 2 == 0) assertEquals(id + 1000, answer(send("ConvPick", "next", id, 1000), "next of " + id));
            else assertEquals(id - 1, answer(send("ConvPick", "finish", id, 1), "finish of " + id));
        });
    }

    @Test
    void anEventHandlerTakesEveryMessageSentRightAfterTheReply() throws Exception {
        converse(5000, id -> {
            assertEquals(id, answer(send("ConvEvents", "start", id, id), "start of " + id));
            assertEquals(id + 1000, answer(send("ConvEvents", "next", id, 1000), "first event of " + id));
            assertEquals(id + 2000, answer(send("ConvEvents", "next", id, 2000), "second event of " + id));
            assertEquals(id, answer(send("ConvEvents", "finish", id, 0), "finish of " + id));
        });
    }

    @Test
    void aFlowOfTwoReceivesTakesBothMessagesSentTogether() throws Exception {
        converse(6000, id -> {
            assertEquals(id, answer(send("ConvFlow", "start", id, id), "start of " + id));
            var next = send("ConvFlow", "next", id, 1000);
            var finish = send("ConvFlow", "finish", id, 1);
            assertEquals(id + 1000, answer(next, "next of " + id));
            assertEquals(id - 1, answer(finish, "finish of " + id));
        });
    }

    @Test
    void aMessageForAConversationThatEndedOrNeverStartedGetsAClientFaultNotTheTimeout() throws Exception {
        assertEquals(8000, answer(send("ConvReceive", "start", 8000, 8000), "start of 8000"));
        assertEquals(9000, answer(send("ConvReceive", "next", 8000, 1000), "next of 8000"));
        for (int id : new int[] {8000, 8001}) { // ended; never started
            HttpResponse<String> r = send("ConvReceive", "next", id, 1).get(60, TimeUnit.SECONDS);
            assertEquals(500, r.statusCode(), r.body());
            assertTrue(r.body().contains("Client") && r.body().contains("no instance of ConvReceiveService holds this message's correlation values"),
                    "conversation " + id + ": " + r.body());
        }
    }

    @Test
    void aMessageCorrelatedByAnInvokesReplyReachesItsInstance() throws Exception {
        converse(7000, id -> {
            accepted(send("ConvInvoke", "begin", id, id), "begin of " + id);
            // sent at once: usually before the instance has the ticket from its partner
            assertEquals(id + 1000, answer(send("ConvInvoke", "next", id + TICKET, 1000), "next of " + id));
        });
        assertEquals(CONVERSATIONS, issued.get("/ConvInvoke").get(), "one ticket per conversation");
    }
}
