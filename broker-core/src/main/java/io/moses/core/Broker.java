package io.moses.core;

import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.moses.adaptation.InvokeHandler;
import io.moses.adaptation.SoapClient;
import io.moses.adaptation.StaticBinding;
import io.moses.core.engine.BpelEngine;
import io.moses.core.engine.ProvidedService;
import io.moses.core.frontend.Authenticator;
import io.moses.core.frontend.HttpFrontEnd;
import io.moses.model.ConcreteService;
import io.moses.model.TaskRef;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One broker replica: the BPEL engine, the SOAP front-end, the invoke handler, health and
 * metrics. Started and stopped as a whole.
 */
public final class Broker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Broker.class);

    private final BrokerConfig config;
    private final PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Map<TaskRef, ConcreteService> bindings;
    private BpelEngine engine;
    private HttpFrontEnd http;
    private final List<ProvidedService> services = new ArrayList<>();
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * @param bindings the concrete service each task is bound to; tasks not in it go to the
     *                 address in their deployment's WSDL
     */
    public Broker(BrokerConfig config, Map<TaskRef, ConcreteService> bindings) {
        this.config = config;
        this.bindings = Map.copyOf(bindings);
    }

    public void start() throws Exception {
        SoapClient client = new SoapClient(Duration.ofSeconds(2), null);
        InvokeHandler handler = new MeteredInvokeHandler(new StaticBinding(bindings, client, config.invokeTimeout()), metrics);
        engine = new BpelEngine(config.workDir(), handler, config.engineThreads());
        engine.start();
        http = new HttpFrontEnd(config.host(), config.port(), config.httpThreads(), config.maxBodyBytes());
        http.mount("/health", new HealthServlet(this::health));
        http.mount("/metrics", new MetricsServlet(metrics));
        http.start();
        for (Path unit : config.deployments()) deploy(unit);
        log.info("broker listening on http://{}:{}", config.host(), http.port());
    }

    /** Deploys a unit and serves its provided services. */
    public BpelEngine.Deployment deploy(Path unit) {
        BpelEngine.Deployment d = engine.deploy(unit);
        for (ProvidedService s : d.services()) {
            http.publish(engine, s, config.requestTimeout(), Authenticator.ANONYMOUS, this::recordComposite);
            services.add(s);
        }
        return d;
    }

    private void recordComposite(String composite, String outcome, long nanos) {
        Timer.builder("moses.composite.requests")
                .description("composite service requests, per composite and outcome")
                .tags("composite", composite, "outcome", outcome)
                .publishPercentileHistogram()
                .register(metrics)
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    public int port() {
        return http.port();
    }

    Map<String, Object> health() {
        Map<String, Object> h = new LinkedHashMap<>();
        boolean up = engine != null && engine.isRunning();
        h.put("status", up ? "UP" : "DOWN");
        h.put("engine", up ? "running" : "stopped");
        h.put("database", config.db() == null ? "none" : "unknown");
        h.put("planVersion", 0);
        h.put("services", services.stream().map(s -> Map.of("composite", s.composite(),
                "path", "/services" + s.path(), "operations", s.operations())).toList());
        return h;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        if (http != null) http.close();
        if (engine != null) engine.close();
        metrics.close();
        log.info("broker stopped");
    }
}
