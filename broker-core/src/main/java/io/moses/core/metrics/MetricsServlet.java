package io.moses.core.metrics;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * GET /metrics: Prometheus text format, or OpenMetrics (with the histograms' exemplars) for a
 * scraper that asks for it; the broker's gauges are brought up to date first.
 */
final class MetricsServlet extends HttpServlet {
    static final String OPEN_METRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8";

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
        String accept = req.getHeader("Accept");
        if (accept != null && accept.contains("application/openmetrics-text")) {
            res.setContentType(OPEN_METRICS);
            res.getWriter().write(registry.scrape(OPEN_METRICS));
            return;
        }
        res.setContentType("text/plain; version=0.0.4; charset=utf-8");
        res.getWriter().write(registry.scrape());
    }
}
