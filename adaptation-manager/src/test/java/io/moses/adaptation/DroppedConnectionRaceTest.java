package io.moses.adaptation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

/**
 * A provider that reads the whole request and then closes the connection without answering
 * may have processed the call: every such call must end as {@link CallEnd#PROTOCOL}, never
 * as {@link CallEnd#CONNECT} (which would send it to a second provider). The server's
 * close races with the client's own bookkeeping after its write; many calls at once on fresh
 * connections, with threads hogging the CPU, make the race happen (under a classification that
 * depends on which of the two runs first, it did within a few hundred calls).
 */
@Tag("e2e")
class DroppedConnectionRaceTest {
    static final int CALLS_AT_ONCE = 8;
    static final int MAX_ROUNDS = 150;
    static final long MAX_NANOS = TimeUnit.SECONDS.toNanos(30);

    @Test
    void everyDroppedCallThatReachedTheServerIsAProtocolFailure() throws Exception {
        Element body = Xml.parse("<q:ask xmlns:q='urn:test'/>".getBytes(StandardCharsets.UTF_8)).getDocumentElement();
        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> hogs = new ArrayList<>();
        List<Thread> readers = new ArrayList<>();
        Thread acceptor = null;
        AtomicInteger received = new AtomicInteger();
        Map<CallEnd, Integer> kinds = new TreeMap<>();
        List<String> reasons = new ArrayList<>(); // the first of each kind
        int sent = 0;
        try (ServerSocket server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
                SoapClient client = new SoapClient(Duration.ofSeconds(5), null)) {
            acceptor = new Thread(() -> acceptReadAndClose(server, received, readers), "dropping-server");
            acceptor.start();
            for (int i = 0; i < Runtime.getRuntime().availableProcessors(); i++) {
                Thread hog = new Thread(() -> {
                    long x = 0;
                    while (running.get()) x += System.nanoTime() % 7; // keeps every core busy
                    if (x == 42) System.out.print("");
                }, "cpu-hog-" + i);
                hog.setDaemon(true);
                hogs.add(hog);
                hog.start();
            }
            URI uri = URI.create("http://127.0.0.1:" + server.getLocalPort() + "/dropper");
            long deadline = System.nanoTime() + MAX_NANOS;
            for (int round = 0; round < MAX_ROUNDS && System.nanoTime() < deadline; round++) {
                List<CompletableFuture<CallOutcome>> calls = new ArrayList<>();
                for (int i = 0; i < CALLS_AT_ONCE; i++) calls.add(client.call(uri, "urn:test:ask", body, Duration.ofSeconds(30)));
                sent += CALLS_AT_ONCE;
                for (CompletableFuture<CallOutcome> c : calls) {
                    CallOutcome r = c.get(60, TimeUnit.SECONDS);
                    CallOutcome.CallFailure f = assertInstanceOf(CallOutcome.CallFailure.class, r, "the server never answers");
                    if (kinds.merge(f.kind(), 1, Integer::sum) == 1) reasons.add(f.reason());
                }
            }
        } finally {
            running.set(false); // the client and the server socket are closed by now
            for (Thread t : hogs) t.join(10_000);
            if (acceptor != null) acceptor.join(10_000);
            synchronized (readers) {
                for (Thread t : readers) t.join(10_000);
            }
        }
        assertEquals(sent, received.get(), "every request reached the server whole");
        assertEquals(Map.of(CallEnd.PROTOCOL, sent), kinds, "calls that reached the server, by the kind the client gave them; " + reasons);
    }

    /**
     * Accepts connections, each read on a thread of its own (the client may open a connection
     * that no request uses), reads each request whole (head and Content-Length body), then
     * closes it unanswered.
     */
    private static void acceptReadAndClose(ServerSocket server, AtomicInteger received, List<Thread> readers) {
        while (true) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            Thread reader = new Thread(() -> {
                try (s) {
                    readRequest(s.getInputStream());
                    received.incrementAndGet();
                } catch (IOException e) {
                    // the client closed a connection it did not use: no request
                }
            }, "dropping-server-connection");
            synchronized (readers) {
                readers.add(reader);
            }
            reader.start();
        }
    }

    private static void readRequest(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) throw new IOException("end of stream in the request head");
            head.append((char) b);
        }
        int length = 0;
        for (String line : head.toString().split("\r\n"))
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) length = Integer.parseInt(line.substring(15).trim());
        if (in.readNBytes(length).length != length) throw new IOException("end of stream in the request body");
    }
}
