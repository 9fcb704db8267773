package io.moses.core.engine;

import io.moses.adaptation.InvokeHandler;
import io.moses.adaptation.InvokeOutcome;
import io.moses.adaptation.Xml;
import java.io.ByteArrayInputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import javax.xml.namespace.QName;
import org.w3c.dom.Element;

/**
 * A benchmark, not a test (run by {@code loadtest/bench-engine.sh}): the trip planner on the
 * broker's {@link BpelEngine} alone, with partners that answer at once in-process (no HTTP, no
 * SOAP, no Adaptation Manager, no monitors). Its throughput and CPU per request are the
 * engine's own ceiling, against which the whole broker's cost is read.
 *
 * <p>Partner replies are parsed into the engine's DOM (Xerces) on a reply thread, as the SOAP
 * client does; requests are parsed on the client threads, as the front-end does.
 *
 * <pre>java -cp ... io.moses.core.engine.EngineCeiling UNIT_DIR CLIENTS SECONDS ROUNDS</pre>
 */
public final class EngineCeiling {
    private static final Map<String, String> REPLIES = Map.of(
            "flight", "<t:findFlightResponse xmlns:t=\"urn:moses:task:flight\"><t:result>flight AZ1 for x by flight-a</t:result></t:findFlightResponse>",
            "hotel", "<t:findHotelResponse xmlns:t=\"urn:moses:task:hotel\"><t:result>room 1 for x by hotel-a</t:result></t:findHotelResponse>",
            "weather", "<t:getForecastResponse xmlns:t=\"urn:moses:task:weather\"><t:result>sunny in x by weather-a</t:result></t:getForecastResponse>",
            "car", "<t:rentCarResponse xmlns:t=\"urn:moses:task:car\"><t:result>car 1 for x by car-a</t:result></t:rentCarResponse>",
            "attraction", "<t:bookAttractionResponse xmlns:t=\"urn:moses:task:attraction\"><t:result>attraction #1 by attraction-a</t:result></t:bookAttractionResponse>",
            "payment", "<t:chargeResponse xmlns:t=\"urn:moses:task:payment\"><t:result>receipt 1 for x by payment-a</t:result></t:chargeResponse>");
    /** The parser the broker's SOAP client parses replies with (see {@code Broker}): the engine's DOM, nothing deferred. */
    private static final Xml.Parser PARSER = new Xml.Parser(new org.apache.xerces.jaxp.DocumentBuilderFactoryImpl());

    private EngineCeiling() {}

    private static Element parse(String xml) {
        try {
            return PARSER.parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8))).getDocumentElement();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: EngineCeiling UNIT_DIR CLIENTS SECONDS ROUNDS");
            System.exit(2);
        }
        Path unit = Path.of(args[0]);
        int clients = Integer.parseInt(args[1]), seconds = Integer.parseInt(args[2]), rounds = Integer.parseInt(args[3]);
        ExecutorService replyThreads = Executors.newFixedThreadPool(2);
        AtomicLong invokes = new AtomicLong();
        InvokeHandler partners = invocation -> {
            invokes.incrementAndGet();
            String task = invocation.task().toString();
            String name = REPLIES.keySet().stream().filter(k -> task.contains(k + ".")).findFirst().orElseThrow();
            return CompletableFuture.supplyAsync(
                    () -> (InvokeOutcome) new InvokeOutcome.InvokeReply(parse(REPLIES.get(name)), name + "-a"), replyThreads);
        };
        BpelEngine engine = new BpelEngine(Files.createTempDirectory("moses-engine-ceiling"), partners, 16);
        engine.start();
        engine.deploy(unit);
        QName service = new QName("urn:moses:trip-planner", "TripPlannerService");
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        // bytes allocated: a measure of the engine's work that the JIT and a busy machine move far less than CPU time
        var heap = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int r = 1; r <= rounds; r++) {
            AtomicLong ok = new AtomicLong(), bad = new AtomicLong();
            long t0 = System.nanoTime(), end = t0 + seconds * 1_000_000_000L, cpu0 = os.getProcessCpuTime();
            long allocated0 = heap.getTotalThreadAllocatedBytes();
            List<Thread> threads = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int first = c;
                Thread t = new Thread(() -> {
                    for (int i = first; System.nanoTime() < end; i++) {
                        String body = "<tp:planTrip xmlns:tp=\"urn:moses:trip-planner\"><tp:customer>alice</tp:customer>"
                                + "<tp:destination>Rome</tp:destination><tp:departure>2026-07-01</tp:departure><tp:nights>2</tp:nights>"
                                + "<tp:needsCar>" + (i % 2 == 0) + "</tp:needsCar><tp:attractions>" + (i % 4) + "</tp:attractions></tp:planTrip>";
                        CompositeOutcome o = engine.invoke(service, "planTrip", parse(body), null, Duration.ofSeconds(10));
                        if (o instanceof CompositeOutcome.CompositeReply) ok.incrementAndGet();
                        else if (bad.incrementAndGet() < 3) System.out.println("not a reply: " + o);
                    }
                });
                threads.add(t);
                t.start();
            }
            for (Thread t : threads) t.join();
            double elapsed = (System.nanoTime() - t0) / 1e9;
            long done = Math.max(1, ok.get());
            System.out.printf("round %d: %d replies, %d not, %.0f req/s, %.3f ms CPU/request, %.2f partner invokes/request, %.1f KB allocated/request%n",
                    r, ok.get(), bad.get(), ok.get() / elapsed, (os.getProcessCpuTime() - cpu0) / 1e6 / done,
                    invokes.getAndSet(0) / (double) done, (heap.getTotalThreadAllocatedBytes() - allocated0) / 1024.0 / done);
        }
        engine.close();
        replyThreads.shutdown();
        System.exit(0);
    }
}
