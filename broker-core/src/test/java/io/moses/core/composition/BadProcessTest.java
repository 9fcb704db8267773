package io.moses.core.composition;

import static io.moses.core.composition.BehavioralModelBuilderTest.BPEL20;
import static io.moses.core.composition.BehavioralModelBuilderTest.parse;
import static io.moses.core.composition.BehavioralModelBuilderTest.process;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input: a clear IllegalArgumentException naming the input and the problem, nothing read but the input. */
class BadProcessTest {
    private static final String SECRET = "s3cr3t-7f1c2a";

    @TempDir Path dir;

    private static String refused(String xml, String... expected) {
        var e = assertThrows(IllegalArgumentException.class, () -> parse(xml));
        String msg = e.getMessage();
        assertTrue(msg.startsWith("inline.bpel: "), msg);
        for (String s : expected) assertTrue(msg.contains(s), "expected \"" + s + "\" in: " + msg);
        return msg;
    }

    @Test
    void malformedXml() {
        refused(process("<sequence><empty/>"), "not well-formed XML at line 1");
        refused("", "not well-formed XML");
        refused("this is not xml", "not well-formed XML");
    }

    @Test
    void notBpel() {
        refused("<definitions xmlns=\"http://schemas.xmlsoap.org/wsdl/\"/>",
                "not a WS-BPEL process", "{http://schemas.xmlsoap.org/wsdl/}definitions");
        refused("<process name=\"P\" targetNamespace=\"urn:p\"><empty/></process>", "not a WS-BPEL process", "root element is process");
        refused("<process name=\"P\" targetNamespace=\"urn:p\" xmlns=\"http://docs.oasis-open.org/wsbpel/2.0/process/abstract\"><empty/></process>",
                "abstract WS-BPEL process");
    }

    @Test
    void processAttributes() {
        refused("<process targetNamespace=\"urn:p\" xmlns=\"" + BPEL20 + "\"><empty/></process>", "/process has no name");
        refused("<process name=\" \" targetNamespace=\"urn:p\" xmlns=\"" + BPEL20 + "\"><empty/></process>", "/process has no name");
        refused("<process name=\"P\" xmlns=\"" + BPEL20 + "\"><empty/></process>", "/process has no targetNamespace");
    }

    @Test
    void invokeWithoutPartnerLinkOrOperation() {
        refused(process("<sequence><empty/><invoke name=\"pay\" operation=\"charge\"/></sequence>"),
                "invoke /process/sequence[1]/invoke[1] (name \"pay\") has no partnerLink attribute");
        refused(process("<sequence><invoke partnerLink=\"payment\"/></sequence>"),
                "invoke /process/sequence[1]/invoke[1] has no operation attribute");
        // also in a handler, off the tree
        refused(process("<scope><faultHandlers><catchAll><invoke partnerLink=\"ops\" operation=\"\"/></catchAll></faultHandlers>"
                + "<empty/></scope>"), "/process/scope[1]/faultHandlers[1]/catchAll[1]/invoke[1] has no operation");
    }

    @Test
    void wrongNumberOfActivities() {
        refused(process(""), "process /process (name \"P\") must contain exactly one activity, found 0");
        refused(process("<empty/><empty/>"), "process /process (name \"P\") must contain exactly one activity, found 2");
        refused(process("<while><condition>1</condition></while>"), "while /process/while[1] must contain exactly one activity, found 0");
        refused(process("<repeatUntil><empty/><empty/><condition>1</condition></repeatUntil>"), "repeatUntil /process/repeatUntil[1]", "found 2");
        refused(process("<scope name=\"s\"><faultHandlers><catchAll><empty/></catchAll></faultHandlers></scope>"),
                "scope /process/scope[1] (name \"s\") must contain exactly one activity, found 0");
        refused(process("<if><condition>1</condition><empty/><else/></if>"), "else /process/if[1]/else[1]", "found 0");
        refused(process("<if><condition>1</condition><else><empty/></else></if>"), "if /process/if[1]", "found 0");
        refused(process("<pick/>"), "pick /process/pick[1] has no onMessage or onAlarm");
        refused(process("<forEach parallel=\"maybe\" counterName=\"i\"><scope><empty/></scope></forEach>"),
                "forEach /process/forEach[1] has parallel=\"maybe\", expected yes or no");
    }

    @Test
    void missingFile() {
        Path p = dir.resolve("Missing.bpel");
        var e = assertThrows(IllegalArgumentException.class, () -> BehavioralModelBuilder.build(p));
        assertTrue(e.getMessage().contains("Missing.bpel") && e.getMessage().contains("no such BPEL file"), e.getMessage());
    }

    @Test
    void fileNameInMessages() throws IOException {
        Path p = dir.resolve("Broken.bpel");
        Files.writeString(p, process("<sequence><invoke operation=\"o\"/></sequence>"));
        var e = assertThrows(IllegalArgumentException.class, () -> BehavioralModelBuilder.build(p));
        assertTrue(e.getMessage().startsWith(p + ": invoke /process/sequence[1]/invoke[1]"), e.getMessage());
    }

    @Test
    void xxeDoesNotReadAFile() throws IOException {
        Path secret = dir.resolve("secret.txt");
        Files.writeString(secret, SECRET);
        // the entity would land in an attribute of the tree and in a task name if it were expanded
        String xml = "<?xml version=\"1.0\"?>\n<!DOCTYPE process [\n"
                + "  <!ENTITY xxe SYSTEM \"" + secret.toUri() + "\">\n"
                + "  <!ENTITY % pe SYSTEM \"" + secret.toUri() + "\"> %pe;\n]>\n"
                + process("<invoke partnerLink=\"p\" operation=\"o\"><documentation>&xxe;</documentation></invoke>");
        String msg = refused(xml, "a DOCTYPE is not allowed");
        assertFalse(msg.contains(SECRET), msg);
    }

    @Test
    void externalDtdIsNotFetched() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            AtomicInteger connections = new AtomicInteger();
            Thread t = new Thread(() -> {
                while (true) {
                    try (Socket s = server.accept()) {
                        connections.incrementAndGet();
                    } catch (SocketException closed) {
                        return;
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            t.setDaemon(true);
            t.start();
            String url = "http://127.0.0.1:" + server.getLocalPort() + "/evil.dtd";
            refused("<!DOCTYPE process SYSTEM \"" + url + "\">" + process("<empty/>"), "DOCTYPE is not allowed");
            refused("<!DOCTYPE process [<!ENTITY % remote SYSTEM \"" + url + "\"> %remote;]>" + process("<empty/>"),
                    "DOCTYPE is not allowed");
            // a schemaLocation is not fetched either: the parser does not validate
            parse(process("<empty xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:schemaLocation=\"urn:x "
                    + url + "\"/>"));
            // a marker connection of our own: the server accepts in order, so once it has counted
            // the marker it has counted every connection the parser could have made before
            try (Socket marker = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort())) {
                long deadline = System.nanoTime() + 30_000_000_000L; // bounds a hang only
                while (connections.get() == 0 && System.nanoTime() < deadline) Thread.onSpinWait();
            }
            assertEquals(1, connections.get(), "the marker only: " + connections.get() + " connections to the DTD server");
        }
    }

    @Test
    void entityBombIsRefusedQuickly() {
        StringBuilder dtd = new StringBuilder("<!DOCTYPE process [<!ENTITY l0 \"lol\">");
        for (int i = 1; i < 10; i++)
            dtd.append("<!ENTITY l").append(i).append(" \"").append(("&l" + (i - 1) + ";").repeat(10)).append("\">");
        dtd.append("]>");
        String xml = dtd + process("<empty><documentation>&l9;</documentation></empty>");
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> refused(xml, "DOCTYPE is not allowed"));
    }

    @Test
    void xincludeIsNotProcessed() throws IOException {
        // With XInclude on, this would become a process that invokes leak.secret.
        Path included = dir.resolve("included.xml");
        Files.writeString(included, "<sequence xmlns=\"" + BPEL20 + "\"><invoke partnerLink=\"leak\" operation=\""
                + SECRET + "\"/></sequence>", StandardCharsets.UTF_8);
        String xml = process("<xi:include xmlns:xi=\"http://www.w3.org/2001/XInclude\" href=\"" + included.toUri() + "\"/>");
        String msg = refused(xml, "must contain exactly one activity, found 0");
        assertFalse(msg.contains(SECRET), msg);
    }
}
