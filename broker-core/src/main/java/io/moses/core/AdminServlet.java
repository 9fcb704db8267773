package io.moses.core;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.KnowledgeBaseException;
import io.moses.model.Plan;
import io.moses.optimizer.PlanFormat;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The read side of the admin API: {@code GET /admin/plan} (the plan in force on this replica)
 * and {@code GET /admin/plans?n=10} (the latest plan versions in the knowledge base).
 */
final class AdminServlet extends HttpServlet {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Supplier<Plan> current;
    private final KnowledgeBase kb;

    AdminServlet(Supplier<Plan> current, KnowledgeBase kb) {
        this.current = current;
        this.kb = kb;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
        String path = req.getPathInfo() == null ? "" : req.getPathInfo();
        Object body;
        switch (path) {
            case "/plan" -> body = PlanFormat.toTree(current.get());
            case "/classes" -> {
                try {
                    body = kb.serviceClasses().stream().map(k -> Map.of("name", k.name(), "maxResponseTime", k.maxResponseTime(),
                            "minAvailability", k.minAvailability(), "maxCost", k.maxCost(), "price", k.price())).toList();
                } catch (KnowledgeBaseException e) {
                    error(res, 503, "knowledge base unavailable: " + e.getMessage());
                    return;
                }
            }
            case "/plans" -> {
                int n;
                try {
                    n = req.getParameter("n") == null ? 10 : Integer.parseInt(req.getParameter("n"));
                    if (n < 1 || n > 1000) throw new NumberFormatException();
                } catch (NumberFormatException e) {
                    error(res, 400, "n must be a whole number from 1 to 1000");
                    return;
                }
                try {
                    List<Plan> history = kb.planHistory(n);
                    body = history.stream().map(PlanFormat::toTree).toList();
                } catch (KnowledgeBaseException e) {
                    error(res, 503, "knowledge base unavailable: " + e.getMessage());
                    return;
                }
            }
            default -> {
                error(res, 404, "no admin resource " + path + " (try /admin/plan, /admin/plans?n=10 or /admin/classes)");
                return;
            }
        }
        res.setContentType("application/json");
        JSON.writerWithDefaultPrettyPrinter().writeValue(res.getOutputStream(), body);
    }

    private static void error(HttpServletResponse res, int status, String message) throws IOException {
        res.setStatus(status);
        res.setContentType("application/json");
        JSON.writeValue(res.getOutputStream(), Map.of("error", message));
    }
}
