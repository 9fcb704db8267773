package io.moses.sla.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.model.User;
import io.moses.sla.Accounts;
import io.moses.sla.SlaException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Set;
import java.util.function.Function;

/**
 * Passwords in the admin API (behind the broker's operator check): {@code PUT
 * /admin/users/USER/password} with {@code {"password": "..."}} sets USER's password, an
 * operator's reset of another's or of its own. 200 {@code {"user"}}; refusals 400, 404, 503
 * with {@code {"error", "code"}}. A user changes its own through the SLA Manager's
 * ChangePassword (SOAP), an operator also through the console.
 */
public final class UsersServlet extends HttpServlet {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Accounts accounts;
    private final Function<HttpServletRequest, User> caller;

    /** @param caller the operator the broker's admin filter authenticated for the request */
    public UsersServlet(Accounts accounts, Function<HttpServletRequest, User> caller) {
        this.accounts = accounts;
        this.caller = caller;
    }

    @Override
    protected void doPut(HttpServletRequest req, HttpServletResponse res) throws IOException {
        try {
            String p = req.getPathInfo();
            if (p == null || !p.matches("/[^/]+/password"))
                throw new SlaException(SlaException.Code.INVALID, "PUT /admin/users/USER/password sets a password");
            String name = p.substring(1, p.length() - "/password".length());
            JsonNode n = ClassesServlet.body(req, Set.of("password"));
            JsonNode v = n.get("password");
            if (v == null || !v.isTextual()) throw new SlaException(SlaException.Code.INVALID, "password must be a string");
            String user = accounts.changePassword(caller.apply(req), name, v.asText());
            write(res, 200, JSON.createObjectNode().put("user", user));
        } catch (SlaException e) {
            write(res, e.code().httpStatus(), JSON.createObjectNode().put("error", e.getMessage()).put("code", e.code().name()));
        }
    }

    private static void write(HttpServletResponse res, int status, JsonNode body) throws IOException {
        res.setStatus(status);
        res.setContentType("application/json");
        JSON.writerWithDefaultPrettyPrinter().writeValue(res.getOutputStream(), body);
    }
}
