package io.moses.core.metrics;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** GET /metrics: Prometheus text format; the broker's gauges are brought up to date first. */
final class MetricsServlet extends HttpServlet {
    private final PrometheusMeterRegistry registry;
    private final Runnable beforeScrape;

    MetricsServlet(PrometheusMeterRegistry registry) {
        this(registry, () -> {});
    }

    MetricsServlet(PrometheusMeterRegistry registry, Runnable beforeScrape) {
        this.registry = registry;
        this.beforeScrape = beforeScrape;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
        beforeScrape.run();
        res.setContentType("text/plain; version=0.0.4; charset=utf-8");
        res.getWriter().write(registry.scrape());
    }
}
