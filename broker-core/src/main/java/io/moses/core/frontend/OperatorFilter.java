package io.moses.core.frontend;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.model.User;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets only operators through (HTTP Basic): 401 without credentials or with wrong ones, 403 for
 * a user who is not an operator. Guards the admin API and the management services.
 */
public final class OperatorFilter extends HttpFilter {
    private static final Logger log = LoggerFactory.getLogger(OperatorFilter.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The authenticated operator, for the servlet behind the filter. */
    public static final String USER_ATTRIBUTE = "io.moses.user";

    private final Authenticator authenticator;

    public OperatorFilter(Authenticator authenticator) {
        this.authenticator = authenticator;
    }

    @Override
    protected void doFilter(HttpServletRequest req, HttpServletResponse res, FilterChain chain) throws IOException, ServletException {
        String header = req.getHeader("Authorization");
        User user;
        try {
            user = header == null ? null : authenticator.userOf(header);
        } catch (AuthenticationException e) {
            refuse(req, res, 401, e.getMessage());
            return;
        }
        if (user == null) {
            refuse(req, res, 401, "authentication required: send HTTP Basic credentials of an operator");
            return;
        }
        if (!user.isOperator()) {
            log.info("refused {} {} to user '{}': not an operator", req.getMethod(), req.getRequestURI(), user.name());
            refuse(req, res, 403, "user '" + user.name() + "' is not an operator");
            return;
        }
        req.setAttribute(USER_ATTRIBUTE, user);
        chain.doFilter(req, res);
    }

    private static void refuse(HttpServletRequest req, HttpServletResponse res, int status, String message) throws IOException {
        res.setStatus(status);
        // a refused caller's body is not read: the connection is closed after this answer, and
        // saying so keeps a client from sending its next request on it
        if (req.getContentLengthLong() > 0 || req.getHeader("Transfer-Encoding") != null)
            res.setHeader("Connection", "close");
        if (status == 401) res.setHeader("WWW-Authenticate", "Basic realm=\"moses\"");
        res.setContentType("application/json");
        JSON.writeValue(res.getOutputStream(), Map.of("error", message));
    }
}
