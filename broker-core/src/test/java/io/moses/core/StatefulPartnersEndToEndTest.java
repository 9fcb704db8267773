package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stateful partners end to end: bpel-processes/hotel-reservation reserves a room and confirms the
 * reservation on one partner link, whose two providers (the stubs hotel-room-a and hotel-room-b)
 * each know only the reservations they made. Its seed declares both tasks stateful and gives each
 * provider half of each task, so the plan spreads the reserves over both providers and only the
 * stateful binding keeps each confirm with its reserve. The stubs and a broker as real processes,
 * the seed's plan in force (no optimizer, no monitors).
 */
@Tag("e2e")
class StatefulPartnersEndToEndTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final ObjectMapper JSON = new ObjectMapper();
    static final String[] PROVIDERS = {"hotel-room-a", "hotel-room-b"};
    static final int BOOKINGS = 200;
    static final int CALLERS = 8;
    static final Pattern RESERVATION_ID = Pattern.compile("<(?:\\w+:)?reservationId[^>]*>(hotel-room-[ab])-(\\d+)</");
    static final Pattern CONFIRMATION = Pattern.compile("<(?:\\w+:)?confirmation[^>]*>([^<]*)</");
    static StubServices stubs;
    static ChildProcess broker;
    static String base;
    @TempDir static Path work;

    @BeforeAll
    static void start() throws Exception {
        stubs = new StubServices();
        broker = stubs.broker(work, "--deploy", "../bpel-processes/hotel-reservation", "--seed", "../bpel-processes/hotel-reservation/seed.yaml",
                "--monitors", "none", "--optimizer", "off");
        base = "http://127.0.0.1:" + broker.await(BrokerProcessTest.LISTENING, 90);
    }

    @AfterAll
    static void stop() throws Exception {
        if (broker != null) broker.close();
        if (stubs != null) stubs.close();
    }

    static HttpResponse<String> book(String guest, int nights) throws Exception {
        String body = "<soap:Envelope xmlns:soap='http://schemas.xmlsoap.org/soap/envelope/'><soap:Body>"
                + "<hr:book xmlns:hr='urn:moses:hotel-reservation'><hr:guest>" + guest + "</hr:guest><hr:nights>" + nights
                + "</hr:nights></hr:book></soap:Body></soap:Envelope>";
        return HTTP.send(HttpRequest.newBuilder(URI.create(base + "/services/HotelReservationService"))
                .header("Content-Type", "text/xml; charset=utf-8")
                .header("SOAPAction", "\"urn:moses:hotel-reservation/book\"")
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("alice:alice-demo".getBytes(StandardCharsets.UTF_8)))
                .timeout(Duration.ofSeconds(60)) // bounds a hang only: the broker answers by its own request timeout
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The implementations the plan in force gives class {@code serviceClass} for {@code task}, with a share above 0. */
    static List<String> planned(String serviceClass, String task) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/admin/plan"))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("operator:operator-demo".getBytes(StandardCharsets.UTF_8)))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        List<String> out = new ArrayList<>();
        for (JsonNode b : JSON.readTree(r.body()).path("bindings"))
            if (b.path("class").asText().equals(serviceClass) && b.path("task").asText().equals(task))
                for (JsonNode s : b.path("shares"))
                    if (s.path("fraction").asDouble() > 0) out.add(s.path("implementation").asText());
        return out;
    }

    @Test
    void everyConfirmReachesTheProviderThatMadeTheReservation() throws Exception {
        // the stubs are the moses-loadtest on this class path: one older than its reservation services answers 404 here
        assertEquals(0, stubs.counter("hotel-room-a", "reservations"));
        // alice is standard: the seed's plan sends half of each task to each provider
        assertEquals(List.of("hotel-room-a-reserve", "hotel-room-b-reserve"), planned("standard", "room.reserve").stream().sorted().toList());
        assertEquals(List.of("hotel-room-a-confirm", "hotel-room-b-confirm"), planned("standard", "room.confirm").stream().sorted().toList());

        // BOOKINGS conversations, CALLERS at a time: the providers' latencies differ, so without a
        // stateful binding the confirms' turns in the plan's rotation do not follow their reserves'
        AtomicReferenceArray<HttpResponse<String>> replies = new AtomicReferenceArray<>(BOOKINGS);
        // the first alone: it verifies alice's password, which the broker then keeps; eight first
        // logins at once would find its pool of password checks busy ("retry after 1 s")
        replies.set(0, book("guest-0", 1));
        AtomicInteger next = new AtomicInteger(1);
        ExecutorService callers = Executors.newFixedThreadPool(CALLERS);
        try {
            List<CompletableFuture<Void>> running = new ArrayList<>();
            for (int c = 0; c < CALLERS; c++)
                running.add(CompletableFuture.runAsync(() -> {
                    for (int i = next.getAndIncrement(); i < BOOKINGS; i = next.getAndIncrement()) {
                        try {
                            replies.set(i, book("guest-" + i, 1 + i % 3));
                        } catch (Exception e) {
                            throw new IllegalStateException("booking " + i, e);
                        }
                    }
                }, callers));
            CompletableFuture.allOf(running.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
        } finally {
            callers.shutdownNow();
        }

        String counters = counters();
        List<String> faults = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < BOOKINGS; i++) {
            HttpResponse<String> r = replies.get(i);
            if (r.statusCode() != 200) {
                faults.add("booking " + i + ": " + r.statusCode() + " " + r.body());
                continue;
            }
            Matcher id = RESERVATION_ID.matcher(r.body());
            Matcher confirmation = CONFIRMATION.matcher(r.body());
            assertTrue(id.find() && confirmation.find(), "booking " + i + ": " + r.body());
            String reservation = id.group(1) + "-" + id.group(2);
            assertTrue(ids.add(reservation), reservation + " answered twice");
            int nights = 1 + i % 3;
            // the id names the provider that reserved, the confirmation the one that confirmed
            assertEquals("confirmed " + reservation + " for guest-" + i + ", " + nights + (nights == 1 ? " night" : " nights")
                    + ", by " + id.group(1), confirmation.group(1), "booking " + i);
        }
        assertEquals(0, faults.size(), faults.size() + " of " + BOOKINGS + " bookings failed (" + counters + "), the first: "
                + faults.subList(0, Math.min(3, faults.size())));

        long reserved = 0, confirmed = 0;
        for (String p : PROVIDERS) {
            long made = stubs.counter(p, "reservations");
            assertTrue(made >= BOOKINGS / 4, p + " made " + made + " of the " + BOOKINGS + " reservations: the plan uses both (" + counters + ")");
            assertEquals(0, stubs.counter(p, "confirmsRefused"), p + " was sent confirms of reservations it never made (" + counters + ")");
            reserved += made;
            confirmed += stubs.counter(p, "confirmed");
        }
        assertEquals(BOOKINGS, reserved, counters);
        assertEquals(BOOKINGS, confirmed, counters);
    }

    /** The providers' reservation counters, for a failure's message. */
    static String counters() throws Exception {
        List<String> out = new ArrayList<>();
        for (String p : PROVIDERS)
            out.add(p + ": reservations " + stubs.counter(p, "reservations") + ", confirmed " + stubs.counter(p, "confirmed")
                    + ", confirmsRefused " + stubs.counter(p, "confirmsRefused"));
        return String.join("; ", out);
    }
}
