package io.moses.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.moses.adaptation.InvokeOutcome;
import io.moses.testing.Waits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.xml.namespace.QName;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * What a deploy leaves behind: a refused unit leaves no work directory, and a redeploy retires
 * the version it replaces from ODE once no instance runs on it (before, every version stayed
 * registered until undeploy, and a refused unit's compiled copy stayed in the work directory).
 */
class DeploymentLifecycleTest {
    static final String EP = "urn:moses:test:echo-pair", PT = "urn:moses:test:partner";
    static final QName SERVICE = new QName(EP, "EchoPairService");

    @TempDir Path tmp;
    BpelEngine engine;
    /** Partner calls whose text is "hold" count this down, then wait for {@link #release}. */
    final CountDownLatch held = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    @BeforeEach
    void start() {
        engine = new BpelEngine(tmp.resolve("work"), invocation -> {
            String text = invocation.body().getTextContent().trim();
            return CompletableFuture.supplyAsync(() -> {
                if (text.equals("hold")) {
                    held.countDown();
                    await(release);
                }
                return new InvokeOutcome.InvokeReply(echoResponse(text), "partner");
            });
        }, 4);
        engine.start();
    }

    @AfterEach
    void stop() {
        release.countDown();
        engine.close();
    }

    @Test
    void aRefusedUnitLeavesNoWorkDirectoryAndSaysWhy() throws Exception {
        Path broken = unit("v1", "echo-pair");
        Path bpel = broken.resolve("EchoPair.bpel");
        Files.writeString(bpel, Files.readString(bpel).replace("operation=\"echo\"", "operation=\"noSuchOperation\""));
        DeploymentException e = assertThrows(DeploymentException.class, () -> engine.deploy(broken));
        assertTrue(e.getMessage().contains("invalid BPEL EchoPair.bpel"), e.getMessage());
        assertEquals(List.of(), workDirs());

        // refused after it compiled: a second unit providing the same service
        engine.deploy(unit("v2", "echo-pair"));
        e = assertThrows(DeploymentException.class, () -> engine.deploy(unit("v3", "echo-pair-copy")));
        assertTrue(e.getMessage().contains("is already provided by another deployment"), e.getMessage());
        assertEquals(1, workDirs().size(), "only the deployed unit's directory: " + workDirs());
        assertEquals(1, engine.registeredVersions().size(), "the refused unit's process is not registered: " + engine.registeredVersions());
        assertEquals("a|a", pair("a"));
    }

    @Test
    void aRedeployRetiresTheVersionItReplaces() throws Exception {
        engine.deploy(unit("v1", "echo-pair"));
        Set<QName> first = engine.registeredVersions();
        assertEquals(1, first.size());
        for (String v : List.of("v2", "v3")) {
            engine.redeploy("echo-pair", unit(v, "echo-pair"));
            assertEquals(1, engine.registeredVersions().size(), "registered after " + v + ": " + engine.registeredVersions());
            assertEquals(1, workDirs().size(), "work directories after " + v + ": " + workDirs());
            assertEquals(v + "|" + v, pair(v));
        }
        assertTrue(engine.registeredVersions().stream().noneMatch(first::contains), "v1 still registered");
        engine.undeploy("echo-pair");
        assertEquals(Set.of(), engine.registeredVersions());
        assertEquals(List.of(), workDirs());
    }

    @Test
    void aVersionWithARunningInstanceStaysUntilItEnds() throws Exception {
        engine.deploy(unit("v1", "echo-pair"));
        CompletableFuture<String> running = CompletableFuture.supplyAsync(() -> pair("hold"));
        await(held); // its instance runs on v1
        engine.redeploy("echo-pair", unit("v2", "echo-pair"));
        assertEquals(2, engine.registeredVersions().size(), "the held request's version must stay registered");
        assertEquals("new|new", pair("new")); // a request on v2 while v1 runs
        assertEquals(2, engine.registeredVersions().size(), "the held request's version must stay registered");
        release.countDown();
        assertEquals("hold|hold", running.get(120, TimeUnit.SECONDS));
        // retirement is checked after each request: the instance may end just after its reply (a
        // generous deadline: the machine may be loaded)
        Waits.until("v1 retired after its instance ended", 120,
                () -> pair("tick").equals("tick|tick") && engine.registeredVersions().size() == 1);
        assertEquals(1, workDirs().size(), "work directories: " + workDirs());
    }

    private String pair(String text) {
        CompositeOutcome out = engine.invoke(SERVICE, "pair", element(EP, "pair", "text", text), "gold", Duration.ofSeconds(120));
        Element body = assertInstanceOf(CompositeOutcome.CompositeReply.class, out, out.toString()).body();
        return body.getElementsByTagNameNS(EP, "left").item(0).getTextContent() + "|"
                + body.getElementsByTagNameNS(EP, "right").item(0).getTextContent();
    }

    private static Element echoResponse(String text) {
        return element(PT, "echoResponse", "result", text);
    }

    /** {@code <outer><inner>text</inner></outer>} in namespace {@code ns}. */
    static Element element(String ns, String outer, String inner, String text) {
        try {
            Document doc = DocumentBuilderFactory.newDefaultNSInstance().newDocumentBuilder().newDocument();
            Element o = doc.createElementNS(ns, outer);
            Element i = doc.createElementNS(ns, inner);
            i.setTextContent(text);
            o.appendChild(i);
            doc.appendChild(o);
            return o;
        } catch (javax.xml.parsers.ParserConfigurationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A copy of the echo pair unit named {@code name}, in a directory of its own for {@code version}. */
    private Path unit(String version, String name) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("units").resolve(version).resolve(name));
        try (var files = Files.list(Path.of("src/test/resources/processes/echo-pair"))) {
            for (Path f : files.toList()) Files.copy(f, dir.resolve(f.getFileName()));
        }
        return dir;
    }

    private List<String> workDirs() throws Exception {
        Path processes = tmp.resolve("work").resolve("processes");
        if (!Files.isDirectory(processes)) return List.of();
        try (var dirs = Files.list(processes)) {
            return dirs.map(d -> d.getFileName().toString()).sorted().toList();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(120, TimeUnit.SECONDS)) throw new IllegalStateException("never released");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
