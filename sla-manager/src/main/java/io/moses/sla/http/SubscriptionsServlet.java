package io.moses.sla.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.moses.model.User;
import io.moses.sla.SlaException;
import io.moses.sla.SlaManager;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Set;
import java.util.function.Function;

/**
 * The SLA Manager's Subscribe and ChangeSubscription in the admin API, as JSON (behind the
 * broker's operator check, so the console's session can use them where it cannot send the SOAP
 * endpoint HTTP Basic): {@code POST /admin/subscriptions} (user, password, serviceClass, rate),
 * {@code PUT /admin/subscriptions/USER} (serviceClass and/or rate), {@code GET
 * /admin/subscriptions/USER}. The same {@link SlaManager} decides as over SOAP: admission
 * control, storage and the re-plan before the reply. Accepted: 201 (a new user) or 200; refused
 * by admission control: 409 with the reason and the counter-offers; other refusals 400, 404, 409,
 * 503 with {@code {"error", "code"}}.
 */
public final class SubscriptionsServlet extends HttpServlet {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final SlaManager manager;
    private final Function<HttpServletRequest, User> caller;

    /** @param caller the operator the broker's admin filter authenticated for the request */
    public SubscriptionsServlet(SlaManager manager, Function<HttpServletRequest, User> caller) {
        this.manager = manager;
        this.caller = caller;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
        try {
            String name = name(req);
            User u = manager.subscriber(name)
                    .orElseThrow(() -> new SlaException(SlaException.Code.UNKNOWN_USER, "user '" + name + "' has no subscription"));
            write(res, 200, JSON.createObjectNode().put("user", u.name()).put("serviceClass", u.serviceClass()).put("rate", u.rate())
                    .put("planVersion", manager.planVersion()));
        } catch (SlaException e) {
            refuse(res, e);
        }
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse res) throws IOException {
        try {
            if (req.getPathInfo() != null && req.getPathInfo().length() > 1)
                throw new SlaException(SlaException.Code.INVALID, "POST /admin/subscriptions subscribes a new user; PUT /admin/subscriptions/USER changes one");
            JsonNode n = ClassesServlet.body(req, Set.of("user", "password", "serviceClass", "rate"));
            SlaManager.Subscription s = manager.subscribe(caller.apply(req), text(n, "user"), text(n, "password"), text(n, "serviceClass"),
                    rate(n, true));
            answer(res, s, 201);
        } catch (SlaException e) {
            refuse(res, e);
        }
    }

    @Override
    protected void doPut(HttpServletRequest req, HttpServletResponse res) throws IOException {
        try {
            String name = name(req);
            JsonNode n = ClassesServlet.body(req, Set.of("serviceClass", "rate"));
            if (!n.has("serviceClass") && !n.has("rate")) throw new SlaException(SlaException.Code.INVALID, "give serviceClass, rate or both");
            String cls = n.has("serviceClass") ? text(n, "serviceClass") : null;
            answer(res, manager.change(caller.apply(req), name, cls, n.has("rate") ? rate(n, false) : null), 200);
        } catch (SlaException e) {
            refuse(res, e);
        }
    }

    private static void answer(HttpServletResponse res, SlaManager.Subscription s, int accepted) throws IOException {
        ObjectNode o = JSON.createObjectNode().put("accepted", s.accepted()).put("user", s.user()).put("serviceClass", s.serviceClass())
                .put("rate", s.rate()).put("planVersion", s.planVersion()).put("reason", s.reason());
        var offers = o.putArray("counterOffers");
        for (SlaManager.CounterOffer c : s.counterOffers()) offers.addObject().put("serviceClass", c.serviceClass()).put("rate", c.rate());
        if (!s.accepted()) o.put("error", "refused by admission control: " + s.reason()).put("code", "REFUSED");
        write(res, s.accepted() ? accepted : 409, o);
    }

    private static String name(HttpServletRequest req) {
        String p = req.getPathInfo();
        if (p == null || p.length() < 2 || p.indexOf('/', 1) >= 0)
            throw new SlaException(SlaException.Code.INVALID, "name the user: /admin/subscriptions/USER");
        return p.substring(1);
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || !v.isTextual()) throw new SlaException(SlaException.Code.INVALID, field + " must be a string");
        return v.asText();
    }

    private static Double rate(JsonNode n, boolean required) {
        JsonNode v = n.get("rate");
        if (v == null && !required) return null;
        if (v == null || !v.isNumber()) throw new SlaException(SlaException.Code.INVALID, "rate must be a number [req/s]");
        return v.asDouble();
    }

    private static void refuse(HttpServletResponse res, SlaException e) throws IOException {
        write(res, e.code().httpStatus(), JSON.createObjectNode().put("error", e.getMessage()).put("code", e.code().name()));
    }

    private static void write(HttpServletResponse res, int status, JsonNode body) throws IOException {
        res.setStatus(status);
        res.setContentType("application/json");
        JSON.writerWithDefaultPrettyPrinter().writeValue(res.getOutputStream(), body);
    }
}
