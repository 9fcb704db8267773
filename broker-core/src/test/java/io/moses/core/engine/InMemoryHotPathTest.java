package io.moses.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static io.moses.core.engine.DeploymentLifecycleTest.element;

import io.moses.adaptation.InvokeOutcome;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.Mdal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import javax.xml.namespace.QName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;

/**
 * An engine with a durable store beside it keeps the database off an in-memory process's
 * request path: a hundred requests of the in-memory echo pair take no connection of the store,
 * and one request of the same process deployed durable takes some (the count counts).
 */
class InMemoryHotPathTest {
    static final String EP = "urn:moses:test:echo-pair", PT = "urn:moses:test:partner";

    @TempDir Path tmp;

    @Test
    void anInMemoryRequestMakesNoKnowledgeBaseCall() throws Exception {
        try (KnowledgeBase kb = Mdal.open("mem:hot-path-" + System.nanoTime())) {
            BpelEngine engine = new BpelEngine(tmp.resolve("work"), invocation -> {
                String text = invocation.body().getTextContent().trim();
                return CompletableFuture.completedFuture(new InvokeOutcome.InvokeReply(element(PT, "echoResponse", "result", text), "partner"));
            }, 4, 0, kb.processDatabase().orElseThrow(), "hot-path", () -> null, null);
            try {
                engine.start();
                engine.deploy(unit("echo-pair", true));
                engine.deploy(unit("echo-durable", false));
                assertEquals("in-memory", engine.deployments().get(0).mode(new QName(EP, "EchoPair")));
                assertEquals("durable", engine.deployments().get(1).mode(new QName("urn:moses:test:echo-durable", "EchoPair")));
                pair(engine, new QName(EP, "EchoPairService"), EP, "warm"); // the first request loads what the process needs
                long before = engine.durableStoreConnections();
                for (int i = 0; i < 100; i++) assertEquals("t" + i + "|t" + i, pair(engine, new QName(EP, "EchoPairService"), EP, "t" + i));
                assertEquals(before, engine.durableStoreConnections(), "connections taken by 100 in-memory requests");

                String ns = "urn:moses:test:echo-durable";
                assertEquals("d|d", pair(engine, new QName(ns, "EchoPairService"), ns, "d"));
                assertTrue(engine.durableStoreConnections() > before, "a durable request writes its instance: the count counts");
            } finally {
                engine.close();
            }
        }
    }

    private static String pair(BpelEngine engine, QName service, String ns, String text) {
        CompositeOutcome out = engine.invoke(service, "pair", element(ns, "pair", "text", text), "gold", Duration.ofSeconds(60));
        Element body = assertInstanceOf(CompositeOutcome.CompositeReply.class, out, out.toString()).body();
        return body.getElementsByTagNameNS(ns, "left").item(0).getTextContent() + "|"
                + body.getElementsByTagNameNS(ns, "right").item(0).getTextContent();
    }

    /** The echo pair unit; for a durable copy its namespace (and so its service) is renamed, and deploy.xml says nothing of in-memory. */
    private Path unit(String name, boolean inMemory) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("units").resolve(name));
        try (var files = Files.list(Path.of("src/test/resources/processes/echo-pair"))) {
            for (Path f : files.toList()) {
                String text = Files.readString(f);
                if (!inMemory) text = text.replace(EP, "urn:moses:test:echo-durable").replace("<in-memory>true</in-memory>", "");
                Files.writeString(dir.resolve(f.getFileName()), text);
            }
        }
        return dir;
    }
}
