package io.moses.sla.http;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.moses.model.ConcreteService;
import io.moses.model.PayloadMapping;
import io.moses.model.ProviderSla;
import io.moses.sla.ServiceManager;
import io.moses.sla.SlaException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The Service Manager in the admin API, as JSON (behind the broker's operator check): the register
 * of the concrete services the broker calls and their providers' SLAs (their live state is the
 * broker's {@code /admin/concrete-services}, not here).
 * {@code GET /admin/services}, {@code POST /admin/services} (a service), {@code PUT
 * /admin/services/NAME} (any of endpoint, responseTime, availability, cost, maxRate, mapping),
 * {@code DELETE /admin/services/NAME}. Refusals: 400, 404, 409, 503 with {@code {"error", "code"}}.
 * A service's {@code idempotent} and {@code stateful} are its task's (docs/model.md, "Idempotent
 * tasks", "Stateful partners"): given with a POST or PUT, they say so for the task (and re-plan);
 * so is its {@code callback} ({@code {"operation": "quoteReady", "timeout": 5.0}}, or null: it
 * answers in its reply; docs/model.md, "Asynchronous tasks").
 */
public final class ServiceManagerServlet extends HttpServlet {
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final Set<String> FIELDS = Set.of("name", "composite", "task", "endpoint", "responseTime", "availability", "cost",
            "maxRate", "mapping", "idempotent", "stateful", "callback");
    private static final Set<String> UPDATE_FIELDS = Set.of("endpoint", "responseTime", "availability", "cost", "maxRate", "mapping",
            "idempotent", "stateful", "callback");

    private final ServiceManager manager;

    public ServiceManagerServlet(ServiceManager manager) {
        this.manager = manager;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
        handle(res, () -> {
            Set<io.moses.model.TaskRef> idempotent = manager.idempotentTasks(), stateful = manager.statefulTasks();
            Map<io.moses.model.TaskRef, io.moses.model.Callback> callbacks = manager.asynchronousTasks();
            if (name(req) != null) {
                String n = name(req);
                return manager.list(null).stream().filter(l -> l.service().name().equals(n)).findFirst()
                        .map(l -> toJson(l, idempotent, stateful, callbacks))
                        .orElseThrow(() -> new SlaException(SlaException.Code.UNKNOWN_SERVICE, "no concrete service '" + n + "'"));
            }
            ObjectNode out = JSON.createObjectNode();
            ArrayNode list = out.putArray("services");
            for (ServiceManager.Listed l : manager.list(req.getParameter("composite"))) list.add(toJson(l, idempotent, stateful, callbacks));
            out.put("planVersion", manager.planVersion());
            return out;
        });
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse res) throws IOException {
        handle(res, () -> {
            if (name(req) != null) throw new SlaException(SlaException.Code.INVALID, "POST /admin/services adds a service; use PUT to update");
            JsonNode n = body(req, FIELDS);
            var task = ServiceManager.task(text(n, "composite", true), text(n, "task", true));
            URI endpoint = ServiceManager.endpoint(text(n, "endpoint", true));
            ProviderSla sla = ServiceManager.build(() -> new ProviderSla(number(n, "responseTime"), number(n, "availability"),
                    number(n, "cost"), number(n, "maxRate")));
            PayloadMapping mapping = n.has("mapping") ? mapping(n.get("mapping")) : PayloadMapping.IDENTITY;
            String name = text(n, "name", true);
            Boolean idempotent = flag(n, "idempotent"), stateful = flag(n, "stateful");
            ServiceManager.Change added = manager.add(ServiceManager.build(() -> new ConcreteService(name, task, endpoint, sla, mapping)));
            if (idempotent != null) added = withService(manager.setIdempotent(task, idempotent), added.service());
            if (stateful != null) added = withService(manager.setStateful(task, stateful), added.service());
            if (n.has("callback")) added = withService(manager.setCallback(task, callback(n.get("callback"))), added.service());
            res.setStatus(201);
            return change(added);
        });
    }

    @Override
    protected void doPut(HttpServletRequest req, HttpServletResponse res) throws IOException {
        handle(res, () -> {
            String name = required(req);
            JsonNode n = body(req, UPDATE_FIELDS);
            URI endpoint = n.has("endpoint") ? ServiceManager.endpoint(text(n, "endpoint", true)) : null;
            ProviderSla sla = null;
            if (n.has("responseTime") || n.has("availability") || n.has("cost") || n.has("maxRate")) {
                ProviderSla old = manager.list(null).stream().filter(l -> l.service().name().equals(name)).findFirst()
                        .orElseThrow(() -> new SlaException(SlaException.Code.UNKNOWN_SERVICE, "no concrete service '" + name + "'"))
                        .service().sla();
                sla = ServiceManager.build(() -> new ProviderSla(n.has("responseTime") ? number(n, "responseTime") : old.responseTime(),
                        n.has("availability") ? number(n, "availability") : old.availability(),
                        n.has("cost") ? number(n, "cost") : old.cost(), n.has("maxRate") ? number(n, "maxRate") : old.maxRate()));
            }
            PayloadMapping mapping = n.has("mapping") ? mapping(n.get("mapping")) : null;
            Boolean idempotent = flag(n, "idempotent"), stateful = flag(n, "stateful");
            int flags = (idempotent == null ? 0 : 1) + (stateful == null ? 0 : 1) + (n.has("callback") ? 1 : 0);
            ServiceManager.Change updated;
            if (flags > 0 && n.size() == flags) // only the task's flags
                updated = new ServiceManager.Change(manager.list(null).stream().map(ServiceManager.Listed::service).filter(x -> x.name().equals(name))
                        .findFirst().orElseThrow(() -> new SlaException(SlaException.Code.UNKNOWN_SERVICE, "no concrete service '" + name + "'")),
                        manager.planVersion(), "");
            else updated = manager.update(name, endpoint, sla, mapping);
            if (idempotent != null) updated = withService(manager.setIdempotent(updated.service().task(), idempotent), updated.service());
            if (stateful != null) updated = withService(manager.setStateful(updated.service().task(), stateful), updated.service());
            if (n.has("callback"))
                updated = withService(manager.setCallback(updated.service().task(), callback(n.get("callback"))), updated.service());
            return change(updated);
        });
    }

    @Override
    protected void doDelete(HttpServletRequest req, HttpServletResponse res) throws IOException {
        handle(res, () -> change(manager.remove(required(req))));
    }

    // ------------------------------------------------------------------ JSON

    private interface Body {
        JsonNode get() throws IOException;
    }

    private static void handle(HttpServletResponse res, Body body) throws IOException {
        JsonNode out;
        try {
            out = body.get();
        } catch (SlaException e) {
            res.setStatus(e.code().httpStatus());
            out = JSON.createObjectNode().put("error", e.getMessage()).put("code", e.code().name());
        }
        res.setContentType("application/json");
        JSON.writerWithDefaultPrettyPrinter().writeValue(res.getOutputStream(), out);
    }

    private static String name(HttpServletRequest req) {
        String p = req.getPathInfo();
        if (p == null || p.equals("/") || p.isEmpty()) return null;
        return p.substring(1);
    }

    private static String required(HttpServletRequest req) {
        String n = name(req);
        if (n == null) throw new SlaException(SlaException.Code.INVALID, "name the service: /admin/services/NAME");
        return n;
    }

    private static JsonNode body(HttpServletRequest req, Set<String> allowed) throws IOException {
        JsonNode n;
        try {
            n = JSON.readTree(req.getInputStream());
        } catch (IOException e) {
            // the parser's reason, without the source location it appends on further lines
            throw new SlaException(SlaException.Code.INVALID, "the body is not JSON: "
                    + (e instanceof com.fasterxml.jackson.core.JsonProcessingException j ? j.getOriginalMessage() : e.getMessage()));
        }
        if (n == null || !n.isObject()) throw new SlaException(SlaException.Code.INVALID, "the body must be a JSON object");
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!allowed.contains(f)) throw new SlaException(SlaException.Code.INVALID, f + ": unknown field (expected one of " + new java.util.TreeSet<>(allowed) + ")");
        }
        return n;
    }

    private static String text(JsonNode n, String field, boolean required) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            if (required) throw new SlaException(SlaException.Code.INVALID, field + " is missing");
            return null;
        }
        if (!v.isTextual()) throw new SlaException(SlaException.Code.INVALID, field + " must be a string");
        return v.asText();
    }

    private static double number(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) throw new SlaException(SlaException.Code.INVALID, field + " is missing");
        if (!v.isNumber()) throw new SlaException(SlaException.Code.INVALID, field + " must be a number, was " + v);
        return v.asDouble();
    }

    private static Boolean flag(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) return null;
        if (!v.isBoolean()) throw new SlaException(SlaException.Code.INVALID, field + " must be true or false, was " + v);
        return v.asBoolean();
    }

    /** A task's callback as the JSON gives it: null (it answers in its reply) or {@code {"operation", "timeout"}}. */
    private static io.moses.model.Callback callback(JsonNode v) {
        if (v.isNull()) return null;
        if (!v.isObject()) throw new SlaException(SlaException.Code.INVALID, "callback must be an object {\"operation\", \"timeout\"} or null");
        for (Iterator<String> it = v.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!Set.of("operation", "timeout").contains(f)) throw new SlaException(SlaException.Code.INVALID, "callback." + f + ": unknown field");
        }
        String operation = text(v, "operation", true);
        if (v.has("timeout") && !v.get("timeout").isNumber())
            throw new SlaException(SlaException.Code.INVALID, "callback.timeout must be a number of seconds");
        return ServiceManager.callback(operation, v.has("timeout") ? v.get("timeout").asDouble() : null);
    }

    private static ServiceManager.Change withService(ServiceManager.Change c, ConcreteService s) {
        return new ServiceManager.Change(s, c.planVersion(), c.message());
    }

    private static PayloadMapping mapping(JsonNode m) {
        if (!m.isObject()) throw new SlaException(SlaException.Code.INVALID, "mapping must be an object");
        for (Iterator<String> it = m.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!Set.of("operation", "soapAction", "request", "reply").contains(f))
                throw new SlaException(SlaException.Code.INVALID, "mapping." + f + ": unknown field");
        }
        return new PayloadMapping(text(m, "operation", false), text(m, "soapAction", false), names(m, "request"), names(m, "reply"));
    }

    private static Map<String, String> names(JsonNode m, String field) {
        Map<String, String> out = new LinkedHashMap<>();
        JsonNode v = m.get(field);
        if (v == null || v.isNull()) return out;
        if (!v.isObject()) throw new SlaException(SlaException.Code.INVALID, "mapping." + field + " must be an object of renames");
        v.fields().forEachRemaining(e -> {
            if (!e.getValue().isTextual()) throw new SlaException(SlaException.Code.INVALID, "mapping." + field + "." + e.getKey() + " must be a string");
            out.put(e.getKey(), e.getValue().asText());
        });
        return out;
    }

    /** A listed service with its task's flags. */
    private static ObjectNode toJson(ServiceManager.Listed l, Set<io.moses.model.TaskRef> idempotent, Set<io.moses.model.TaskRef> stateful,
                                     Map<io.moses.model.TaskRef, io.moses.model.Callback> callbacks) {
        return traits(toJson(l.service(), l.used()), l.service().task(), idempotent, stateful, callbacks);
    }

    /** The task's traits beside a service: idempotent, stateful, and its callback if it is asynchronous. */
    private static ObjectNode traits(ObjectNode o, io.moses.model.TaskRef task, Set<io.moses.model.TaskRef> idempotent,
                                     Set<io.moses.model.TaskRef> stateful, Map<io.moses.model.TaskRef, io.moses.model.Callback> callbacks) {
        o.put("idempotent", idempotent.contains(task)).put("stateful", stateful.contains(task));
        io.moses.model.Callback c = callbacks.get(task);
        if (c != null) o.putObject("callback").put("operation", c.operation()).put("timeout", c.timeout().toNanos() / 1e9);
        return o;
    }

    static ObjectNode toJson(ConcreteService s, boolean used) {
        ObjectNode o = JSON.createObjectNode();
        o.put("name", s.name());
        o.put("composite", s.task().composite());
        o.put("task", s.task().name());
        o.put("endpoint", s.endpoint().toString());
        o.put("responseTime", s.sla().responseTime());
        o.put("availability", s.sla().availability());
        o.put("cost", s.sla().cost());
        o.put("maxRate", s.sla().maxRate());
        if (!s.mapping().isIdentity()) {
            ObjectNode m = o.putObject("mapping");
            if (s.mapping().operation() != null) m.put("operation", s.mapping().operation());
            if (s.mapping().soapAction() != null) m.put("soapAction", s.mapping().soapAction());
            ObjectNode rq = m.putObject("request");
            s.mapping().requestNames().forEach(rq::put);
            ObjectNode rp = m.putObject("reply");
            s.mapping().replyNames().forEach(rp::put);
        }
        o.put("used", used);
        return o;
    }

    private JsonNode change(ServiceManager.Change c) {
        ObjectNode o = JSON.createObjectNode();
        if (c.service() != null) {
            ObjectNode s = traits(toJson(c.service(), false), c.service().task(), manager.idempotentTasks(), manager.statefulTasks(),
                    manager.asynchronousTasks());
            s.remove("used");
            o.set("service", s);
        }
        o.put("planVersion", c.planVersion());
        o.put("message", c.message());
        return o;
    }
}
