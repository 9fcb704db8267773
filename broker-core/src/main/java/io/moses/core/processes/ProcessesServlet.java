package io.moses.core.processes;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.core.engine.DeploymentException;
import io.moses.mdal.KnowledgeBaseException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;

/**
 * Process management in the admin API (behind the operator check): {@code GET
 * /admin/processes}; {@code POST /admin/processes/NAME} with a zip of an ODE deployment unit
 * (deploy); {@code PUT /admin/processes/NAME} with a zip (a new version, while requests run);
 * {@code DELETE /admin/processes/NAME[?terminate=true]} (undeploy; refused with 409 while durable
 * instances of the unit are unfinished, unless they are to be terminated). Refusals: 400 with the reason (ODE's
 * compiler messages for a BPEL it rejects), 404, 409, 413 (the body limit), 503. Every change
 * is the cluster's: {@link ProcessSync} applies it here, stores it, and every replica follows.
 */
final class ProcessesServlet extends HttpServlet {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ProcessSync units;

    ProcessesServlet(ProcessSync units) {
        this.units = units;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
        write(res, 200, units.describeAll());
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse res) throws IOException {
        // the body is read before any refusal: a request answered with its body unread leaves
        // a connection the server closes, and a client sending its next request on it gets none
        byte[] zip = body(req, res);
        if (zip == null) return;
        String name = name(req, res);
        if (name == null) return;
        change(res, 201, () -> units.deploy(name, zip));
    }

    @Override
    protected void doPut(HttpServletRequest req, HttpServletResponse res) throws IOException {
        byte[] zip = body(req, res); // first, as in doPost
        if (zip == null) return;
        String name = name(req, res);
        if (name == null) return;
        change(res, 200, () -> units.redeploy(name, zip));
    }

    @Override
    protected void doDelete(HttpServletRequest req, HttpServletResponse res) throws IOException {
        String name = name(req, res);
        if (name == null) return;
        String terminate = req.getParameter("terminate");
        if (terminate != null && !terminate.equals("true") && !terminate.equals("false")) {
            write(res, 400, Map.of("error", "terminate must be true or false, was '" + terminate + "'"));
            return;
        }
        change(res, 200, () -> units.undeploy(name, "true".equals(terminate)));
    }

    private interface Change {
        Object run();
    }

    private static void change(HttpServletResponse res, int status, Change c) throws IOException {
        try {
            write(res, status, c.run());
        } catch (ProcessSync.Refusal e) {
            write(res, e.status, Map.of("error", e.getMessage()));
        } catch (DeploymentException e) {
            write(res, 400, Map.of("error", e.getMessage()));
        } catch (KnowledgeBaseException e) {
            write(res, 503, Map.of("error", "knowledge base unavailable: " + e.getMessage()));
        }
    }

    private static String name(HttpServletRequest req, HttpServletResponse res) throws IOException {
        String p = req.getPathInfo();
        String name = p == null || p.length() < 2 ? null : p.substring(1);
        try {
            return io.moses.core.engine.Bundle.checkName(name);
        } catch (DeploymentException e) {
            write(res, 400, Map.of("error", e.getMessage() + " (use /admin/processes/NAME)"));
            return null;
        }
    }

    private static byte[] body(HttpServletRequest req, HttpServletResponse res) throws IOException {
        try {
            return req.getInputStream().readAllBytes();
        } catch (IOException e) {
            write(res, 413, Map.of("error", e.getMessage()));
            return null;
        }
    }

    private static void write(HttpServletResponse res, int status, Object body) throws IOException {
        res.setStatus(status);
        res.setContentType("application/json");
        JSON.writerWithDefaultPrettyPrinter().writeValue(res.getOutputStream(), body);
    }
}
