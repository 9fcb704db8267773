package io.moses.core;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.moses.core.engine.BpelEngine;
import io.moses.core.engine.DeploymentException;
import io.moses.core.engine.ProvidedService;
import io.moses.mdal.KnowledgeBaseException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Process management in the admin API (behind the operator check): {@code GET
 * /admin/processes}; {@code POST /admin/processes/NAME} with a zip of an ODE deployment unit
 * (deploy); {@code PUT /admin/processes/NAME} with a zip (a new version, while requests run);
 * {@code DELETE /admin/processes/NAME} (undeploy). Refusals: 400 with the reason (ODE's
 * compiler messages for a BPEL it rejects), 404, 409, 413 (the body limit), 503.
 */
final class ProcessesServlet extends HttpServlet {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Broker broker;

    ProcessesServlet(Broker broker) {
        this.broker = broker;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
        write(res, 200, broker.deployments().stream().map(ProcessesServlet::describe).toList());
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse res) throws IOException {
        // the body is read before any refusal: a request answered with its body unread leaves
        // a connection the server closes, and a client sending its next request on it gets none
        byte[] zip = body(req, res);
        if (zip == null) return;
        String name = name(req, res);
        if (name == null) return;
        if (exists(name)) {
            write(res, 409, Map.of("error", "unit '" + name + "' is deployed: PUT a new version or DELETE it first"));
            return;
        }
        change(res, 201, () -> describe(broker.deployBundle(name, zip)));
    }

    @Override
    protected void doPut(HttpServletRequest req, HttpServletResponse res) throws IOException {
        byte[] zip = body(req, res); // first, as in doPost
        if (zip == null) return;
        String name = name(req, res);
        if (name == null) return;
        if (!exists(name)) {
            write(res, 404, Map.of("error", "no deployed unit '" + name + "': POST to deploy it"));
            return;
        }
        change(res, 200, () -> describe(broker.redeployBundle(name, zip)));
    }

    @Override
    protected void doDelete(HttpServletRequest req, HttpServletResponse res) throws IOException {
        String name = name(req, res);
        if (name == null) return;
        if (!exists(name)) {
            write(res, 404, Map.of("error", "no deployed unit '" + name + "'"));
            return;
        }
        change(res, 200, () -> {
            broker.undeployUnit(name);
            return Map.of("undeployed", name);
        });
    }

    private interface Change {
        Object run();
    }

    private static void change(HttpServletResponse res, int status, Change c) throws IOException {
        try {
            write(res, status, c.run());
        } catch (DeploymentException e) {
            write(res, 400, Map.of("error", e.getMessage()));
        } catch (KnowledgeBaseException e) {
            write(res, 503, Map.of("error", "knowledge base unavailable: " + e.getMessage()));
        }
    }

    private boolean exists(String name) {
        return broker.deployments().stream().anyMatch(d -> d.name().equals(name));
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

    static Map<String, Object> describe(BpelEngine.Deployment d) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", d.name());
        m.put("version", d.dir().getFileName().toString());
        m.put("processes", d.processes().keySet().stream().map(Object::toString).toList());
        List<String> paths = d.services().stream().map(ProvidedService::path).map(p -> "/services" + p).toList();
        m.put("services", paths);
        return m;
    }

    private static void write(HttpServletResponse res, int status, Object body) throws IOException {
        res.setStatus(status);
        res.setContentType("application/json");
        JSON.writerWithDefaultPrettyPrinter().writeValue(res.getOutputStream(), body);
    }
}
