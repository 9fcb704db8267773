package io.moses.sla.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.moses.model.OverRate;
import io.moses.model.ServiceClass;
import io.moses.sla.ClassManager;
import io.moses.sla.ServiceManager;
import io.moses.sla.SlaException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Iterator;
import java.util.Set;

/**
 * Service classes in the admin API, as JSON (behind the broker's operator check): {@code GET
 * /admin/classes}, {@code POST /admin/classes} (name, maxResponseTime, minAvailability, maxCost,
 * price, and optionally overRate: off, reject or best-effort), {@code PUT /admin/classes/NAME}
 * (any of the four values and overRate, null for the broker's policy), {@code DELETE
 * /admin/classes/NAME}. Every field is checked before anything is stored. Refusals: 400, 404,
 * 409 (duplicate, in use, an SLA the plan cannot keep),
 * 503, with {@code {"error", "code"}}.
 */
public final class ClassesServlet extends HttpServlet {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> VALUES = Set.of("maxResponseTime", "minAvailability", "maxCost", "price", "overRate");

    private final ClassManager manager;

    public ClassesServlet(ClassManager manager) {
        this.manager = manager;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
        handle(res, 200, () -> {
            ArrayNode out = JSON.createArrayNode();
            java.util.Map<String, OverRate> overRates = manager.overRates();
            for (ClassManager.Listed l : manager.list())
                out.add(withOverRate(toJson(l.serviceClass()), overRates.get(l.serviceClass().name())).put("subscribers", l.subscribers()));
            return out;
        });
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse res) throws IOException {
        handle(res, 201, () -> {
            JsonNode n = body(req, Set.of("name", "maxResponseTime", "minAvailability", "maxCost", "price", "overRate"));
            JsonNode name = n.get("name");
            if (name == null || !name.isTextual()) throw new SlaException(SlaException.Code.INVALID, "name must be a string");
            ServiceClass k = ServiceManager.build(() -> new ServiceClass(name.asText(), number(n, "maxResponseTime", null),
                    number(n, "minAvailability", null), number(n, "maxCost", null), number(n, "price", null)));
            OverRate overRate = overRate(n);
            return withOverRate(change(manager.add(k, overRate)), overRate);
        });
    }

    @Override
    protected void doPut(HttpServletRequest req, HttpServletResponse res) throws IOException {
        handle(res, 200, () -> {
            String name = req.getPathInfo() == null || req.getPathInfo().length() < 2 ? null : req.getPathInfo().substring(1);
            if (name == null) throw new SlaException(SlaException.Code.INVALID, "name the class: /admin/classes/NAME");
            JsonNode n = body(req, VALUES);
            ServiceClass old = manager.list().stream().map(ClassManager.Listed::serviceClass).filter(k -> k.name().equals(name)).findFirst()
                    .orElseThrow(() -> new SlaException(SlaException.Code.UNKNOWN_CLASS, "no service class '" + name + "'"));
            ServiceClass k = ServiceManager.build(() -> new ServiceClass(name, number(n, "maxResponseTime", old.maxResponseTime()),
                    number(n, "minAvailability", old.minAvailability()), number(n, "maxCost", old.maxCost()), number(n, "price", old.price())));
            OverRate overRate = n.has("overRate") ? overRate(n) : manager.overRates().get(name);
            return withOverRate(change(manager.update(k, n.has("overRate"), overRate)), overRate);
        });
    }

    @Override
    protected void doDelete(HttpServletRequest req, HttpServletResponse res) throws IOException {
        handle(res, 200, () -> {
            String name = req.getPathInfo() == null || req.getPathInfo().length() < 2 ? null : req.getPathInfo().substring(1);
            if (name == null) throw new SlaException(SlaException.Code.INVALID, "name the class: /admin/classes/NAME");
            return change(manager.remove(name));
        });
    }

    private interface Body {
        JsonNode get() throws IOException;
    }

    private static void handle(HttpServletResponse res, int status, Body body) throws IOException {
        JsonNode out;
        try {
            out = body.get();
            res.setStatus(status);
        } catch (SlaException e) {
            res.setStatus(e.code().httpStatus());
            out = JSON.createObjectNode().put("error", e.getMessage()).put("code", e.code().name());
        }
        res.setContentType("application/json");
        JSON.writerWithDefaultPrettyPrinter().writeValue(res.getOutputStream(), out);
    }

    /** The request's JSON object, refused (INVALID) when it is not one or has a field outside {@code allowed}. */
    static JsonNode body(HttpServletRequest req, Set<String> allowed) throws IOException {
        JsonNode n;
        try {
            n = JSON.readTree(req.getInputStream());
        } catch (IOException e) {
            throw new SlaException(SlaException.Code.INVALID, "the body is not JSON");
        }
        if (n == null || !n.isObject()) throw new SlaException(SlaException.Code.INVALID, "the body must be a JSON object");
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!allowed.contains(f)) throw new SlaException(SlaException.Code.INVALID, f + ": unknown field (expected one of " + new java.util.TreeSet<>(allowed) + ")");
        }
        return n;
    }

    private static double number(JsonNode n, String field, Double fallback) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            if (fallback == null) throw new SlaException(SlaException.Code.INVALID, field + " is missing");
            return fallback;
        }
        if (!v.isNumber()) throw new SlaException(SlaException.Code.INVALID, field + " must be a number, was " + v);
        return v.asDouble();
    }

    /** The class's own policy above the agreed rate; null (absent or JSON null) for the broker's. */
    private static OverRate overRate(JsonNode n) {
        JsonNode v = n.get("overRate");
        if (v == null || v.isNull()) return null;
        if (!v.isTextual()) throw new SlaException(SlaException.Code.INVALID, "overRate must be off, reject or best-effort, was " + v);
        try {
            return OverRate.parse("overRate", v.asText());
        } catch (IllegalArgumentException e) {
            throw new SlaException(SlaException.Code.INVALID, e.getMessage());
        }
    }

    /** Adds {@code overRate} to a class (or to a change's class), absent when the class follows the broker's policy. */
    private static ObjectNode withOverRate(JsonNode o, OverRate overRate) {
        ObjectNode on = (ObjectNode) o;
        ObjectNode target = on.has("serviceClass") ? (ObjectNode) on.get("serviceClass") : on.has("name") ? on : null;
        if (target != null && overRate != null) target.put("overRate", overRate.label());
        return on;
    }

    static ObjectNode toJson(ServiceClass k) {
        return JSON.createObjectNode().put("name", k.name()).put("maxResponseTime", k.maxResponseTime())
                .put("minAvailability", k.minAvailability()).put("maxCost", k.maxCost()).put("price", k.price());
    }

    private static JsonNode change(ClassManager.Change c) {
        ObjectNode o = JSON.createObjectNode();
        if (c.serviceClass() != null) o.set("serviceClass", toJson(c.serviceClass()));
        o.put("planVersion", c.planVersion());
        o.put("message", c.message());
        return o;
    }
}
