package io.moses.core.operations;

import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;
import java.util.function.Supplier;

/**
 * GET /health (readiness) and /health/live (liveness), as JSON: 200 when the status is UP, 503
 * otherwise (STARTING, DRAINING, DOWN), so a load balancer can check it as it is.
 */
final class HealthServlet extends HttpServlet {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Supplier<Map<String, Object>> status;

    HealthServlet(Supplier<Map<String, Object>> status) {
        this.status = status;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
        Map<String, Object> s = status.get();
        res.setStatus("UP".equals(s.get("status")) ? 200 : 503);
        res.setContentType("application/json");
        JSON.writerWithDefaultPrettyPrinter().writeValue(res.getOutputStream(), s);
    }
}
