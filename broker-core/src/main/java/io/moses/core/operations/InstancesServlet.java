package io.moses.core.operations;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.core.engine.BpelEngine;
import io.moses.core.engine.InstanceDetails;
import io.moses.core.engine.InstanceRefusal;
import io.moses.core.engine.InstanceSummary;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durable process instances in the admin API (behind the operator check): {@code GET
 * /admin/instances[?process=&state=&limit=]} (newest first, 100 unless {@code limit} says, at
 * most 1000), {@code GET /admin/instances/ID}, {@code POST /admin/instances/ID/suspend},
 * {@code resume}, {@code terminate}. Refusals: 400 bad input, 404 no such instance, 409 an action
 * the instance's state does not allow, 503 no durable store or no database.
 */
public final class InstancesServlet extends HttpServlet {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern ONE = Pattern.compile("/(\\d{1,18})");
    private static final Pattern ACTION = Pattern.compile("/(\\d{1,18})/(suspend|resume|terminate)");
    static final int DEFAULT_LIMIT = 100;

    private final transient BpelEngine engine;

    public InstancesServlet(BpelEngine engine) {
        this.engine = engine;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
        String path = req.getPathInfo();
        answer(res, () -> {
            if (path == null || path.equals("/")) {
                int limit = limit(req.getParameter("limit"));
                List<InstanceSummary> found = engine.instances(blankless(req.getParameter("process")), blankless(req.getParameter("state")), limit);
                Map<String, Object> body = new LinkedHashMap<>();
                body.put("instances", found.stream().map(InstancesServlet::summary).toList());
                body.put("limit", limit);
                body.put("inMemory", "instances of in-memory processes are not kept, and not listed");
                return body;
            }
            Matcher m = ONE.matcher(path);
            if (!m.matches()) throw new BadInput("use /admin/instances or /admin/instances/ID");
            return details(engine.instance(Long.parseLong(m.group(1))));
        });
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse res) throws IOException {
        req.getInputStream().readAllBytes(); // read before any answer: a connection with its body unread is closed
        String path = req.getPathInfo();
        answer(res, () -> {
            Matcher m = path == null ? null : ACTION.matcher(path);
            if (m == null || !m.matches()) throw new BadInput("use POST /admin/instances/ID/suspend, resume or terminate");
            long id = Long.parseLong(m.group(1));
            return summary(switch (m.group(2)) {
                case "suspend" -> engine.suspend(id);
                case "resume" -> engine.resume(id);
                default -> engine.terminate(id);
            });
        });
    }

    private static final class BadInput extends RuntimeException {
        BadInput(String message) {
            super(message);
        }
    }

    private interface Answer {
        Object get();
    }

    private static void answer(HttpServletResponse res, Answer a) throws IOException {
        try {
            write(res, 200, a.get());
        } catch (BadInput e) {
            write(res, 400, Map.of("error", e.getMessage()));
        } catch (InstanceRefusal e) {
            int status = switch (e.reason) {
                case NO_SUCH_INSTANCE -> 404;
                case NOT_IN_THIS_STATE -> 409;
                case BAD_INPUT -> 400;
                case UNAVAILABLE -> 503;
            };
            write(res, status, Map.of("error", e.getMessage()));
        }
    }

    private static int limit(String value) {
        if (value == null || value.isBlank()) return DEFAULT_LIMIT;
        try {
            return Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            throw new BadInput("limit must be a whole number, was '" + value + "'");
        }
    }

    private static String blankless(String v) {
        return v == null || v.isBlank() ? null : v.strip();
    }

    static Map<String, Object> summary(InstanceSummary s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", s.id());
        m.put("process", s.process());
        m.put("version", s.version());
        m.put("state", s.state());
        m.put("started", text(s.started()));
        m.put("lastActive", text(s.lastActive()));
        m.put("correlation", s.correlation());
        m.put("owner", s.owner());
        return m;
    }

    private static Map<String, Object> details(InstanceDetails d) {
        Map<String, Object> m = summary(d.summary());
        m.put("variables", d.variables());
        m.put("waitsFor", d.waitsFor().stream().map(w -> {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("kind", w.kind());
            x.put("what", w.what());
            if (w.key() != null) x.put("key", w.key());
            if (w.due() != null) x.put("due", text(w.due()));
            return x;
        }).toList());
        if (d.fault() != null) {
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("name", d.fault().name());
            f.put("explanation", d.fault().explanation());
            f.put("line", d.fault().line());
            m.put("fault", f);
        }
        return m;
    }

    private static String text(Instant t) {
        return t == null ? null : t.toString();
    }

    private static void write(HttpServletResponse res, int status, Object body) throws IOException {
        res.setStatus(status);
        res.setContentType("application/json");
        JSON.writerWithDefaultPrettyPrinter().writeValue(res.getOutputStream(), body);
    }
}
