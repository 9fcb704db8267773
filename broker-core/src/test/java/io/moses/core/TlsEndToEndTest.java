package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.core.loop.Adaptation;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker serving HTTPS itself ({@code --tls-cert}, {@code --tls-key}) with a certificate
 * made by openssl: a client that trusts it is served, TLS below 1.2 is refused, answers carry
 * HSTS and the console's cookie is Secure; a broker on plain HTTP sends neither, unless the
 * proxy in front says the client came over https.
 */
@Tag("e2e")
class TlsEndToEndTest {
    static final String FORM = "application/x-www-form-urlencoded";
    @TempDir static Path work;
    static EchoPartner partner;
    static Broker tls;
    static Broker plain;
    static Path cert;
    static Path key;
    static HttpClient trusting;
    static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        Path[] made = TestCertificates.selfSigned(work, "broker");
        cert = made[0];
        key = made[1];
        assertTrue(Files.readString(key).contains("-----BEGIN PRIVATE KEY-----"), "openssl writes PKCS#8");
        trusting = HttpClient.newBuilder().sslContext(TestCertificates.trusting(cert)).build();
        Files.writeString(work.resolve("seed.yaml"), BrokerKnowledgeBaseTest.seed().replace("users:\n",
                "users:\n  - {name: olga, class: gold, rate: 0, password: olga-secret, role: operator}\n"));
        partner = new EchoPartner(0);
        tls = new Broker(config("tls").withTls(cert, key));
        tls.start();
        plain = new Broker(config("plain"));
        plain.start();
    }

    static BrokerConfig config(String name) {
        return BrokerConfig.defaults().withAdaptation(Adaptation.off()).withPort(0).withWorkDir(work.resolve(name)).withDb("mem:tls-" + name)
                .withSeeds(List.of(work.resolve("seed.yaml"))).withVariables(Map.of("PARTNER", partner.url("")))
                .withDeployments(List.of(Path.of("src/test/resources/processes/echo-pair")));
    }

    @AfterAll
    static void stop() {
        if (tls != null) tls.close();
        if (plain != null) plain.close();
        if (partner != null) partner.close();
    }

    static String https(String path) {
        return "https://localhost:" + tls.port() + path;
    }

    static HttpResponse<String> login(HttpClient client, String url, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).header("Content-Type", FORM)
                .POST(HttpRequest.BodyPublishers.ofString("user=olga&password=olga-secret"));
        if (headers.length > 0) b.headers(headers);
        HttpResponse<String> r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(302, r.statusCode(), r.body());
        return r;
    }

    @Test
    void aClientThatTrustsTheCertificateIsServedOverHttpsWithHsts() throws Exception {
        HttpResponse<String> health = trusting.send(HttpRequest.newBuilder(URI.create(https("/health"))).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, health.statusCode(), health.body());
        assertEquals("max-age=31536000", health.headers().firstValue("Strict-Transport-Security").orElse(null));
        assertEquals("https", health.uri().getScheme());
        // a composite request, and an error: every answer over TLS says so
        HttpResponse<String> pair = trusting.send(HttpRequest.newBuilder(URI.create(https("/services/EchoPairService")))
                .header("Content-Type", "text/xml; charset=utf-8")
                .header("Authorization", "Basic " + java.util.Base64.getEncoder().encodeToString("alice:alice-secret".getBytes()))
                .POST(HttpRequest.BodyPublishers.ofString(BrokerInProcessTest.pair("over-tls"))).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, pair.statusCode(), pair.body());
        assertTrue(pair.body().contains("over-tls via /left"), pair.body());
        assertTrue(pair.headers().firstValue("Strict-Transport-Security").isPresent());
        HttpResponse<String> missing = trusting.send(HttpRequest.newBuilder(URI.create(https("/nothing-here"))).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(404, missing.statusCode());
        assertEquals("max-age=31536000", missing.headers().firstValue("Strict-Transport-Security").orElse(null));
    }

    @Test
    void aClientThatDoesNotTrustTheCertificateIsRefusedAndPlainHttpIsNotServed() throws Exception {
        assertThrows(SSLHandshakeException.class, () -> HTTP.send(HttpRequest.newBuilder(URI.create(https("/health"))).build(),
                HttpResponse.BodyHandlers.ofString()));
        // plain HTTP to the TLS port gets no answer of the broker's
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + tls.port() + "/health")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertNotEquals(200, r.statusCode(), r.body());
        } catch (java.io.IOException closed) {
            // the TLS side closed the connection
        }
    }

    @Test
    void tls12And13AreServedAndOlderVersionsRefused() throws Exception {
        for (String version : List.of("TLSv1.2", "TLSv1.3")) {
            SSLParameters only = new SSLParameters();
            only.setProtocols(new String[] {version});
            HttpClient c = HttpClient.newBuilder().sslContext(TestCertificates.trusting(cert)).sslParameters(only).build();
            HttpResponse<String> r = c.send(HttpRequest.newBuilder(URI.create(https("/health"))).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), version);
            assertEquals(version, r.sslSession().orElseThrow().getProtocol());
        }
        // this JDK's own client will not speak TLS 1.1 at all: openssl's, allowed to, tries
        String ok = sClient("-tls1_2");
        assertTrue(ok.contains("TLSv1.2"), ok);
        String old = sClient("-tls1_1");
        org.junit.jupiter.api.Assumptions.assumeFalse(old.contains("unknown option") || old.contains("no protocols available"),
                "this openssl cannot offer TLS 1.1 itself: " + old);
        assertTrue(old.contains("exit 1"), old);
        assertTrue(old.contains("alert protocol version") || old.contains("alert handshake failure"), "the broker refused it: " + old);
    }

    /** openssl s_client with one TLS version against the broker; its output and exit status. */
    static String sClient(String version) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("openssl", "s_client", "-connect", "127.0.0.1:" + tls.port(), version,
                "-cipher", "DEFAULT@SECLEVEL=0", "-CAfile", cert.toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close(); // nothing to send: s_client ends after the handshake
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        return out + "\nexit " + p.exitValue();
    }

    @Test
    void theConsolesCookieIsSecureOverHttpsOnly() throws Exception {
        String overTls = login(trusting, https("/console/login")).headers().firstValue("Set-Cookie").orElseThrow();
        assertTrue(overTls.startsWith("moses_console=") && overTls.contains("; Secure") && overTls.contains("HttpOnly")
                && overTls.contains("SameSite=Strict"), overTls);
        HttpResponse<String> overHttp = login(HTTP, "http://127.0.0.1:" + plain.port() + "/console/login");
        String cookie = overHttp.headers().firstValue("Set-Cookie").orElseThrow();
        assertTrue(cookie.startsWith("moses_console=") && !cookie.contains("Secure"), cookie);
        assertFalse(overHttp.headers().firstValue("Strict-Transport-Security").isPresent(), "no HSTS over plain HTTP");
        HttpResponse<String> health = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + plain.port() + "/health")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertFalse(health.headers().firstValue("Strict-Transport-Security").isPresent(), "no HSTS over plain HTTP");
    }

    @Test
    void behindAProxyThatTerminatedTlsTheCookieIsSecureAndHstsSent() throws Exception {
        HttpResponse<String> r = login(HTTP, "http://127.0.0.1:" + plain.port() + "/console/login", "X-Forwarded-Proto", "https");
        assertTrue(r.headers().firstValue("Set-Cookie").orElseThrow().contains("; Secure"), r.headers().map().toString());
        assertEquals("max-age=31536000", r.headers().firstValue("Strict-Transport-Security").orElse(null));
        HttpResponse<String> health = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + plain.port() + "/health"))
                .header("X-Forwarded-Proto", "http").build(), HttpResponse.BodyHandlers.ofString());
        assertFalse(health.headers().firstValue("Strict-Transport-Security").isPresent(), "the proxy says plain http");
    }

    /** The read deadline holds over TLS too: headers dripped a byte at a time are cut off (as SlowClientsTest over plain HTTP). */
    @Test
    void slowHeadersOverTlsAreClosedAtTheReadDeadline() throws Exception {
        java.util.concurrent.ScheduledExecutorService pace = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        try (Broker slow = new Broker(config("slow").withTls(cert, key).withReadDeadline(java.time.Duration.ofSeconds(1)))) {
            slow.start();
            try (javax.net.ssl.SSLSocket s = (javax.net.ssl.SSLSocket) TestCertificates.trusting(cert).getSocketFactory()
                    .createSocket("127.0.0.1", slow.port())) {
                s.startHandshake();
                s.setSoTimeout(120_000);
                java.io.OutputStream out = s.getOutputStream();
                out.write("POST /services/EchoPairService HTTP/1.1\r\nHost: 127.0.0.1\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                out.flush();
                // a byte every 200 ms for 40 s: never idle long enough for the idle timeout (30 s)
                byte[] drip = ("X-Slow: " + "a".repeat(200)).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                java.util.concurrent.atomic.AtomicInteger sent = new java.util.concurrent.atomic.AtomicInteger();
                pace.scheduleAtFixedRate(() -> {
                    int i = sent.get();
                    if (i >= drip.length) return;
                    try {
                        out.write(drip[i]);
                        out.flush();
                        sent.incrementAndGet();
                    } catch (java.io.IOException closed) {
                        // the broker closed it: the read below sees that
                    }
                }, 0, 200, TimeUnit.MILLISECONDS);
                try {
                    assertEquals(-1, s.getInputStream().read(), "nothing answered, the connection closed");
                } catch (java.io.IOException closed) {
                    // reset: closed as well
                }
                assertTrue(sent.get() < drip.length, "closed by the broker while the client was still sending (" + sent.get() + " bytes)");
            }
        } finally {
            pace.shutdownNow();
        }
    }

    /**
     * Two replicas serving TLS with one certificate over one knowledge base: a conversation's
     * close sent to the replica that does not hold its instance is forwarded to the owner over
     * TLS (the owner registered https://) and answered.
     */
    @Test
    void aReplicaServingTlsForwardsAConversationToItsOwnerOverTls() throws Exception {
        java.util.concurrent.Semaphore notified = new java.util.concurrent.Semaphore(0);
        com.sun.net.httpserver.HttpServer signal = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 10);
        signal.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(202, -1);
            exchange.close();
            notified.release();
        });
        signal.start();
        Path seed = work.resolve("seed-scope.yaml");
        Files.writeString(seed, "composite: ScopeCase\nservices:\n  - {name: ScopeCase-waiting, task: signal.notify, "
                + "endpoint: \"${PARTNER}/ScopeCase\", responseTime: 0.1, availability: 0.99, cost: 1, maxRate: 100}\n");
        BrokerConfig base = BrokerConfig.defaults().withAdaptation(Adaptation.off()).withPort(0).withDb("mem:tls-forward").withTls(cert, key)
                .withDeployments(List.of(Path.of("src/test/resources/processes/conformance")));
        java.time.Duration lease = java.time.Duration.ofSeconds(3);
        Broker r1 = new Broker(base.withWorkDir(work.resolve("fwd-r1")).withSeeds(List.of(seed))
                .withVariables(Map.of("PARTNER", "http://127.0.0.1:" + signal.getAddress().getPort())),
                new io.moses.core.cluster.ClusterSettings("r1", lease, java.time.Duration.ZERO));
        Broker r2 = new Broker(base.withWorkDir(work.resolve("fwd-r2")), new io.moses.core.cluster.ClusterSettings("r2", lease, java.time.Duration.ZERO));
        try {
            r1.start();
            r2.start();
            HttpResponse<String> opened = conformance(r1, "open", ConformanceEndToEndTest.open(7, "case-7"));
            assertTrue(opened.statusCode() / 100 == 2, opened.statusCode() + " " + opened.body());
            assertTrue(notified.tryAcquire(60, TimeUnit.SECONDS), "the instance on r1 waits for its close");
            // r2 holds no instance: it waits for the owner's registration and forwards the close
            HttpResponse<String> closed = conformance(r2, "close", ConformanceEndToEndTest.close(7));
            assertEquals(200, closed.statusCode(), closed.body());
            assertTrue(closed.body().contains(">case-7<"), closed.body());
            // r2 forwarded it, and r1 serves nothing but TLS
            String metrics = trusting.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + r2.port() + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(metrics.contains("moses_conversation_forwarded_total 1.0"), metrics);
        } finally {
            r2.close();
            r1.close();
            signal.stop(0);
        }
    }

    static HttpResponse<String> conformance(Broker replica, String operation, String payload) throws Exception {
        return trusting.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + replica.port() + "/services/ScopeCaseService"))
                .header("Content-Type", "text/xml; charset=utf-8").header("SOAPAction", "\"" + ConformanceEndToEndTest.NS + "/" + operation + "\"")
                .timeout(java.time.Duration.ofSeconds(120))
                .POST(HttpRequest.BodyPublishers.ofString(ConformanceEndToEndTest.ENV + payload + ConformanceEndToEndTest.END)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** What a replica that serves TLS forwards conversations with: it trusts its own certificate (replicas sharing one). */
    @Test
    void aReplicasCallsToTheOthersTrustItsOwnCertificateAndCheckTheName() throws Exception {
        io.moses.core.frontend.TlsIdentity own = io.moses.core.frontend.TlsIdentity.load(cert, key);
        HttpClient peer = HttpClient.newBuilder().sslContext(own.peerContext()).build();
        for (String host : List.of("127.0.0.1", "localhost")) {
            HttpResponse<String> r = peer.send(HttpRequest.newBuilder(URI.create("https://" + host + ":" + tls.port() + "/health")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), host);
        }
        // another certificate is not trusted
        Path[] other = TestCertificates.selfSigned(work, "peer-other");
        HttpClient stranger = HttpClient.newBuilder().sslContext(io.moses.core.frontend.TlsIdentity.load(other[0], other[1]).peerContext()).build();
        assertThrows(SSLHandshakeException.class, () -> stranger.send(HttpRequest.newBuilder(URI.create(https("/health"))).build(),
                HttpResponse.BodyHandlers.ofString()));
        // nor is a name the certificate does not give (the replica's address must be in it)
        Path[] elsewhere = {work.resolve("elsewhere.crt"), work.resolve("elsewhere.key")};
        TestCertificates.run(List.of("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", elsewhere[1].toString(),
                "-out", elsewhere[0].toString(), "-days", "2", "-subj", "/CN=elsewhere", "-addext", "subjectAltName=DNS:elsewhere.example"));
        try (Broker named = new Broker(config("named").withTls(elsewhere[0], elsewhere[1]))) {
            named.start();
            HttpClient sameCert = HttpClient.newBuilder().sslContext(io.moses.core.frontend.TlsIdentity.load(elsewhere[0], elsewhere[1]).peerContext()).build();
            assertThrows(SSLHandshakeException.class, () -> sameCert.send(HttpRequest.newBuilder(
                    URI.create("https://127.0.0.1:" + named.port() + "/health")).build(), HttpResponse.BodyHandlers.ofString()));
        }
    }

    @Test
    void anUnusableCertificateOrKeyIsSaidAtStartWithoutAStackTrace() throws Exception {
        Path other = TestCertificates.selfSigned(work, "other")[1];
        Path missing = work.resolve("missing.pem");
        Path combined = work.resolve("combined.pem");
        Files.writeString(combined, Files.readString(cert) + Files.readString(key));
        Path noKey = work.resolve("no-key.pem");
        Files.writeString(noKey, Files.readString(cert));
        Map<List<Path>, String> cases = new java.util.LinkedHashMap<>();
        cases.put(List.of(cert, other), "--tls-key " + other + ": the key is not the one of the certificate in --tls-cert " + cert);
        cases.put(List.of(missing, key), "--tls-cert " + missing + ": no such file");
        cases.put(List.of(key, key), "no PEM certificate");
        cases.put(List.of(noKey), "--tls-cert " + noKey + ": no PEM private key");
        for (var c : cases.entrySet()) {
            Path k = c.getKey().size() > 1 ? c.getKey().get(1) : null;
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> io.moses.core.frontend.TlsIdentity.load(c.getKey().get(0), k));
            assertTrue(e.getMessage().contains(c.getValue()), e.getMessage());
        }
        // the key in the certificate's file, as HAProxy takes it, is read too
        assertEquals(1, io.moses.core.frontend.TlsIdentity.load(combined, null).chain().size());
        // moses run itself: one line that says why, exit status 1, and no stack trace
        try (ChildProcess run = new ChildProcess("io.moses.core.Main", List.of("--port", "0", "--work", work.resolve("run").toString(),
                "--db", "mem:tls-run", "--tls-cert", cert.toString(), "--tls-key", other.toString()))) {
            assertTrue(run.process.waitFor(120, TimeUnit.SECONDS));
            String out = run.finalOutput();
            assertEquals(1, run.process.exitValue(), out);
            assertTrue(out.contains("moses run: cannot start: --tls-key " + other + ": the key is not the one of the certificate"), out);
            assertFalse(out.contains("\tat ") || out.contains("Exception"), out);
        }
    }
}
