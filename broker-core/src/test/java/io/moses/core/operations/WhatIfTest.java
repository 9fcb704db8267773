package io.moses.core.operations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.core.AdminApiTest;
import io.moses.core.BrokerProcessTest;
import io.moses.core.ChildProcess;
import io.moses.testing.Waits;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * POST /admin/what-if over HTTP against a broker and the stub services as real processes, on the
 * trip planner: every kind of change, an impossible one (every flight provider down) answered
 * with the classes at risk, bad input refused with a 4xx naming the field, the plan in force
 * untouched throughout, the what-if of taking a hotel out matching the plan the broker makes
 * when the operator then takes it out for real, and the rate a class can still admit agreeing
 * with what the SLA Manager then admits.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("e2e")
class WhatIfTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String OPERATOR = "Basic " + Base64.getEncoder().encodeToString("operator:operator-demo".getBytes());
    static ChildProcess stubs, broker;
    static int port;
    @TempDir static Path work;

    @BeforeAll
    static void start() throws Exception {
        stubs = new ChildProcess("io.moses.loadtest.stubs.StubServer", List.of("--port", "0"));
        int stubPort = Integer.parseInt(stubs.await(Pattern.compile("stubs listening on http://[^:]+:(\\d+)"), 60));
        broker = new ChildProcess("io.moses.core.Main", List.of("--port", "0", "--work", work.resolve("broker").toString(),
                "--db", "mem:what-if", "--deploy", "../bpel-processes/trip-planner", "--seed", "../bpel-processes/trip-planner/seed.yaml",
                "--set", "STUBS=http://127.0.0.1:" + stubPort));
        port = Integer.parseInt(broker.await(BrokerProcessTest.LISTENING, 120));
        // the seed's hand-made plan is replaced by the optimizer's at start
        Waits.within(60, () -> !get("/admin/plan").path("solver").asText("seed").equals("seed"));
        assertNotEquals("seed", get("/admin/plan").path("solver").asText());
    }

    @AfterAll
    static void stop() throws Exception {
        if (broker != null) broker.close();
        if (stubs != null) stubs.close();
    }

    static JsonNode get(String path) throws Exception {
        HttpResponse<String> r = AdminApiTest.send(port, "GET", path, OPERATOR, Map.of(), null);
        assertEquals(200, r.statusCode(), path + ": " + r.body());
        return JSON.readTree(r.body());
    }

    static HttpResponse<String> ask(String body) throws Exception {
        return AdminApiTest.send(port, "POST", "/admin/what-if", OPERATOR, Map.of("Content-Type", "application/json"), body);
    }

    /** The what-if of {@code changes} (text form), checked to leave the plan in force as it was. */
    static JsonNode whatIf(String... changes) throws Exception {
        JsonNode before = get("/admin/plan");
        HttpResponse<String> r = ask(JSON.writeValueAsString(Map.of("changes", List.of(changes))));
        assertEquals(200, r.statusCode(), r.body());
        JsonNode a = JSON.readTree(r.body());
        JsonNode after = get("/admin/plan");
        assertEquals(before.get("version"), after.get("version"), "a what-if changed the plan in force");
        assertEquals(before.get("version").asLong(), a.get("planInForce").asLong());
        assertEquals(before.get("objective").asDouble(), a.get("objectiveBefore").asDouble());
        assertEquals(3, a.get("classes").size(), a.toString());
        return a;
    }

    static JsonNode refused(String body, int status, String field) throws Exception {
        long v = get("/admin/plan").get("version").asLong();
        HttpResponse<String> r = ask(body);
        assertEquals(status, r.statusCode(), body + " -> " + r.body());
        JsonNode e = JSON.readTree(r.body());
        assertTrue(e.get("error").asText().contains(field), "error names " + field + ": " + e);
        assertEquals(v, get("/admin/plan").get("version").asLong());
        return e;
    }

    static JsonNode cls(JsonNode answer, String name) {
        for (JsonNode c : answer.get("classes")) if (c.get("class").asText().equals(name)) return c;
        throw new AssertionError("no class " + name + " in " + answer);
    }

    static List<String> atRisk(JsonNode answer) {
        List<String> out = new ArrayList<>();
        for (JsonNode r : answer.get("atRisk")) out.add(r.get("class").asText());
        return out;
    }

    /** The hotel provider the plan in force gives the largest share, over every class. */
    static String mostUsedHotel() throws Exception {
        Map<String, Double> use = new TreeMap<>();
        for (JsonNode b : get("/admin/plan").get("bindings"))
            if (b.get("task").asText().equals("hotel.findHotel"))
                for (JsonNode s : b.get("shares"))
                    for (String h : List.of("hotel-a", "hotel-b"))
                        if (s.get("implementation").asText().matches(".*\\b" + h + "\\b.*")) use.merge(h, s.get("fraction").asDouble(), Double::sum);
        return use.getOrDefault("hotel-a", 0.0) >= use.getOrDefault("hotel-b", 0.0) ? "hotel-a" : "hotel-b";
    }

    @Test
    @Order(1)
    void aServiceDownIsPlannedAround() throws Exception {
        String hotel = mostUsedHotel();
        JsonNode a = whatIf("down " + hotel);
        assertFalse(AdminApiTest.planUses(a.get("plan"), hotel), hotel + " still in the what-if's plan: " + a.get("plan"));
        assertFalse(a.get("diff").isEmpty(), "the plan in force uses " + hotel + ": the what-if's differs");
        // every binding of the hotel task that used it is in the diff (others may move too: the optimizer re-balances)
        for (JsonNode b : get("/admin/plan").get("bindings"))
            if (b.get("task").asText().equals("hotel.findHotel") && b.get("shares").toString().matches(".*\\b" + hotel + "\\b.*"))
                assertTrue(a.get("diff").toString().contains("{\"class\":\"" + b.get("class").asText() + "\",\"composite\":\"TripPlanner\",\"task\":\"hotel.findHotel\""),
                        b + " not in the diff " + a.get("diff"));
        // the verdicts and the classes at risk agree (on the trip planner, one hotel alone cannot keep gold's availability)
        List<String> broken = new ArrayList<>();
        for (JsonNode c : a.get("classes")) if (!c.get("after").get("slaMet").asBoolean()) broken.add(c.get("class").asText());
        broken.sort(null);
        assertEquals(broken, atRisk(a), a.toString());
        assertEquals(broken.isEmpty() ? "OPTIMAL" : "RELAXED", a.get("status").asText());
    }

    @Test
    @Order(2)
    void slowerLessAvailableAndCostlierServicesPutClassesAtRisk() throws Exception {
        JsonNode slower = whatIf("slower flight-a to 100", "slower flight-b 1000x");
        assertTrue(atRisk(slower).containsAll(List.of("gold", "silver", "bronze")), slower.toString());
        assertEquals("RELAXED", slower.get("status").asText());
        assertFalse(cls(slower, "bronze").get("after").get("responseTimeMet").asBoolean(), slower.toString());

        JsonNode unavailable = whatIf("less-available weather-a to 0.5", "less-available weather-b 100x");
        assertTrue(atRisk(unavailable).contains("gold"), unavailable.toString());
        assertFalse(cls(unavailable, "gold").get("after").get("availabilityMet").asBoolean(), unavailable.toString());

        JsonNode costlier = whatIf("costlier flight-a 100x", "costlier flight-b to 200");
        assertTrue(atRisk(costlier).containsAll(List.of("gold", "silver", "bronze")), costlier.toString());
        assertFalse(cls(costlier, "gold").get("after").get("costMet").asBoolean(), costlier.toString());

        // a factor of 1 changes nothing: the plan keeps every SLA and its objective
        JsonNode same = whatIf("slower flight-a 1x");
        assertTrue(same.get("keepsEverySla").asBoolean(), same.toString());
        assertEquals(same.get("objectiveBefore").asDouble(), same.get("objectiveAfter").asDouble(), 1e-6);
    }

    @Test
    @Order(3)
    void aBetterProviderAddedIsUsed() throws Exception {
        JsonNode a = ask(JSON.writeValueAsString(Map.of("changes", List.of(Map.of("kind", "add-provider", "service", "hotel-c",
                "task", "hotel.findHotel", "responseTime", 0.01, "availability", 0.9999, "cost", 0.01, "maxRate", 1000)))))
                .body().transform(WhatIfTest::tree);
        assertTrue(AdminApiTest.planUses(a.get("plan"), "hotel-c"), a.toString());
        assertTrue(a.get("objectiveAfter").asDouble() > a.get("objectiveBefore").asDouble(), a.toString());
        assertTrue(a.get("keepsEverySla").asBoolean(), a.toString());
        // the text form does the same
        assertTrue(AdminApiTest.planUses(whatIf("add hotel-c hotel.findHotel r=0.01 a=0.9999 c=0.01 l=1000").get("plan"), "hotel-c"));
        assertFalse(get("/admin/concrete-services").toString().contains("hotel-c"), "a what-if stores nothing");
    }

    static JsonNode tree(String s) {
        try {
            return JSON.readTree(s);
        } catch (Exception e) {
            throw new AssertionError(s, e);
        }
    }

    @Test
    @Order(4)
    void classSlaSubscribersAndRates() throws Exception {
        JsonNode tight = whatIf("class gold maxResponseTime=0.01");
        assertEquals(List.of("gold"), atRisk(tight), tight.toString());
        assertEquals(0.01, cls(tight, "gold").get("sla").get("maxResponseTime").asDouble());
        assertFalse(cls(tight, "gold").get("after").get("responseTimeMet").asBoolean());

        double gold = cls(whatIf("slower flight-a 1x"), "gold").get("load").asDouble();
        JsonNode more = whatIf("subscriber gold 2.5");
        assertEquals(gold + 2.5, cls(more, "gold").get("load").asDouble(), 1e-9);
        JsonNode flood = whatIf("subscriber bronze 100000");
        assertNotEquals("OPTIMAL", flood.get("status").asText(), flood.toString());
        assertFalse(flood.get("keepsEverySla").asBoolean());

        JsonNode rate = whatIf("rate alice 0"); // alice subscribes to gold at 2 req/s
        assertEquals(gold - 2.0, cls(rate, "gold").get("load").asDouble(), 1e-9);
    }

    @Test
    @Order(5)
    void everyProviderOfATaskDownIsAnsweredWithTheClassesAtRisk() throws Exception {
        JsonNode a = whatIf("down flight-a", "down flight-b");
        assertEquals("FAILED", a.get("status").asText(), a.toString());
        assertTrue(a.get("plan").isNull());
        assertFalse(a.get("keepsEverySla").asBoolean());
        assertTrue(atRisk(a).containsAll(List.of("gold", "silver", "bronze")), a.toString());
        for (JsonNode r : a.get("atRisk")) assertTrue(r.get("breaksSla").asBoolean(), r.toString());
        assertTrue(a.get("message").asText().contains("flight"), a.toString());
    }

    @Test
    @Order(6)
    void badInputIsRefusedNamingTheField() throws Exception {
        refused("{\"changes\":[\"down nosuch\"]}", 400, "changes[0].service");
        refused("{\"changes\":[\"down hotel-a\",{\"kind\":\"subscriber\",\"class\":\"platinum\",\"rate\":1}]}", 400, "changes[1].class");
        refused("{\"changes\":[\"slower flight-a -2x\"]}", 400, "changes[0].factor");
        refused("{\"changes\":[{\"kind\":\"costlier\",\"service\":\"flight-a\",\"factor\":-1}]}", 400, "changes[0].factor");
        refused("{\"changes\":[]}", 400, "changes");
        refused("{\"changes\":[\"rate nobody 1\"]}", 400, "changes[0].user");
        refused("{\"changes\":[\"teleport hotel-a\"]}", 400, "changes[0].kind");
        refused("{\"changes\":[\"add hotel-a hotel.findHotel r=0.1 a=0.9 c=1 l=5\"]}", 400, "changes[0].service");
        refused("{\"changes\":[\"add hotel-z hotel.nosuch r=0.1 a=0.9 c=1 l=5\"]}", 400, "changes[0].task");
        refused("{\"changes\":[\"add hotel-z hotel.findHotel r=0.1 a=1.5 c=1 l=5\"]}", 400, "availability");
        refused("{\"changes\": [", 400, "body");
        refused("{}", 400, "changes");
        HttpResponse<String> anonymous = AdminApiTest.send(port, "POST", "/admin/what-if", null, Map.of("Content-Type", "application/json"),
                "{\"changes\":[\"down hotel-a\"]}");
        assertTrue(anonymous.statusCode() == 401 || anonymous.statusCode() == 403, anonymous.statusCode() + " " + anonymous.body());
    }

    /** Same inputs, same answer: the what-if of taking the most used hotel out, then the operator takes it out. */
    @Test
    @Order(7)
    void theWhatIfIsThePlanTheBrokerMakesWhenTheChangeIsMade() throws Exception {
        String hotel = mostUsedHotel();
        JsonNode a = whatIf("down " + hotel);
        JsonNode out = tree(AdminApiTest.send(port, "POST", "/admin/concrete-services/" + hotel + "/out", OPERATOR,
                Map.of("Content-Type", "application/json"), "{\"reason\":\"maintenance\"}").body());
        assertTrue(out.get("changed").asBoolean(), out.toString());
        String why = "operator took concrete service " + hotel + " out";
        AtomicReference<JsonNode> made = new AtomicReference<>();
        Waits.within(30, () -> {
            for (JsonNode p : get("/admin/plans?n=20")) if (p.get("reason").asText().contains(why)) made.set(p);
            return made.get() != null;
        });
        JsonNode real = made.get();
        assertTrue(real != null, "no plan for '" + why + "'");
        assertEquals(real.get("objective").asDouble(), a.get("objectiveAfter").asDouble(), 1e-6 * Math.max(1, Math.abs(real.get("objective").asDouble())),
                "objective of the real plan vs the what-if's");
        Map<String, Map<String, Double>> r = shares(real), w = shares(a.get("plan"));
        assertEquals(r.keySet(), w.keySet(), "class/task bindings: real " + r + " what-if " + w);
        r.forEach((k, v) -> assertTrue(WhatIf.same(v, w.get(k)), k + ": real " + v + " what-if " + w.get(k)));
    }

    /** moses plan --what-if: the two plans side by side, the verdicts, the classes at risk. */
    @Test
    @Order(8)
    void thePlanCommandShowsBothPlansSideBySide() throws Exception {
        try (ChildProcess cli = ChildProcess.commandLine("io.moses.cli.PlanCommand", List.of("--broker", "http://127.0.0.1:" + port,
                "--what-if", "down flight-a", "--what-if", "slower flight-b 2x"), Map.of("MOSES_USER", "operator", "MOSES_PASSWORD", "operator-demo"))) {
            assertTrue(cli.process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), "moses plan did not end: " + cli.output());
            String out = cli.finalOutput();
            assertEquals(0, cli.process.exitValue(), out);
            assertTrue(out.contains("what if: down flight-a; slower flight-b 2.0x"), out);
            assertTrue(out.matches("(?s).*gold flight.findFlight\\s+\\S.*\\*\\s+flight-b 100%.*"), "flight-b alone in the what-if column: " + out);
            assertTrue(out.contains("in force R / A / C") && out.contains("what if R / A / C"), out);
        }
        try (ChildProcess cli = ChildProcess.commandLine("io.moses.cli.PlanCommand", List.of("--broker", "http://127.0.0.1:" + port,
                "--what-if", "down nosuch"), Map.of("MOSES_USER", "operator", "MOSES_PASSWORD", "operator-demo"))) {
            assertTrue(cli.process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
            String out = cli.finalOutput();
            assertEquals(2, cli.process.exitValue(), out);
            assertTrue(out.contains("changes[0].service: no concrete service nosuch"), out);
        }
    }

    /**
     * The rate a class can still admit, after a what-if subscriber: once that subscriber is made
     * for real, the SLA Manager (over SOAP, the API subscribers use) reports the same rate,
     * refuses a subscription clearly above it and admits one just below it.
     */
    @Test
    @Order(9)
    void theRateAClassCanStillAdmitIsWhatTheSlaManagerAdmits() throws Exception {
        JsonNode a = whatIf("subscriber silver 3");
        double within = a.get("admissibleRateWithin").get("after").asDouble();
        assertTrue(within > 0, a.toString());
        for (JsonNode c : a.get("classes")) {
            JsonNode r = c.get("admissibleRate");
            assertTrue(r.get("before").asDouble() >= 0 && r.get("after").asDouble() >= 0, c.toString());
            // 3 req/s more in silver leaves no class more room than before
            assertTrue(r.get("after").asDouble() <= r.get("before").asDouble() + within, c.toString());
        }
        assertEquals(Map.of("method", "POST", "path", "/admin/subscriptions"), Map.of("method", a.get("actions").get(0).get("method").asText(),
                "path", a.get("actions").get(0).get("path").asText()), a.get("actions").toString());
        String k = "";
        double rate = -1;
        for (JsonNode c : a.get("classes"))
            if (c.get("admissibleRate").get("after").asDouble() > rate) {
                k = c.get("class").asText();
                rate = c.get("admissibleRate").get("after").asDouble();
            }
        assertTrue(rate > 1, "some class can still admit more on the trip planner: " + a);

        // the change for real: the SLA Manager's input is now the what-if's
        assertTrue(accepted(soapSubscribe("dora", "silver", 3)), "the what-if's subscriber itself");
        assertEquals(rate, soapAdmissibleRate(k), "GetClasses and the what-if on the same input, " + k);
        String above = soapSubscribe("erin", k, rate + 2 * within);
        assertFalse(accepted(above), k + ": clearly above " + rate + " req/s: " + above);
        String below = soapSubscribe("erin", k, 0.98 * rate);
        assertTrue(accepted(below), k + ": just below " + rate + " req/s: " + below);

        // the same SLA Manager as JSON (the console's Apply): refused with a reason, nothing stored; a rate change; bad input named
        HttpResponse<String> refused = subscriptions("POST", "", Map.of("user", "fred", "password", "fred-password", "serviceClass", k,
                "rate", rate + 2 * within));
        assertEquals(409, refused.statusCode(), refused.body());
        assertFalse(tree(refused.body()).get("accepted").asBoolean());
        assertTrue(tree(refused.body()).get("error").asText().startsWith("refused by admission control: rejected: class " + k), refused.body());
        assertEquals(404, subscriptions("GET", "/fred", null).statusCode(), "a refused subscriber is not stored");
        HttpResponse<String> lower = subscriptions("PUT", "/erin", Map.of("rate", 0.5 * rate));
        assertEquals(200, lower.statusCode(), lower.body());
        assertEquals(0.5 * rate, tree(subscriptions("GET", "/erin", null).body()).get("rate").asDouble(), 1e-9);
        HttpResponse<String> bad = subscriptions("POST", "", Map.of("user", "gina", "serviceClass", k, "rate", 1));
        assertEquals(400, bad.statusCode(), bad.body());
        assertTrue(bad.body().contains("password"), bad.body());
        assertEquals(400, subscriptions("PUT", "/erin", Map.of("rate", 1, "colour", "red")).statusCode());
        assertEquals(404, subscriptions("PUT", "/nobody", Map.of("rate", 1)).statusCode());
    }

    static HttpResponse<String> subscriptions(String method, String path, Map<String, Object> body) throws Exception {
        return AdminApiTest.send(port, method, "/admin/subscriptions" + path, OPERATOR, Map.of("Content-Type", "application/json"),
                body == null ? null : JSON.writeValueAsString(body));
    }

    static String soap(String body) throws Exception {
        HttpResponse<String> r = AdminApiTest.send(port, "POST", "/manage/sla", OPERATOR, Map.of("Content-Type", "text/xml; charset=utf-8",
                "SOAPAction", "\"\""), "<soap:Envelope xmlns:soap='http://schemas.xmlsoap.org/soap/envelope/' xmlns:s='urn:moses:sla-manager'>"
                + "<soap:Body>" + body + "</soap:Body></soap:Envelope>");
        assertEquals(200, r.statusCode(), r.body());
        return r.body();
    }

    static String soapSubscribe(String user, String cls, double rate) throws Exception {
        return soap("<s:subscribe><s:user>" + user + "</s:user><s:password>" + user + "-password</s:password><s:serviceClass>" + cls
                + "</s:serviceClass><s:rate>" + rate + "</s:rate></s:subscribe>");
    }

    static boolean accepted(String reply) {
        java.util.regex.Matcher m = Pattern.compile("<(?:\\w+:)?accepted>(true|false)</").matcher(reply);
        assertTrue(m.find(), reply);
        return Boolean.parseBoolean(m.group(1));
    }

    /** GetClasses' admissibleRate of one class. */
    static double soapAdmissibleRate(String cls) throws Exception {
        String reply = soap("<s:getClasses/>");
        java.util.regex.Matcher m = Pattern.compile("<(?:\\w+:)?name>" + cls + "</(?:\\w+:)?name>.*?<(?:\\w+:)?admissibleRate>([^<]+)</").matcher(reply);
        assertTrue(m.find(), reply);
        return Double.parseDouble(m.group(1));
    }

    /** class/task -> implementation -> fraction. */
    static Map<String, Map<String, Double>> shares(JsonNode plan) {
        Map<String, Map<String, Double>> m = new TreeMap<>();
        for (JsonNode b : plan.get("bindings"))
            for (JsonNode s : b.get("shares"))
                if (s.get("fraction").asDouble() > 1e-6)
                    m.computeIfAbsent(b.get("class").asText() + " " + b.get("task").asText(), k -> new TreeMap<>())
                            .merge(s.get("implementation").asText(), s.get("fraction").asDouble(), Double::sum);
        return m;
    }
}
