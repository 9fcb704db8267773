package io.moses.core;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** GET /metrics: Prometheus text format. */
final class MetricsServlet extends HttpServlet {
    private final PrometheusMeterRegistry registry;

    MetricsServlet(PrometheusMeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
        res.setContentType("text/plain; version=0.0.4; charset=utf-8");
        res.getWriter().write(registry.scrape());
    }
}
