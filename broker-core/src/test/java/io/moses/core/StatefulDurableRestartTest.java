package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A durable instance keeps its stateful partner's provider across a crash: RoomHold (a test unit)
 * reserves a room at hold and confirms it at a later confirm, on the hotel reservation's two
 * providers, each half of the seed's plan. Rooms are held, the broker SIGKILLed and started
 * again with the same command line, and every confirm must reach the provider that made its
 * reservation: the provider is kept with the instance, not in the broker's memory.
 */
@Tag("e2e")
class StatefulDurableRestartTest {
    static final Path HOTEL = Path.of("../bpel-processes/hotel-reservation");
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final int BOOKINGS = 20;
    static final Pattern TEXT = Pattern.compile("<(?:\\w+:)?text[^>]*>([^<]*)</");

    @Test
    @Timeout(300) // bounds a hang only
    void everyConfirmAfterARestartReachesTheProviderThatMadeTheReservation(@TempDir Path work) throws Exception {
        Path unit = Files.createDirectories(work.resolve("room-hold"));
        try (var files = Files.list(Path.of("src/test/resources/processes/room-hold"))) {
            for (Path f : files.toList()) Files.copy(f, unit.resolve(f.getFileName()));
        }
        Files.copy(HOTEL.resolve("Room.wsdl"), unit.resolve("Room.wsdl"));
        String hotelSeed = Files.readString(HOTEL.resolve("seed.yaml"));
        assertTrue(hotelSeed.contains("composite: HotelReservation\n"), hotelSeed);
        Path seed = Files.writeString(work.resolve("seed.yaml"), hotelSeed.replace("composite: HotelReservation\n", "composite: RoomHold\n"));

        try (StubServices stubs = new StubServices()) {
            String[] args = {"--deploy", unit.toString(), "--seed", seed.toString(), "--monitors", "none", "--optimizer", "off",
                    "--request-timeout", "20000"};
            Map<String, String> reservations = new HashMap<>();
            try (ChildProcess first = stubs.broker(work.resolve("w"), args)) {
                String base = "http://127.0.0.1:" + first.await(BrokerProcessTest.LISTENING, 120);
                for (int i = 0; i < BOOKINGS; i++) reservations.put("b-" + i, answer(send(base, "hold", "<rh:bookingId>b-" + i
                        + "</rh:bookingId><rh:guest>guest-" + i + "</rh:guest><rh:nights>1</rh:nights>")));
                first.process.destroyForcibly(); // SIGKILL: the instances wait in the knowledge base for their confirms
                assertTrue(first.process.waitFor(30, TimeUnit.SECONDS));
            }
            for (String p : StatefulPartnersEndToEndTest.PROVIDERS)
                assertTrue(stubs.counter(p, "reservations") >= BOOKINGS / 4, p + " made reservations: the plan uses both");

            List<String> wrong = new ArrayList<>();
            try (ChildProcess second = stubs.broker(work.resolve("w"), args)) {
                String base = "http://127.0.0.1:" + second.await(BrokerProcessTest.LISTENING, 120);
                for (var e : reservations.entrySet()) {
                    HttpResponse<String> r = send(base, "confirm", "<rh:bookingId>" + e.getKey() + "</rh:bookingId>");
                    if (r.statusCode() != 200) wrong.add(e.getKey() + " (" + e.getValue() + "): " + r.statusCode() + " " + r.body());
                    else assertTrue(answer(r).startsWith("confirmed " + e.getValue() + " "), e.getKey() + ": " + r.body());
                }
                assertTrue(wrong.isEmpty(), wrong.size() + " of " + BOOKINGS + " confirms failed after the restart: " + wrong
                        + "\n--- the broker started again:\n" + second.output());
            }
            for (String p : StatefulPartnersEndToEndTest.PROVIDERS)
                assertEquals(0, stubs.counter(p, "confirmsRefused"), p + " was sent a confirm of a reservation it never made");
        }
    }

    static HttpResponse<String> send(String base, String operation, String fields) throws Exception {
        String body = "<soap:Envelope xmlns:soap='http://schemas.xmlsoap.org/soap/envelope/'><soap:Body><rh:" + operation
                + " xmlns:rh='urn:moses:test:room-hold'>" + fields + "</rh:" + operation + "></soap:Body></soap:Envelope>";
        return HTTP.send(HttpRequest.newBuilder(URI.create(base + "/services/RoomHoldService"))
                .header("Content-Type", "text/xml; charset=utf-8").header("SOAPAction", "\"urn:moses:test:room-hold/" + operation + "\"")
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("alice:alice-demo".getBytes(StandardCharsets.UTF_8)))
                .timeout(Duration.ofSeconds(60)) // bounds a hang only
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static String answer(HttpResponse<String> r) {
        assertEquals(200, r.statusCode(), r.body());
        Matcher m = TEXT.matcher(r.body());
        assertTrue(m.find(), r.body());
        return m.group(1);
    }
}
