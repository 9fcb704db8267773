package io.moses.loadtest.stubs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StubConfigTest {
    @TempDir Path tmp;

    static final String ONE = """
            services:
              - name: s1
                namespace: urn:x
                request: pingRequest
                reply: '<p:pingResponse xmlns:p="urn:x"><p:result>pong by ${service}</p:result></p:pingResponse>'
            """;

    @Test
    void defaultConfigHasTwoServicesPerTripPlannerTaskTheOrderCheckTasksTwoHotelRoomsAndTwoSuppliers() {
        Map<String, StubSpec> byName = StubConfig.defaults().services().stream()
                .collect(Collectors.toMap(StubSpec::name, Function.identity()));
        assertEquals(18, byName.size());
        for (String task : new String[] {"flight", "hotel", "weather", "car", "attraction", "payment"}) {
            StubSpec a = byName.get(task + "-a"), b = byName.get(task + "-b");
            assertEquals("urn:moses:task:" + task, a.namespace());
            assertEquals("urn:moses:provider-b:" + task, b.namespace());
            assertNotEquals(a.requestElement(), b.requestElement());
            assertTrue(a.replyTemplate().contains(":result>"), a.replyTemplate());
            assertTrue(b.replyTemplate().contains(":outcome>"), b.replyTemplate());
            assertTrue(a.replyTemplate().contains("${service}") && b.replyTemplate().contains("${service}"));
        }
        assertEquals("rpc", byName.get("inventory").style());
        assertEquals("document", byName.get("shipping").style());
        for (String room : new String[] {"hotel-room-a", "hotel-room-b"}) {
            assertEquals("urn:moses:task:room", byName.get(room).namespace());
            assertEquals(new StubSpec.Reservations(StubSpec.Reservations.DEFAULT_MAX_OPEN), byName.get(room).reservations());
        }
        assertNull(byName.get("shipping").reservations());
        for (String supplier : new String[] {"supplier-a", "supplier-b"}) {
            assertEquals("urn:moses:task:supplier", byName.get(supplier).namespace());
            assertEquals(StubSpec.Async.DEFAULT_MAX_PENDING, byName.get(supplier).async().maxPending());
        }
        assertEquals(10_000, byName.get("supplier-a").async().priceCents());
        assertEquals(20_000, byName.get("supplier-b").async().priceCents());
        assertNull(byName.get("hotel-room-a").async());
    }

    @Test
    void anAsyncServiceHasItsMessagesFixedAndItsCallbackSettings() {
        StubConfig c = StubConfig.parse("""
                services:
                  - {name: a1, kind: async, namespace: 'urn:s', maxPending: 3, price: 12.5, callbackDelayMillis: 7, callback: never,
                     callbackTimeoutMillis: 900, callbackUser: alice, callbackPassword: pw}
                  - {name: a2, kind: async}
                """, true);
        StubSpec a1 = c.services().get(0);
        assertEquals(new StubSpec.Async(3, 1250, new CallbackSettings(7, true, 0, 900, "alice", "pw", null)), a1.async());
        assertEquals("{urn:s}quoteRequest", a1.requestName());
        assertEquals("requestQuote", a1.operation());
        assertEquals("quoteReady", a1.replyElement());
        assertNull(a1.replyTemplate());
        assertEquals(new StubSpec.Async(StubSpec.Async.DEFAULT_MAX_PENDING, StubSpec.Async.DEFAULT_PRICE_CENTS, CallbackSettings.DEFAULT),
                c.services().get(1).async());
        assertEquals("12.50", a1.async().price(""), "CRC-32 of nothing is 0");
        assertTrue(a1.async().toString().contains("user=alice") && !a1.async().toString().contains("pw"), "the password stays out of logs");

        String a = "services:\n  - {name: a, kind: async, namespace: 'urn:s'";
        assertTrue(error(a + ", reply: '<a/>'}").contains("service 'a': field 'reply' does not apply to kind async"));
        assertTrue(error(a + ", maxPending: 0}").contains("maxPending must be at least 1, was 0"));
        assertTrue(error(a + ", maxOpen: 2}").contains("maxOpen is for kind reservation only"));
        assertTrue(error(a + ", price: 1.005}").contains("price must have at most two decimals"));
        assertTrue(error(a + ", price: cheap}").contains("price must be a number"));
        assertTrue(error(a + ", callback: sometimes}").contains("callback must be always or never"));
        assertTrue(error(a + ", callbackUser: alice}").contains("callbackUser and callbackPassword go together"));
        assertTrue(error(ONE + "    callbackDelayMillis: 3\n").contains("service 's1': callbackDelayMillis is for kind async only"));
        assertTrue(error(ONE + "    maxPending: 3\n").contains("service 's1': maxPending is for kind async only"));
    }

    @Test
    void aReservationServiceHasItsOperationsFixed() {
        StubConfig c = StubConfig.parse("""
                defaults: {latencyMs: 7}
                services:
                  - {name: r1, kind: reservation, namespace: 'urn:r', maxOpen: 5, distribution: exponential}
                  - {name: r2, kind: reservation}
                """, true);
        StubSpec r1 = c.services().get(0);
        assertEquals(5, r1.reservations().maxOpen());
        assertEquals("reserveRequest", r1.requestElement());
        assertEquals("reserve", r1.operation());
        assertEquals("{urn:r}reserveResponse", "{" + r1.replyNamespace() + "}" + r1.replyElement());
        assertEquals("document", r1.style());
        assertNull(r1.replyTemplate());
        assertEquals(7, r1.initial().latencyMs());
        assertEquals(Settings.Distribution.EXPONENTIAL, r1.initial().distribution());
        assertEquals(StubSpec.Reservations.DEFAULT_MAX_OPEN, c.services().get(1).reservations().maxOpen());

        String r = "services:\n  - {name: r, kind: reservation, namespace: 'urn:r'";
        assertTrue(error(r + ", reply: '<a/>'}").contains("service 'r': field 'reply' does not apply to kind reservation"));
        assertTrue(error(r + ", echo: guest}").contains("field 'echo' does not apply to kind reservation"));
        assertTrue(error(r + ", maxOpen: 0}").contains("maxOpen must be at least 1, was 0"));
        assertTrue(error(r + ", maxOpen: 2.5}").contains("maxOpen must be a whole number"));
        assertTrue(error(r + ", maxOpen: many}").contains("maxOpen must be a whole number"));
        assertTrue(error(r.replace("reservation", "booking") + "}").contains("kind must be reply, reservation or async, was 'booking'"));
        assertTrue(error(ONE + "    maxOpen: 3\n").contains("service 's1': maxOpen is for kind reservation only"));
    }

    @Test
    void defaultsApplyAndServiceFieldsOverrideThem() {
        StubConfig c = StubConfig.parse("defaults: {latencyMs: 30, distribution: exponential}\n" + ONE
                + "  - name: s2\n    namespace: urn:x\n    request: other\n    reply: '<r/>'\n    latencyMs: 5\n", true);
        assertEquals(30, c.services().get(0).initial().latencyMs());
        assertEquals(Settings.Distribution.EXPONENTIAL, c.services().get(0).initial().distribution());
        assertEquals(5, c.services().get(1).initial().latencyMs());
        assertEquals("ping", c.services().get(0).operation());
        assertEquals("other", c.services().get(1).operation());
        assertEquals("pingResponse", c.services().get(0).replyElement());
        assertEquals("", c.services().get(1).replyNamespace());
        assertNull(c.services().get(0).echo());
    }

    @Test
    void jsonFilesAreReadAsJson() throws Exception {
        Path f = tmp.resolve("stubs.json");
        Files.writeString(f, """
                {"services": [{"name": "j", "namespace": "urn:j", "request": "a", "reply": "<b xmlns='urn:j'/>", "up": false}]}
                """);
        StubConfig c = StubConfig.load(f);
        assertEquals("j", c.services().get(0).name());
        assertEquals(false, c.services().get(0).initial().up());
    }

    private String error(String yaml) {
        return assertThrows(IllegalArgumentException.class, () -> StubConfig.parse(yaml, true)).getMessage();
    }

    @Test
    void mistakesAreReportedWithTheServiceAndField() throws Exception {
        assertTrue(error(ONE + "    colour: red\n").contains("service 's1': unknown field 'colour'"));
        assertTrue(error(ONE.replace("    reply:", "    rep:")).contains("service 's1': unknown field 'rep'"));
        assertTrue(error(ONE.replace("</p:pingResponse>", "")).contains("reply is not well-formed XML"));
        assertTrue(error(ONE + "    failureProbability: 2\n").contains("failureProbability must be in [0, 1]"));
        assertTrue(error(ONE + ONE.substring("services:\n".length())).contains("'s1' appears twice"));
        assertTrue(error(ONE.replace("name: s1", "name: 's 1'")).contains("name must match"));
        assertTrue(error(ONE.replace("    request: pingRequest\n", "")).contains("request is missing"));
        assertTrue(error("services: [").contains("not valid YAML"));
        assertTrue(error("servics: []").contains("unknown top-level field 'servics'"));
        assertTrue(error("services: []").contains("no services"));
        Path bad = tmp.resolve("bad.yaml");
        Files.writeString(bad, ONE + "    style: soap\n");
        String m = assertThrows(IllegalArgumentException.class, () -> StubConfig.load(bad)).getMessage();
        assertTrue(m.startsWith("stub config " + bad + ": service 's1': style must be document or rpc"), m);
    }
}
