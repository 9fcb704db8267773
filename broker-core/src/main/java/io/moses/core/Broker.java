package io.moses.core;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.moses.adaptation.AdaptiveBinding;
import io.moses.adaptation.InvokeHandler;
import io.moses.adaptation.OutcomeLog;
import io.moses.adaptation.SoapClient;
import io.moses.adaptation.StaticBinding;
import io.moses.core.composition.BehavioralModelBuilder;
import io.moses.core.console.Console;
import io.moses.core.engine.BpelEngine;
import io.moses.core.engine.ProvidedService;
import io.moses.core.frontend.Authenticator;
import io.moses.core.frontend.BasicAuthenticator;
import io.moses.core.frontend.HttpFrontEnd;
import io.moses.core.frontend.OperatorFilter;
import io.moses.mdal.Credentials;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.KnowledgeBases;
import io.moses.mdal.PasswordHasher;
import io.moses.mdal.Seed;
import io.moses.model.CompositeService;
import io.moses.model.ConcreteService;
import io.moses.model.TaskRef;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One broker replica: the BPEL engine, the SOAP front-end, the Adaptation Manager's binding,
 * the knowledge base connection and the Camel context that schedules its background work
 * (the knowledge refresh now; the monitors later). Started and stopped as a whole.
 */
public final class Broker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Broker.class);

    private final BrokerConfig config;
    private final PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final RequestTimers timers = new RequestTimers(metrics);
    private final List<ProvidedService> services = new ArrayList<>();
    private final Map<String, CompositeService> composites = new java.util.concurrent.ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private KnowledgeBase kb;
    private Knowledge knowledge;
    private AdaptiveBinding binding;
    private BpelEngine engine;
    private HttpFrontEnd http;
    private BrokerGauges gauges;
    private CamelContext camel;
    private Authenticator authenticator = Authenticator.ANONYMOUS;
    private FeedbackLoop loop;

    public Broker(BrokerConfig config) {
        this.config = config;
    }

    public void start() throws Exception {
        SoapClient client = new SoapClient(Duration.ofSeconds(2), null);
        kb = KnowledgeBases.open(config.db(), Credentials.fromEnvironment());
        log.info("knowledge base: {}", kb.description());
        for (Path file : config.seeds()) {
            Seed seed = Seed.load(file, config.variables());
            seed.applyTo(kb);
            log.info("seed {} loaded: {} classes, {} users, {} concrete services", file,
                    seed.classes().size(), seed.users().size(), seed.services().size());
        }
        OutcomeLog outcomes = new OutcomeLog(1 << 16);
        binding = new AdaptiveBinding(List.of(), null, client, outcomes, config.invokeTimeout(), Map.of());
        knowledge = new Knowledge(kb, binding);
        knowledge.load();
        InvokeHandler handler = config.staticBinding()
                ? new StaticBinding(firstServicePerTask(kb.concreteServices()), client, config.invokeTimeout())
                : binding;
        authenticator = new BasicAuthenticator(knowledge::user, PasswordHasher::verify, !knowledge.hasUsers());
        engine = new BpelEngine(config.workDir(), new MeteredInvokeHandler(handler, timers), config.engineThreads());
        loop = new FeedbackLoop(kb, knowledge, outcomes, config.adaptation());
        engine.onCompleted(loop::completed);
        engine.start();
        http = new HttpFrontEnd(config.host(), config.port(), config.httpThreads(), config.maxBodyBytes());
        http.mount("/health", new HealthServlet(this::health));
        gauges = new BrokerGauges(metrics, binding::plan, this::live, knowledge::classes, knowledge::services);
        http.mount("/metrics", new MetricsServlet(metrics, gauges::refresh));
        Console console = new Console(authenticator, knowledge::user);
        http.filter("/admin/*", console.admin(new OperatorFilter(authenticator)));
        http.mount("/admin/*", new AdminServlet(binding::plan, kb, operations()));
        http.filter("/console/*", console.guard());
        http.mount("/console/*", console.servlet());
        http.start();
        for (Path unit : config.deployments()) deploy(unit);
        camel = new DefaultCamelContext();
        camel.getCamelContextExtension().setName("moses");
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("timer:knowledge-refresh?period=" + config.refreshMillis() + "&delay=" + config.refreshMillis())
                        .routeId("knowledge-refresh").process(e -> knowledge.refresh());
                Adaptation a = config.adaptation();
                if (a.qosMonitor() || a.pathAnalyzer())
                    from("timer:qos-monitor?period=" + a.monitorMillis() + "&delay=" + a.monitorMillis())
                            .routeId("qos-monitor").process(e -> loop.monitorTick());
                if (a.wsMonitor())
                    from("timer:ws-monitor?period=" + a.probeMillis() + "&delay=" + a.probeMillis())
                            .routeId("ws-monitor").process(e -> loop.probeTick());
            }
        });
        camel.start();
        loop.start();
        log.info("broker listening on http://{}:{} ({} binding, plan {})", config.host(), http.port(),
                config.staticBinding() ? "static" : "adaptive", knowledge.planVersion());
    }

    private static Map<TaskRef, ConcreteService> firstServicePerTask(List<ConcreteService> all) {
        Map<TaskRef, ConcreteService> first = new LinkedHashMap<>();
        for (ConcreteService s : all) first.putIfAbsent(s.task(), s);
        return first;
    }

    private LiveView live() {
        return loop == null ? LiveView.EMPTY : loop.live();
    }

    /** The monitors an operator may switch off and on: their Camel timer routes. */
    private static final List<String> MONITOR_ROUTES = List.of("qos-monitor", "ws-monitor");

    /** What the admin API asks of this replica (its console and moses admin act through it). */
    private AdminOperations operations() {
        return new AdminOperations() {
            @Override
            public LiveView live() {
                return Broker.this.live();
            }

            @Override
            public Map<String, Object> adaptation() {
                return loop == null ? Map.of() : loop.status();
            }

            @Override
            public Map<String, Boolean> monitors() {
                Map<String, Boolean> m = new LinkedHashMap<>();
                if (camel == null) return m;
                for (String id : MONITOR_ROUTES) {
                    var status = camel.getRouteController().getRouteStatus(id);
                    if (status != null) m.put(id, status.isStarted());
                }
                return m;
            }

            @Override
            public void monitor(String name, boolean on) {
                if (camel == null || !MONITOR_ROUTES.contains(name) || camel.getRoute(name) == null)
                    throw new IllegalArgumentException("no monitor " + name + " on this broker (monitors: " + monitors().keySet() + ")");
                try {
                    if (on) camel.getRouteController().startRoute(name);
                    else camel.getRouteController().stopRoute(name, 5, java.util.concurrent.TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException("monitor " + name + " did not " + (on ? "start" : "stop") + ": " + e.getMessage(), e);
                }
            }

            @Override
            public void replan(String why) {
                if (loop == null || !loop.live().optimizer()) throw new IllegalStateException("the optimizer is off on this broker (--optimizer off)");
                loop.replan(why);
            }

            @Override
            public boolean holdOut(String service, boolean out) {
                // without an optimizer no new plan would follow: the service would keep its traffic
                if (loop == null || !loop.live().optimizer())
                    throw new IllegalStateException("taking a service out needs the optimizer, which is off on this broker");
                return loop.holdOut(service, out);
            }
        };
    }

    /**
     * Deploys a unit, stores the behavioral model of each of its processes (the Composition
     * Manager's part) and serves its provided services.
     */
    public BpelEngine.Deployment deploy(Path unit) {
        BpelEngine.Deployment d = engine.deploy(unit);
        for (Path bpel : d.processes().values()) {
            CompositeService model = BehavioralModelBuilder.build(bpel);
            kb.putCompositeService(model);
            composites.put(model.name(), model);
        }
        for (ProvidedService s : d.services()) {
            http.publish(engine, s, config.requestTimeout(), authenticator, timers);
            services.add(s);
        }
        return d;
    }


    public int port() {
        return http.port();
    }

    /** Applies a plan published in the knowledge base now, without waiting for the next refresh. */
    public void refreshNow() {
        knowledge.refresh();
    }

    /** How many plans this replica's optimizer has solved. */
    public long solves() {
        return loop.solves();
    }

    public long planVersion() {
        return knowledge.planVersion();
    }

    Map<String, Object> health() {
        Map<String, Object> h = new LinkedHashMap<>();
        boolean up = engine != null && engine.isRunning();
        h.put("status", up ? "UP" : "DOWN");
        h.put("engine", up ? "running" : "stopped");
        h.put("database", kb == null ? "none" : (knowledge.databaseUp() ? "up" : "down") + " (" + kb.description() + ")");
        h.put("planVersion", knowledge == null ? 0 : knowledge.planVersion());
        h.put("binding", config.staticBinding() ? "static" : "adaptive");
        if (loop != null) h.put("adaptation", loop.status());
        h.put("services", services.stream().map(s -> Map.of("composite", s.composite(),
                "path", "/services" + s.path(), "operations", s.operations())).toList());
        h.put("composites", composites.values().stream().map(c -> Map.of("name", c.name(),
                "tasks", c.tasks().stream().map(t -> t.name()).toList())).toList());
        return h;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        if (camel != null) camel.stop();
        if (loop != null) loop.close();
        if (http != null) http.close();
        if (engine != null) engine.close();
        if (kb != null) kb.close();
        if (gauges != null) gauges.close();
        metrics.close();
        log.info("broker stopped");
    }
}
