package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.core.loop.Adaptation;
import io.moses.testing.Waits;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin API's reads and actions (what the console and moses admin use), the console's login
 * and its guard, and /metrics, against an in-process broker with the optimizer on.
 */
@Tag("e2e")
public class AdminApiTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final ObjectMapper JSON = new ObjectMapper();
    static final String OPERATOR = "Basic " + Base64.getEncoder().encodeToString("olga:olga-secret".getBytes());

    public static HttpResponse<String> send(int port, String method, String path, String auth, Map<String, String> headers, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (auth != null) b.header("Authorization", auth);
        headers.forEach(b::header);
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode get(int port, String path) throws Exception {
        HttpResponse<String> r = send(port, "GET", path, OPERATOR, Map.of(), null);
        assertEquals(200, r.statusCode(), path + ": " + r.body());
        return JSON.readTree(r.body());
    }

    static JsonNode post(int port, String path, int status) throws Exception {
        HttpResponse<String> r = send(port, "POST", path, OPERATOR, Map.of("Content-Type", "application/json"), "{\"reason\":\"test\"}");
        assertEquals(status, r.statusCode(), path + ": " + r.body());
        return JSON.readTree(r.body());
    }

    /** The version of the newest plan made for a reason containing {@code why} (drift plans may come in between). */
    static long awaitPlanFor(int port, String why) throws Exception {
        AtomicLong version = new AtomicLong();
        Waits.until("a plan for '" + why + "'", 20, () -> {
            for (JsonNode p : get(port, "/admin/plans?n=20"))
                if (p.get("reason").asText().contains(why)) {
                    version.set(p.get("version").asLong());
                    return true;
                }
            return false;
        }, () -> {
            try {
                return get(port, "/admin/plans?n=20").toString();
            } catch (Exception e) {
                return e.toString();
            }
        });
        return version.get();
    }

    public static boolean planUses(JsonNode plan, String service) {
        for (JsonNode b : plan.get("bindings"))
            for (JsonNode s : b.get("shares"))
                if (s.get("fraction").asDouble() > 0 && s.get("implementation").asText().matches(".*\\b" + service + "\\b.*")) return true;
        return false;
    }

    static double metric(String text, String name) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + " (\\S+)$").matcher(text);
        assertTrue(m.find(), name + " in /metrics");
        return Double.parseDouble(m.group(1));
    }

    @Test
    void readsActsAndGuardsTheConsole(@TempDir Path work) throws Exception {
        Files.writeString(work.resolve("seed.yaml"), BrokerKnowledgeBaseTest.seed().replace("users:\n",
                "users:\n  - {name: olga, class: gold, rate: 0, password: olga-secret, role: operator}\n"));
        try (EchoPartner partner = new EchoPartner(0)) {
            BrokerConfig config = BrokerConfig.defaults().withAdaptation(Adaptation.defaults().withMonitors(true, false, true)).withPort(0)
                    .withWorkDir(work).withDb("mem:admin-api").withSeeds(List.of(work.resolve("seed.yaml")))
                    .withVariables(Map.of("PARTNER", partner.url(""))).withDeployments(List.of(Path.of("src/test/resources/processes/echo-pair")));
            try (Broker broker = new Broker(config)) {
                broker.start();
                int port = broker.port();

                // /metrics before any composite request: JVM and process binders, the SLA terms, the plan
                String metrics = send(port, "GET", "/metrics", null, Map.of(), null).body();
                for (String name : List.of("jvm_memory_used_bytes", "jvm_gc_", "jvm_threads_live_threads", "jvm_classes_loaded_classes",
                        "process_cpu_usage", "process_uptime_seconds", "system_cpu_count"))
                    assertTrue(metrics.contains(name), name + " missing from /metrics");
                assertEquals(1.0, metric(metrics, "moses_class_max_response_time_seconds{class=\"gold\"}"));
                assertEquals(0.9, metric(metrics, "moses_class_min_availability{class=\"gold\"}"));
                assertTrue(metric(metrics, "moses_plan_version") >= 1);

                for (int i = 0; i < 30; i++) assertEquals(200, BrokerKnowledgeBaseTest.call(port, "alice", "alice-secret").statusCode());
                // a QoS Monitor period drains the outcomes: wait until they are counted (the deadline bounds a hang)
                Waits.within(15, () -> get(port, "/admin/compliance").get(0).path("observed").path("requests").asInt() >= 30);

                JsonNode composites = get(port, "/admin/composites");
                assertEquals("EchoPair", composites.get(0).get("name").asText());
                assertTrue(composites.get(0).get("tasks").toString().contains("left.echo"));
                JsonNode classes = get(port, "/admin/compliance");
                // /admin/classes is the class management of the Service Manager: the same classes, no live data
                assertEquals(classes.get(0).get("name"), get(port, "/admin/classes").get(0).get("name"));
                JsonNode gold = classes.get(0);
                assertEquals(30, gold.get("observed").get("requests").asInt(), gold.toString());
                assertTrue(gold.get("observed").get("responseTimeMet").asBoolean(), gold.toString());
                JsonNode services = get(port, "/admin/concrete-services");
                assertEquals(3, services.size());
                for (JsonNode s : services) assertEquals("up", s.get("state").asText(), s.toString());
                assertTrue(services.toString().contains("\"observed\""), "live QoS of the called services: " + services);
                metrics = send(port, "GET", "/metrics", null, Map.of(), null).body();
                assertEquals(1.0, metric(metrics, "moses_class_sla_met{class=\"gold\"}"));
                assertEquals(1.0, metric(metrics, "moses_class_availability{class=\"gold\"}"));

                // force a re-plan: a new version made for the operator's reason
                post(port, "/admin/replan", 200);
                long v1 = awaitPlanFor(port, "operator olga asked: test");
                JsonNode plan = get(port, "/admin/plan");
                double gauge = metric(send(port, "GET", "/metrics", null, Map.of(), null).body(), "moses_plan_version");
                long after = get(port, "/admin/plan").get("version").asLong(); // a drift plan may come in between
                assertTrue(plan.get("version").asLong() <= gauge && gauge <= after, "plan version gauge " + gauge);
                assertTrue(gauge >= v1);

                // take the service the plan uses for left.echo out: the next plan does without it, then back in
                String used = planUses(plan, "left-1") ? "left-1" : "left-2";
                String other = used.equals("left-1") ? "left-2" : "left-1";
                JsonNode out = post(port, "/admin/concrete-services/" + used + "/out", 200);
                assertTrue(out.get("changed").asBoolean());
                long v2 = awaitPlanFor(port, "operator took concrete service " + used + " out");
                assertTrue(v2 > v1);
                plan = get(port, "/admin/plan"); // this one or a later one: all are made without the service
                assertFalse(planUses(plan, used), used + " still planned: " + plan);
                assertTrue(planUses(plan, other), plan.toString());
                for (JsonNode s : get(port, "/admin/concrete-services"))
                    assertEquals(s.get("name").asText().equals(used) ? "out" : "up", s.get("state").asText(), s.toString());
                assertFalse(post(port, "/admin/concrete-services/" + used + "/out", 200).get("changed").asBoolean(), "already out");
                // the last service of a task that is in stays in, whatever the plan
                assertTrue(post(port, "/admin/concrete-services/" + other + "/out", 409).get("error").asText()
                        .contains("'" + other + "' is the only concrete service of EchoPair/left.echo that is in"));
                assertTrue(post(port, "/admin/concrete-services/right-1/out", 409).get("error").asText().contains("the plans cannot do without it"));
                assertEquals("[\"" + used + "\"]", get(port, "/admin/status").get("heldOut").toString(), "nothing else taken out");
                assertTrue(send(port, "GET", "/metrics", null, Map.of(), null).body()
                        .contains("moses_concrete_up{composite=\"EchoPair\",service=\"" + used + "\",task=\"left.echo\"} 0.0"));
                post(port, "/admin/concrete-services/" + used + "/in", 200);
                assertTrue(awaitPlanFor(port, "operator put concrete service " + used + " back in") > v2);
                for (JsonNode s : get(port, "/admin/concrete-services")) assertEquals("up", s.get("state").asText(), s.toString());
                post(port, "/admin/concrete-services/nosuch/out", 404);

                // monitors off and on: their routes stop and start
                assertTrue(get(port, "/admin/status").get("monitors").get("qos-monitor").asBoolean());
                assertFalse(post(port, "/admin/monitors/qos-monitor/off", 200).get("running").asBoolean());
                assertFalse(get(port, "/admin/status").get("monitors").get("qos-monitor").asBoolean());
                assertTrue(post(port, "/admin/monitors/qos-monitor/on", 200).get("running").asBoolean());
                post(port, "/admin/monitors/nosuch/off", 404);
                assertTrue(post(port, "/admin/monitors/ws-monitor/on", 404).get("error").asText().contains("no monitor ws-monitor"),
                        "switched off at start: no route");

                // bad input gets a reason
                assertEquals(400, send(port, "GET", "/admin/events?n=0", OPERATOR, Map.of(), null).statusCode());
                assertEquals(400, send(port, "POST", "/admin/replan", OPERATOR, Map.of("Content-Type", "application/json"), "{not json").statusCode());
                assertEquals(404, send(port, "POST", "/admin/nothing", OPERATOR, Map.of(), null).statusCode());
                assertEquals(0, get(port, "/admin/events").size());

                // the console: nothing but the login page without a session
                HttpResponse<String> page = send(port, "GET", "/console/", null, Map.of(), null);
                assertEquals(302, page.statusCode());
                assertTrue(page.headers().firstValue("Location").orElse("").endsWith("/console/login"));
                assertEquals(401, send(port, "GET", "/console/console.js", null, Map.of(), null).statusCode());
                assertEquals(401, send(port, "GET", "/console/vendor/uPlot-1.6.32.iife.min.js", null, Map.of(), null).statusCode());
                String form = "application/x-www-form-urlencoded";
                HttpResponse<String> refused = send(port, "POST", "/console/login", null, Map.of("Content-Type", form), "user=olga&password=wrong");
                assertEquals(401, refused.statusCode());
                assertTrue(refused.body().contains("Unknown user or wrong password"), refused.body());
                assertTrue(refused.headers().firstValue("Set-Cookie").isEmpty());
                assertEquals(403, send(port, "POST", "/console/login", null, Map.of("Content-Type", form), "user=alice&password=alice-secret").statusCode());
                assertEquals(401, send(port, "POST", "/console/login", null, Map.of("Content-Type", form), "").statusCode());
                HttpResponse<String> login = send(port, "POST", "/console/login", null, Map.of("Content-Type", form), "user=olga&password=olga-secret");
                assertEquals(302, login.statusCode(), login.body());
                String cookie = login.headers().firstValue("Set-Cookie").orElseThrow();
                assertTrue(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), cookie);
                Map<String, String> session = Map.of("Cookie", cookie.substring(0, cookie.indexOf(';')));
                HttpResponse<String> script = send(port, "GET", "/console/console.js", null, session, null);
                assertEquals(200, script.statusCode());
                assertTrue(script.headers().firstValue("Content-Security-Policy").orElse("").contains("default-src 'self'"));
                assertEquals(200, send(port, "GET", "/admin/plan", null, session, null).statusCode(), "the session reads the admin API");
                assertEquals(403, send(port, "POST", "/admin/replan", null, session, null).statusCode(), "no change without the console's header (CSRF)");
                Map<String, String> action = Map.of("Cookie", session.get("Cookie"), "X-Moses-Console", "1");
                assertEquals(200, send(port, "POST", "/admin/replan", null, action, null).statusCode());
                assertEquals(404, send(port, "GET", "/console/nothing.js", null, session, null).statusCode());
                assertEquals(404, send(port, "GET", "/console/WEB-INF.class", null, session, null).statusCode());
                // a form posted from another site is refused: no logout, no login
                Map<String, String> foreign = Map.of("Cookie", session.get("Cookie"), "Origin", "http://evil.example");
                assertEquals(403, send(port, "POST", "/console/logout", null, foreign, null).statusCode());
                assertEquals(200, send(port, "GET", "/admin/plan", null, session, null).statusCode(), "still logged in");
                assertEquals(403, send(port, "POST", "/console/login", null, Map.of("Content-Type", form, "Origin", "http://127.0.0.1:1"),
                        "user=olga&password=olga-secret").statusCode());
                assertEquals(302, send(port, "POST", "/console/login", null, Map.of("Content-Type", form, "Origin", "http://127.0.0.1:" + port),
                        "user=olga&password=olga-secret").statusCode(), "posted from the console itself");
                send(port, "POST", "/console/logout", null, Map.of("Cookie", session.get("Cookie"), "Origin", "http://127.0.0.1:" + port), null);
                assertEquals(401, send(port, "GET", "/admin/plan", null, session, null).statusCode(), "logged out");
                assertEquals(401, send(port, "GET", "/console/console.js", null, session, null).statusCode());
                assertEquals(200, send(port, "GET", "/console/console.js", OPERATOR, Map.of(), null).statusCode(), "HTTP Basic works too");
            }
        }
    }
}
