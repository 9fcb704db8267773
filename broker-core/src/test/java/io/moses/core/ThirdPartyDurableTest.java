package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.moses.model.auth.BasicCredentials;
import io.moses.testing.Waits;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process nobody here wrote, durable: Apache ServiceMix 3.2.1's ODE loan broker sample (its
 * BPEL, WSDL and deploy.xml as released, unpacked by the build into target/third-party), with
 * {@code <in-memory>false</in-memory>} added to its deploy.xml and SOAP bindings of ours beside it
 * (ServiceMix bound it over JBI). Loans are quoted by its credit agency and banks, stubs here;
 * the broker is SIGKILLed while a bank holds a quote's call. Started again, it keeps the finished
 * quotes and the interrupted one, active; once ODE's check of the unanswered call falls due, the
 * instance ends faulted, and the bank was never called twice.
 */
@Tag("e2e")
class ThirdPartyDurableTest {
    static final Path THEIRS = Path.of("target/third-party/loan-broker");
    static final Path OURS = Path.of("src/test/third-party/loan-broker");
    static final String LB = "urn:logicblaze:soa:loanbroker";
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final ObjectMapper JSON = new ObjectMapper();
    /** The rate each bank quotes; the process answers the lower of the two banks an amount goes to. */
    static final Map<String, String> RATES = Map.of("bank1", "5.25", "bank2", "4.75", "bank3", "6.5", "bank4", "6.1", "bank5", "7.9");

    final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    final CountDownLatch bank5Holds = new CountDownLatch(1), release = new CountDownLatch(1);

    @Test
    @Timeout(300) // bounds a hang only
    void aQuoteInterruptedByAKillIsKeptAndEndsFaultedWithoutItsBankCalledTwice(@TempDir Path work) throws Exception {
        HttpServer partners = partners();
        try {
            Path unit = unit(work.resolve("loan-broker"), "http://127.0.0.1:" + partners.getAddress().getPort());
            Path people = Files.writeString(work.resolve("people.yaml"), """
                    classes:
                      - {name: gold, maxResponseTime: 5.0, minAvailability: 0.5, maxCost: 100, price: 5}
                    users:
                      - {name: lena, class: gold, rate: 0, password: lena-secret}
                      - {name: olga, class: gold, rate: 0, password: olga-secret, role: operator}
                    """);
            Path kb = work.resolve("w");
            List<String> args = List.of("--port", "0", "--work", kb.toString(), "--deploy", unit.toString(),
                    "--seed", people.toString(), "--request-timeout", "60000");

            CompletableFuture<HttpResponse<String>> interrupted;
            try (ChildProcess first = new ChildProcess("io.moses.core.Main", args)) {
                String base = "http://127.0.0.1:" + first.await(BrokerProcessTest.LISTENING, 120);
                assertTrue(first.output().contains("LoanBrokerService") && first.output().contains("durable"), first.output());
                assertEquals("4.75", rate(quote(base, "100000")), "banks 1 and 2, the lower rate");
                assertEquals("6.1", rate(quote(base, "50000")), "banks 3 and 4, the lower rate");
                interrupted = HTTP.sendAsync(quoteRequest(base, "5000"), HttpResponse.BodyHandlers.ofString());
                assertTrue(bank5Holds.await(60, TimeUnit.SECONDS), "bank 5 is called:\n" + first.output());
                first.process.destroyForcibly(); // SIGKILL while the instance waits on its partner
                assertTrue(first.process.waitFor(30, TimeUnit.SECONDS));
            }
            // the caller in flight sees its connection end, never an answer
            assertTrue(interrupted.handle((r, e) -> e != null).get(30, TimeUnit.SECONDS), "the interrupted quote got no answer");

            try (ChildProcess second = new ChildProcess("io.moses.core.Main", args)) {
                String base = "http://127.0.0.1:" + second.await(BrokerProcessTest.LISTENING, 120);
                Map<String, JsonNode> byAmount = instancesByAmount(base);
                assertEquals(3, byAmount.size(), byAmount.toString());
                assertEquals("completed", byAmount.get("100000").path("state").asText(), byAmount.toString());
                assertEquals("completed", byAmount.get("50000").path("state").asText(), byAmount.toString());
                assertEquals("active", byAmount.get("5000").path("state").asText(), "kept, waiting on bank 5: " + byAmount);
                // a finished quote keeps its variables, its answer among them
                assertTrue(byAmount.get("100000").path("variables").path("response").asText().contains("4.75"), byAmount.toString());
                assertEquals(1, calls.get("bank5").get(), "the call in flight is not sent again at the restart");
                second.stop(30); // before the knowledge base is written below: H2 lets one process open its file
            }
            // ODE checks a durable two-way call its instance still waits on two minutes after it was sent:
            // bring that check forward rather than wait for it
            try (var c = java.sql.DriverManager.getConnection("jdbc:h2:file:" + kb.resolve("knowledge").toAbsolutePath(), "sa", "");
                 var s = c.prepareStatement("UPDATE ODE_JOB SET ts = ? WHERE type = 'INVOKE_CHECK'")) {
                s.setLong(1, System.currentTimeMillis());
                assertTrue(s.executeUpdate() >= 1, "the interrupted call's check is scheduled");
            }
            try (ChildProcess third = new ChildProcess("io.moses.core.Main", args)) {
                String base = "http://127.0.0.1:" + third.await(BrokerProcessTest.LISTENING, 120);
                long id = instancesByAmount(base).get("5000").path("id").asLong();
                // the check job is the event waited for
                Waits.within(60, () -> !operator(base, "/admin/instances/" + id).path("state").asText().equals("active"));
                JsonNode held = operator(base, "/admin/instances/" + id);
                assertEquals("faulted", held.path("state").asText(), held + "\n" + third.output());
                // why, for the operator: in the instance shown, and in one line of the broker's log
                assertEquals("{http://ode.apache.org/activityRecovery}activityFailure", held.path("fault").path("name").asText(), held.toString());
                assertTrue(held.path("fault").path("explanation").asText().startsWith("No response received for invoke"), held.toString());
                assertTrue(third.output().contains("durable instance " + held.path("id").asLong()
                        + " of LoanBrokerService ended with the fault {http://ode.apache.org/activityRecovery}activityFailure"), third.output());
                Map<String, JsonNode> byAmount = instancesByAmount(base);
                assertEquals("completed", byAmount.get("100000").path("state").asText(), "a finished quote's check changes nothing");
                assertEquals(1, calls.get("bank5").get(), "bank 5 was called once in all");
                assertEquals(1, calls.get("bank1").get(), "bank 1 was called once in all");
            }
        } finally {
            release.countDown();
            partners.stop(0);
        }
    }

    /** Their files, their deploy.xml made durable, and our bindings with the partners at {@code partners}. */
    static Path unit(Path dir, String partners) throws Exception {
        Files.createDirectories(dir);
        for (String f : List.of("loanbroker.bpel", "loanbroker.wsdl", "creditagency.wsdl", "bank.wsdl"))
            Files.copy(THEIRS.resolve(f), dir.resolve(f));
        String deploy = Files.readString(THEIRS.resolve("deploy.xml"));
        assertTrue(deploy.contains("<active>true</active>") && !deploy.contains("in-memory"), deploy);
        Files.writeString(dir.resolve("deploy.xml"), deploy.replace("<active>true</active>",
                "<active>true</active>\n    <in-memory>false</in-memory>"));
        try (var ours = Files.list(OURS)) {
            for (Path f : ours.toList())
                Files.writeString(dir.resolve(f.getFileName()), Files.readString(f).replace("PARTNERS", partners));
        }
        return dir;
    }

    /** The credit agency (score 700, 10 years of history) and the five banks; bank 5 holds its call until the test ends. */
    HttpServer partners() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "loan-partners");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/", exchange -> {
            String path = exchange.getRequestURI().getPath().substring(1);
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            calls.computeIfAbsent(path, k -> new AtomicInteger()).incrementAndGet();
            String reply;
            if (path.equals("agency") && body.contains("getCreditScoreRequest"))
                reply = "<ca:getCreditScoreResponse xmlns:ca='urn:logicblaze:soa:creditagency'><ca:score>700</ca:score></ca:getCreditScoreResponse>";
            else if (path.equals("agency"))
                reply = "<ca:getCreditHistoryLengthResponse xmlns:ca='urn:logicblaze:soa:creditagency'><ca:length>10</ca:length></ca:getCreditHistoryLengthResponse>";
            else reply = "<bk:getLoanQuoteResponse xmlns:bk='urn:logicblaze:soa:bank'><bk:rate>" + RATES.get(path) + "</bk:rate></bk:getLoanQuoteResponse>";
            if (path.equals("bank5")) {
                bank5Holds.countDown();
                try {
                    release.await(240, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            byte[] bytes = (OrderConfirmationEndToEndTest.ENV + reply + OrderConfirmationEndToEndTest.END).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/xml; charset=utf-8");
            exchange.sendResponseHeaders(200, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        server.start();
        return server;
    }

    static HttpRequest quoteRequest(String base, String amount) {
        String payload = "<lb:getLoanQuoteRequest xmlns:lb='" + LB + "'><lb:ssn>123-45-6789</lb:ssn><lb:amount>" + amount
                + "</lb:amount><lb:duration>24</lb:duration></lb:getLoanQuoteRequest>";
        return HttpRequest.newBuilder(URI.create(base + "/services/LoanBrokerService"))
                .header("Content-Type", "text/xml; charset=utf-8").header("SOAPAction", "\"" + LB + "/getLoanQuote\"")
                .header("Authorization", new BasicCredentials("lena", "lena-secret").header())
                .timeout(Duration.ofSeconds(120)) // bounds a hang only
                .POST(HttpRequest.BodyPublishers.ofString(OrderConfirmationEndToEndTest.ENV + payload + OrderConfirmationEndToEndTest.END))
                .build();
    }

    static HttpResponse<String> quote(String base, String amount) throws Exception {
        HttpResponse<String> r = HTTP.send(quoteRequest(base, amount), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return r;
    }

    static String rate(HttpResponse<String> r) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("<(?:\\w+:)?rate\\b[^>]*>([^<]+)</").matcher(r.body());
        assertTrue(m.find(), r.body());
        return m.group(1);
    }

    static JsonNode operator(String base, String path) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(base + path))
                .header("Authorization", new BasicCredentials("olga", "olga-secret").header()).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), path + ": " + r.body());
        return JSON.readTree(r.body());
    }

    /** Each loan broker instance, shown (its state and variables), by the amount its request asked for. */
    static Map<String, JsonNode> instancesByAmount(String base) throws Exception {
        Map<String, JsonNode> byAmount = new java.util.TreeMap<>();
        List<String> unknown = new ArrayList<>();
        for (JsonNode i : operator(base, "/admin/instances?process=LoanBrokerService").path("instances")) {
            JsonNode shown = operator(base, "/admin/instances/" + i.path("id").asLong());
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("amount\\b[^>]*>([^<]+)</").matcher(shown.path("variables").path("request").asText());
            if (m.find()) byAmount.put(m.group(1), shown);
            else unknown.add(shown.toString());
        }
        assertTrue(unknown.isEmpty(), "instances without a request: " + unknown);
        return byAmount;
    }
}
