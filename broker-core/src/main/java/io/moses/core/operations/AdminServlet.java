package io.moses.core.operations;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.core.frontend.OperatorFilter;
import io.moses.management.PlanFormat;
import io.moses.core.loop.LiveView;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.KnowledgeBaseException;
import io.moses.model.CompositeService;
import io.moses.model.ConcreteService;
import io.moses.model.Plan;
import io.moses.model.ServiceClass;
import io.moses.model.SlaEvent;
import io.moses.model.TaskRef;
import io.moses.model.User;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin API, for operators only (the filter in front checks): the one source of what the
 * console and {@code moses plan}/{@code moses admin} show, and the one way they act.
 *
 * <p>Read: {@code GET /admin/plan}, {@code /admin/plans?n=10}, {@code /admin/compliance} (the
 * classes with live compliance; {@code /admin/classes} is the Service Manager's servlet), {@code /admin/composites}, {@code /admin/concrete-services} (the live view of
 * the concrete services the broker calls: observed QoS and state; their register is the Service
 * Manager's {@code /admin/services}), {@code /admin/events?n=50} (SLA events), {@code /admin/status} (adaptation and
 * monitors). Act (POST, JSON answer): {@code /admin/replan}, {@code /admin/monitors/NAME/on|off},
 * {@code /admin/concrete-services/NAME/out|in}. Ask: {@code /admin/what-if} (the plan the optimizer
 * would make for hypothetical changes, nothing applied; {@link WhatIf}).
 */
final class AdminServlet extends HttpServlet {
    private static final Logger log = LoggerFactory.getLogger(AdminServlet.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Supplier<Plan> current;
    private final KnowledgeBase kb;
    private final AdminOperations ops;
    /** The broker's wall clock: a plan's age and the events' week are measured on it. */
    private final java.time.Clock wall;

    AdminServlet(Supplier<Plan> current, KnowledgeBase kb, AdminOperations ops, java.time.Clock wall) {
        this.current = current;
        this.kb = kb;
        this.ops = ops;
        this.wall = wall;
    }

    /** A request the API refuses, with its HTTP status and the reason the caller sees. */
    private static final class Refused extends Exception {
        final int status;

        Refused(int status, String message) {
            super(message, null, false, false);
            this.status = status;
        }
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
        String path = req.getPathInfo() == null ? "" : req.getPathInfo();
        try {
            Object body = switch (path) {
                case "/plan" -> PlanFormat.toTree(current.get());
                case "/plans" -> kb.planHistory(count(req, 10)).stream().map(PlanFormat::toTree).toList();
                case "/compliance" -> classes(); // /admin/classes itself is the Service Manager's (mounted more specifically)
                case "/composites" -> composites();
                case "/concrete-services" -> liveConcreteServices();
                case "/events" -> events(count(req, 50));
                case "/status" -> status();
                default -> throw new Refused(404, "no admin resource " + path
                        + " (try /admin/plan, /admin/plans?n=10, /admin/classes, /admin/compliance, /admin/composites, /admin/concrete-services, /admin/events, /admin/status)");
            };
            write(res, 200, body);
        } catch (Refused e) {
            write(res, e.status, Map.of("error", e.getMessage()));
        } catch (KnowledgeBaseException e) {
            write(res, 503, Map.of("error", "knowledge base unavailable: " + e.getMessage()));
        }
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse res) throws IOException {
        String path = req.getPathInfo() == null ? "" : req.getPathInfo();
        String[] parts = path.split("/");
        String operator = req.getAttribute(OperatorFilter.USER_ATTRIBUTE) instanceof User u ? u.name() : "an operator";
        try {
            if (path.equals("/what-if")) {
                write(res, 200, ops.whatIf(WhatIfChange.parseAll(body(req))));
                return;
            }
            // read the body whatever the action: an unread body makes Jetty close the connection
            String reason = reason(req);
            Object body;
            if (path.equals("/replan")) {
                String answer = ops.replan("operator " + operator + " asked" + (reason.isEmpty() ? "" : ": " + reason));
                log.info("operator {} asked for a new plan", operator);
                body = Map.of("requested", true, "planVersion", versionOf(current.get()), "message", answer);
            } else if (parts.length == 4 && parts[1].equals("monitors") && (parts[3].equals("on") || parts[3].equals("off"))) {
                boolean on = parts[3].equals("on");
                try {
                    ops.monitor(parts[2], on, operator);
                } catch (IllegalArgumentException e) {
                    throw new Refused(404, e.getMessage());
                }
                log.info("operator {} switched monitor {} {}", operator, parts[2], on ? "on" : "off");
                body = Map.of("monitor", parts[2], "running", ops.monitors().getOrDefault(parts[2], false));
            } else if (parts.length == 4 && parts[1].equals("concrete-services") && (parts[3].equals("out") || parts[3].equals("in"))) {
                String name = parts[2];
                if (kb.concreteService(name).isEmpty()) throw new Refused(404, "no concrete service " + name);
                boolean out = parts[3].equals("out");
                boolean changed = ops.holdOut(name, out, operator);
                if (changed) log.info("operator {} {} concrete service {}", operator, out ? "took out" : "put back in", name);
                body = Map.of("service", name, "out", out, "changed", changed, "planVersion", versionOf(current.get()));
            } else {
                throw new Refused(404, "no admin action " + path
                        + " (try POST /admin/replan, /admin/what-if, /admin/monitors/NAME/on|off, /admin/concrete-services/NAME/out|in)");
            }
            write(res, 200, body);
        } catch (Refused e) {
            write(res, e.status, Map.of("error", e.getMessage()));
        } catch (IllegalArgumentException e) { // a what-if's change that does not fit, named by its field
            write(res, 400, Map.of("error", e.getMessage()));
        } catch (IllegalStateException e) {
            write(res, 409, Map.of("error", e.getMessage()));
        } catch (KnowledgeBaseException e) {
            if (e.kind() == KnowledgeBaseException.Kind.CONFLICT) write(res, 409, Map.of("error", e.getMessage())); // the last service of a task in
            else write(res, 503, Map.of("error", "knowledge base unavailable: " + e.getMessage()));
        }
    }

    private List<Map<String, Object>> classes() {
        LiveView live = ops.live();
        List<Map<String, Object>> out = new ArrayList<>();
        for (ServiceClass k : kb.serviceClasses()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", k.name());
            m.put("maxResponseTime", k.maxResponseTime());
            m.put("minAvailability", k.minAvailability());
            m.put("maxCost", k.maxCost());
            m.put("price", k.price());
            Map<String, Object> policing = ops.policing(k.name());
            if (!policing.isEmpty()) m.put("policing", policing);
            LiveView.ServiceClass o = live.classes().get(k.name());
            if (o != null && o.requests() > 0) {
                Map<String, Object> observed = new LinkedHashMap<>();
                observed.put("requests", o.requests());
                observed.put("responseTime", o.responseTime());
                observed.put("availability", o.availability());
                observed.put("responseTimeMet", o.responseTime() <= k.maxResponseTime());
                observed.put("availabilityMet", o.availability() >= k.minAvailability());
                m.put("observed", observed);
            }
            out.add(m);
        }
        return out;
    }

    /**
     * The composite services the broker provides (stored in the knowledge base), each task with
     * its traits: what the Service Manager declared, shown where the tasks are (the console).
     */
    private List<Map<String, Object>> composites() {
        java.util.Set<TaskRef> idempotent = kb.idempotentTasks(), stateful = kb.statefulTasks();
        Map<TaskRef, io.moses.model.Callback> callbacks = kb.asynchronousTasks();
        List<Map<String, Object>> out = new ArrayList<>();
        for (CompositeService c : kb.compositeServices()) {
            Map<String, Object> traits = new LinkedHashMap<>();
            for (TaskRef t : c.tasks()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("idempotent", idempotent.contains(t));
                m.put("stateful", stateful.contains(t));
                io.moses.model.Callback cb = callbacks.get(t);
                if (cb != null) m.put("callback", Map.of("operation", cb.operation(), "timeout", cb.timeout().toNanos() / 1e9));
                traits.put(t.name(), m);
            }
            out.add(Map.of("name", c.name(), "namespace", c.namespace() == null ? "" : c.namespace(),
                    "tasks", c.tasks().stream().map(TaskRef::name).toList(), "traits", traits));
        }
        return out;
    }

    /** Each concrete service with its provider's SLA, the monitors' view and its state. */
    private List<Map<String, Object>> liveConcreteServices() {
        LiveView live = ops.live();
        List<Map<String, Object>> out = new ArrayList<>();
        for (ConcreteService s : kb.concreteServices()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", s.name());
            m.put("composite", s.task().composite());
            m.put("task", s.task().name());
            m.put("endpoint", s.endpoint().toString());
            m.put("sla", Map.of("responseTime", s.sla().responseTime(), "availability", s.sla().availability(),
                    "cost", s.sla().cost(), "maxRate", s.sla().maxRate()));
            // out (operator) before down (WS Monitor): the operator's decision is what keeps it out
            m.put("state", live.heldOut().contains(s.name()) ? "out" : live.down().contains(s.name()) ? "down"
                    : ejected(s.name()) ? "ejected" : "up");
            LiveView.Service o = live.services().get(s.name());
            if (o != null && o.samples() > 0) {
                Map<String, Object> observed = new LinkedHashMap<>();
                observed.put("samples", o.samples());
                observed.put("responseTime", Double.isNaN(o.responseTime()) ? null : o.responseTime());
                observed.put("availability", o.availability());
                m.put("observed", observed);
            }
            out.add(m);
        }
        return out;
    }

    /**
     * HOOK (robustness issue): the Adaptation Manager's outlier ejection is not on this branch
     * yet; when it is, the adaptation status lists the ejected services and this reads them.
     */
    private boolean ejected(String service) {
        return ops.adaptation().get("ejected") instanceof java.util.Collection<?> c && c.contains(service);
    }

    private List<Map<String, Object>> events(int n) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (SlaEvent e : kb.slaEvents(wall.instant().minus(Duration.ofDays(7)), n)) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("at", e.at().toString());
            m.put("kind", e.kind().name());
            m.put("class", e.serviceClass());
            m.put("user", e.user());
            m.put("detail", e.detail());
            out.add(m);
        }
        return out;
    }

    private Map<String, Object> status() {
        Map<String, Object> m = new LinkedHashMap<>(ops.adaptation());
        m.put("monitors", ops.monitors());
        Plan p = current.get();
        Instant now = wall.instant();
        m.put("planVersion", versionOf(p));
        if (p != null) m.put("planAgeSeconds", Math.max(0, Duration.between(p.created(), now).toMillis() / 1000.0));
        m.put("heldOut", ops.live().heldOut());
        m.put("now", now.toString());
        return m;
    }

    private static long versionOf(Plan p) {
        return p == null ? 0 : p.version();
    }

    private static int count(HttpServletRequest req, int dflt) throws Refused {
        String n = req.getParameter("n");
        try {
            int v = n == null ? dflt : Integer.parseInt(n);
            if (v < 1 || v > 1000) throw new NumberFormatException();
            return v;
        } catch (NumberFormatException e) {
            throw new Refused(400, "n must be a whole number from 1 to 1000");
        }
    }

    /** A JSON body (a what-if's changes). */
    private static JsonNode body(HttpServletRequest req) throws Refused, IOException {
        if (req.getContentType() == null || !req.getContentType().startsWith("application/json"))
            throw new Refused(415, "body: send JSON (Content-Type: application/json) {\"changes\":[...]}");
        try {
            return JSON.readTree(req.getInputStream());
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new Refused(400, "body: not JSON: " + e.getOriginalMessage());
        }
    }

    /** The optional {@code {"reason": "..."}} of an action, at most 200 characters. */
    private static String reason(HttpServletRequest req) throws Refused, IOException {
        if (req.getContentLengthLong() == 0) return "";
        if (req.getContentType() == null || !req.getContentType().startsWith("application/json")) {
            req.getInputStream().transferTo(java.io.OutputStream.nullOutputStream()); // bounded by the body limit
            return "";
        }
        JsonNode n;
        try {
            n = JSON.readTree(req.getInputStream());
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new Refused(400, "the body is not JSON: " + e.getOriginalMessage());
        }
        if (n == null || !n.has("reason")) return "";
        String r = n.get("reason").asText().replaceAll("[\\p{Cntrl}]", " ").strip();
        return r.length() > 200 ? r.substring(0, 200) : r;
    }

    private static void write(HttpServletResponse res, int status, Object body) throws IOException {
        res.setStatus(status);
        res.setContentType("application/json");
        res.setHeader("Cache-Control", "no-store");
        JSON.writerWithDefaultPrettyPrinter().writeValue(res.getOutputStream(), body);
    }
}
