package io.moses.core;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.moses.adaptation.AdaptiveBinding;
import io.moses.adaptation.InvokeHandler;
import io.moses.adaptation.ServiceCallLog;
import io.moses.adaptation.SoapClient;
import io.moses.adaptation.StaticBinding;
import io.moses.core.composition.BehavioralModelBuilder;
import io.moses.core.console.Console;
import io.moses.core.engine.BpelEngine;
import io.moses.core.engine.Bundle;
import io.moses.core.engine.ProvidedService;
import io.moses.core.frontend.Authenticator;
import io.moses.core.frontend.BasicAuthenticator;
import io.moses.core.frontend.HttpFrontEnd;
import io.moses.core.frontend.OperatorFilter;
import io.moses.mdal.Credentials;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.Mdal;
import io.moses.mdal.PasswordHasher;
import io.moses.mdal.Seed;
import io.moses.model.CompositeService;
import io.moses.model.ConcreteService;
import io.moses.model.TaskRef;
import io.moses.optimizer.OptimizationEngine;
import io.moses.sla.ManagementAuthenticator;
import io.moses.sla.SlaManager;
import io.moses.sla.ServiceManager;
import io.moses.sla.http.ClassesServlet;
import io.moses.sla.http.ServicesServlet;
import io.moses.sla.soap.ServiceManagerEndpoint;
import io.moses.sla.soap.SlaManagerEndpoint;
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
    private final List<ProvidedService> services = new java.util.concurrent.CopyOnWriteArrayList<>(); // /health reads it while units are deployed
    private final Map<String, CompositeService> composites = new java.util.concurrent.ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The one clock of the monitors, the binding's call stamps and the feedback loop: a wall clock and a monotonic one. */
    private final java.time.Clock wall = java.time.Clock.systemUTC();
    private final java.util.function.LongSupplier nanos = System::nanoTime;
    private KnowledgeBase kb;
    private KnowledgeCache knowledge;
    private AdaptiveBinding binding;
    private BpelEngine engine;
    private SoapClient client;
    private HttpFrontEnd http;
    private io.moses.core.cluster.ConversationRouter conversations;
    private BrokerGauges gauges;
    private CamelContext camel;
    private Authenticator authenticator = Authenticator.ANONYMOUS;
    private FeedbackLoop loop;
    private final ClusterSettings cluster;
    private OptimizerLease lease;
    private ProcessSync processSync;
    private LeaderRequests leaderRequests;
    private OperatorActions operatorActions;
    /** Readiness: STARTING until every unit is served and the plan loaded, DRAINING from close(). */
    private volatile State state = State.STARTING;

    private io.moses.core.frontend.RatePolicy ratePolicy = io.moses.core.frontend.RatePolicy.OFF;
    private io.moses.core.frontend.RatePolicing policing;
    private ReplicaPresence presence;
    /** Each class's worth under overload (the operator's priority, then its price), ranked from the cached classes at each refresh. */
    private io.moses.core.frontend.ClassWorth classWorth = new io.moses.core.frontend.ClassWorth();

    private ServicesServlet servicesServlet;
    private ClassesServlet classesServlet;
    private io.moses.sla.http.SubscriptionsServlet subscriptionsServlet;

    enum State { STARTING, READY, DRAINING, STOPPED }

    public Broker(BrokerConfig config) {
        this(config, ClusterSettings.defaults());
    }

    public Broker(BrokerConfig config, ClusterSettings cluster) {
        this.config = config;
        this.cluster = cluster;
    }

    /** What to do with requests above each user's agreed rate (before {@link #start}; default: not policed). */
    public Broker ratePolicy(io.moses.core.frontend.RatePolicy policy) {
        this.ratePolicy = policy;
        return this;
    }

    /** The order in which classes are refused under overload (before {@link #start}; default: by price). */
    public Broker classWorth(io.moses.core.frontend.ClassWorth worth) {
        this.classWorth = worth;
        return this;
    }

    public void start() throws Exception {
        // replies parsed straight into the engine's DOM (ODE keeps its documents in Xerces)
        client = new SoapClient(Duration.ofSeconds(2), null,
                new io.moses.adaptation.Xml.Parser(new org.apache.xerces.jaxp.DocumentBuilderFactoryImpl()));
        kb = Mdal.open(config.db(), Credentials.fromEnvironment());
        log.info("knowledge base: {}", kb.description());
        for (Path file : config.seeds()) {
            Seed seed = Seed.load(file, config.variables());
            seed.applyTo(kb);
            log.info("seed {} loaded: {} classes, {} users, {} concrete services", file,
                    seed.classes().size(), seed.users().size(), seed.services().size());
        }
        ServiceCallLog outcomes = new ServiceCallLog(1 << 16);
        binding = new AdaptiveBinding(List.of(), null, client, outcomes, config.invokeTimeout(), Map.of(),
                AdaptiveBinding.Options.defaults().withClock(nanos));
        knowledge = new KnowledgeCache(kb, binding);
        knowledge.load();
        InvokeHandler handler = config.staticBinding()
                ? new StaticBinding(firstServicePerTask(kb.concreteServices()), client, config.invokeTimeout())
                : binding;
        authenticator = new BasicAuthenticator(knowledge::user, PasswordHasher::verify, !knowledge.hasUsers());
        engine = new BpelEngine(config.workDir(), new MeteredInvokeHandler(handler, timers), config.engineThreads());
        Duration windowAge = Duration.ofMillis(Math.max(3_000, 3 * config.adaptation().monitorMillis()));
        lease = new OptimizerLease(kb, cluster.replica(), cluster.lease(), windowAge, () -> {
            // a takeover, not this replica's first lease at start (it has just loaded the latest plan)
            if (state == State.READY) loop.replan("replica " + cluster.replica() + " took over the optimizer lease");
        }, wall, nanos);
        Adaptation adaptation = config.adaptation().withInvokeTimeout(config.invokeTimeout());
        loop = new FeedbackLoop(kb, knowledge, outcomes, adaptation, lease, composites::values, FeedbackLoop.optimizer(adaptation),
                () -> FeedbackLoop.engine(adaptation), FeedbackLoop.qosMonitor(adaptation, nanos), wall, nanos);
        engine.onCompleted(loop::completed);
        engine.start();
        http = new HttpFrontEnd(config.host(), config.port(), config.httpThreads(), config.maxBodyBytes(), config.admission());
        // forwarded conversation messages are sealed with the cluster's secret: the owner does not police them again
        io.moses.core.frontend.HopSeal hops = new io.moses.core.frontend.HopSeal(kb.clusterSecret("hop"));
        conversations = new io.moses.core.cluster.ConversationRouter(engine, kb, cluster.replica(), this::internalAddress,
                Duration.ofSeconds(5), hops); // a one-way start's instance runs within that, even on a loaded machine
        conversations.start();
        engine.onConversations(conversations);
        http.forwardConversations(conversations);
        classWorth.update(knowledge.classes());
        http.shedByClass(classWorth, authenticator, metrics);
        // always there: a class may police its users' rates whatever the broker's default (beats only while any is policed)
        policing = new io.moses.core.frontend.RatePolicing(ratePolicy, metrics);
        presence = new ReplicaPresence(kb, cluster.replica(), cluster.lease());
        policing.overRates(knowledge.overRates());
        policing.update(knowledge.users(), policing.polices() ? presence.beat() : 1);
        policing.onEpisode(new OverRateEvents(kb)::record);
        http.police(policing, authenticator);
        http.trustHops(hops);
        io.micrometer.core.instrument.Gauge.builder("moses.policing.replicas", policing, io.moses.core.frontend.RatePolicing::replicas)
                .description("live replicas that share each user's agreed rate (each polices rate / this)").register(metrics);
        io.micrometer.core.instrument.FunctionCounter.builder("moses.conversation.forwarded", conversations,
                io.moses.core.cluster.ConversationRouter::forwarded).description("conversation messages forwarded to the replica holding their instance").register(metrics);
        io.micrometer.core.instrument.FunctionCounter.builder("moses.conversation.owner.gone", conversations,
                io.moses.core.cluster.ConversationRouter::ownerGone).description("conversation messages whose instance's replica was gone").register(metrics);
        http.mount("/health", new HealthServlet(this::health));
        // liveness: the process answers and its engine runs, whether or not it takes traffic
        http.mount("/health/live", new HealthServlet(() -> Map.of("status", engine.isRunning() ? "UP" : "DOWN", "readiness", state.name())));
        gauges = new BrokerGauges(metrics, binding::plan, this::live, knowledge::classes, knowledge::services);
        http.mount("/metrics", new MetricsServlet(metrics, gauges::refresh));
        Console console = new Console(authenticator, kb.operatorSessions());
        http.filter("/admin/*", console.admin(new OperatorFilter(authenticator)));
        http.mount("/admin/*", new AdminServlet(binding::plan, kb, operations()));
        http.filter("/console/*", console.guard());
        http.mount("/console/*", console.servlet());
        http.mount("/favicon.ico", io.moses.core.console.Console.noIcon());
        // an asking replica waits for a takeover too: the lease runs out and the next leader answers
        leaderRequests = new LeaderRequests(kb.replanRequests(), lease, loop, knowledge, cluster.replica(),
                Duration.ofMillis(Math.max(10_000, 3 * cluster.lease().toMillis())));
        operatorActions = new OperatorActions(kb.operatorSwitches(), () -> camel, loop, leaderRequests);
        startManagement();
        http.mount("/admin/services", servicesServlet);
        http.mount("/admin/services/*", servicesServlet);
        http.mount("/admin/classes", classesServlet); // GET as before, plus subscribers; POST, PUT, DELETE
        http.mount("/admin/classes/*", classesServlet);
        http.mount("/admin/subscriptions", subscriptionsServlet); // the SLA Manager's Subscribe and ChangeSubscription, for the console
        http.mount("/admin/subscriptions/*", subscriptionsServlet);
        processSync = new ProcessSync(this, kb.processUnits(), cluster.replica());
        ProcessesServlet processesServlet = new ProcessesServlet(processSync);
        http.mount("/admin/processes", processesServlet);
        http.mount("/admin/processes/*", processesServlet);
        http.start();
        processSync.deployAtStart(config.deployments()); // --deploy directories and the knowledge base's units
        camel = new DefaultCamelContext();
        camel.getCamelContextExtension().setName("moses");
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("timer:optimizer-lease?period=" + lease.renewPeriod().toMillis() + "&delay=" + lease.renewPeriod().toMillis())
                        .routeId("optimizer-lease").process(e -> lease.renew());
                from("timer:knowledge-refresh?period=" + config.refreshMillis() + "&delay=" + config.refreshMillis())
                        .routeId("knowledge-refresh").process(e -> {
                            knowledge.refresh();
                            classWorth.update(knowledge.classes());
                        });
                from("timer:rate-policing?period=" + lease.renewPeriod().toMillis() + "&delay=" + lease.renewPeriod().toMillis())
                        .routeId("rate-policing").process(e -> {
                            policing.overRates(knowledge.overRates());
                            policing.update(knowledge.users(), policing.polices() ? presence.beat() : policing.replicas());
                        });
                from("timer:process-sync?period=" + config.refreshMillis() + "&delay=" + config.refreshMillis())
                        .routeId("process-sync").process(e -> processSync.poll());
                // the leader answers the other replicas' plan requests (no database read elsewhere)
                // the leader applies the operator's switches before it answers (a service put back in is planned with)
                from("timer:leader-requests?period=200&delay=200").routeId("leader-requests").process(e -> {
                    if (lease.leads()) operatorActions.poll();
                    leaderRequests.serve();
                });
                from("timer:operator-sync?period=500&delay=500").routeId("operator-sync").process(e -> operatorActions.poll());
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
        operatorActions.poll(); // monitors switched off and services taken out hold here too, before the first plan
        // the first lease attempt before the loop starts: a lone replica solves its first plan at once
        lease.renew();
        loop.start();
        state = State.READY;
        log.info("broker listening on http://{}:{} ({} binding, plan {}, replica {}{})", config.host(), http.port(),
                config.staticBinding() ? "static" : "adaptive", knowledge.planVersion(), cluster.replica(),
                lease.leads() ? ", optimizer leader" : "");
    }

    /**
     * The SLA Manager at /manage/sla (admission on its own optimizer instance: it works with the
     * loop's off too) and the Service Manager at /manage/services and /admin/services (JSON).
     */
    private void startManagement() {
        OptimizationEngine admission = new OptimizationEngine(OptimizationEngine.SolverChoice.parse(config.adaptation().solver()));
        ManagementAuthenticator callers = new ManagementAuthenticator(kb);
        LoopPlanning planning = new LoopPlanning(loop, knowledge, leaderRequests);
        SlaManager sla = new SlaManager(kb, admission, planning,
                config.openRegistration() ? SlaManager.Registration.OPEN : SlaManager.Registration.CLOSED);
        http.publishManagement("/sla", new SlaManagerEndpoint(sla, callers), SlaManagerEndpoint.WSDL, SlaManagerEndpoint.SERVICE,
                SlaManagerEndpoint.PORT);
        subscriptionsServlet = new io.moses.sla.http.SubscriptionsServlet(sla, req -> (io.moses.model.User) req.getAttribute(OperatorFilter.USER_ATTRIBUTE));
        ServiceManager services = new ServiceManager(kb, planning);
        http.publishManagement("/services", new ServiceManagerEndpoint(services, callers), ServiceManagerEndpoint.WSDL,
                ServiceManagerEndpoint.SERVICE, ServiceManagerEndpoint.PORT);
        servicesServlet = new ServicesServlet(services);
        classesServlet = new ClassesServlet(new io.moses.sla.ClassManager(kb, admission, planning));
    }

    private static Map<TaskRef, ConcreteService> firstServicePerTask(List<ConcreteService> all) {
        Map<TaskRef, ConcreteService> first = new LinkedHashMap<>();
        for (ConcreteService s : all) first.putIfAbsent(s.task(), s);
        return first;
    }

    private LiveView live() {
        return loop == null ? LiveView.EMPTY : loop.live();
    }

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
                return operatorActions.monitors();
            }

            @Override
            public void monitor(String name, boolean on, String operator) {
                operatorActions.monitor(name, on, operator);
            }

            @Override
            public String replan(String why) {
                return operatorActions.replan(why);
            }

            @Override
            public boolean holdOut(String service, boolean out, String operator) {
                return operatorActions.holdOut(service, out, operator);
            }

            @Override
            public Map<String, Object> policing(String serviceClass) {
                return policing == null ? Map.of() : policing.describe(serviceClass);
            }

            @Override
            public Map<String, Object> whatIf(List<WhatIfChange> changes) {
                if (loop == null) throw new IllegalStateException("the optimizer is off: no what-if");
                List<io.moses.model.User> users = kb.users();
                return loop.whatIf(in -> WhatIf.answer(changes, in, users, binding.plan(), loop::planOnly, loop::admissibleRate));
            }
        };
    }

    /**
     * Deploys a unit, stores the behavioral model of each of its processes (the Composition
     * Manager's part) and serves its provided services.
     */
    BpelEngine.Deployment deploy(Path unit) {
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


    // ------------------------------------------------------------------ process management

    private final Object processes = new Object();

    /** The deployed units. */
    List<BpelEngine.Deployment> deployments() {
        return engine.deployments();
    }

    /**
     * Deploys a process bundle (a zip of a deployment unit) as a new unit {@code name}:
     * compiled, modelled, served and planned for, or (on any refusal) nothing at all.
     *
     * <p>{@code replan} is false for a unit applied from the knowledge base (the replica that took
     * the change has planned for it) and at start (the first plan follows).
     *
     * @throws io.moses.core.engine.DeploymentException with the reason (ODE's compiler messages included)
     */
    BpelEngine.Deployment deployBundle(String name, byte[] zip, boolean replan) {
        synchronized (processes) {
            Path dir = Bundle.unpack(zip, uploadDir(), name);
            try {
                return deployUnpacked(name, dir, replan);
            } finally {
                deleteQuietly(dir.getParent()); // the engine deployed its own copy, or nothing
            }
        }
    }

    private BpelEngine.Deployment deployUnpacked(String name, Path dir, boolean replan) {
        BpelEngine.Deployment d = engine.deploy(dir); // ODE's compiler first: its messages are the ones a BPEL author needs
        List<CompositeService> models;
        try {
            models = models(dir);
        } catch (RuntimeException e) {
            engine.undeploy(name);
            throw e;
        }
        try {
            for (CompositeService m : models) kb.putCompositeService(m);
        } catch (RuntimeException e) {
            engine.undeploy(name);
            models.forEach(m -> removeModelQuietly(m.name()));
            throw e;
        }
        models.forEach(m -> composites.put(m.name(), m));
        for (ProvidedService s : d.services()) {
            http.publish(engine, s, config.requestTimeout(), authenticator, timers);
            services.add(s);
        }
        if (replan) replan("process " + name + " deployed");
        return d;
    }

    /**
     * Deploys a new version of unit {@code name} while requests run: running requests finish on
     * the old version, new ones start on the new one. Nothing changes if it is refused.
     */
    BpelEngine.Deployment redeployBundle(String name, byte[] zip, boolean replan) {
        synchronized (processes) {
            Path dir = Bundle.unpack(zip, uploadDir(), name);
            try {
                return redeployUnpacked(name, dir, replan);
            } finally {
                deleteQuietly(dir.getParent()); // the engine deployed its own copy, or nothing
            }
        }
    }

    private BpelEngine.Deployment redeployUnpacked(String name, Path dir, boolean replan) {
        List<CompositeService> models = models(dir);
        BpelEngine.Deployment d = engine.redeploy(name, dir);
        for (CompositeService m : models) {
            try {
                kb.putCompositeService(m);
            } catch (RuntimeException e) {
                log.warn("redeploy of {}: behavioral model of {} not stored ({}); the next start stores it", name, m.name(), e.getMessage());
            }
            composites.put(m.name(), m);
        }
        if (replan) replan("process " + name + " redeployed");
        return d;
    }

    /** Removes unit {@code name}: its services are no longer served, its composites no longer planned for. */
    void undeployUnit(String name, boolean replan) {
        synchronized (processes) {
            BpelEngine.Deployment d = engine.deployments().stream().filter(x -> x.name().equals(name)).findFirst()
                    .orElseThrow(() -> new io.moses.core.engine.DeploymentException("no deployed unit '" + name + "'"));
            for (ProvidedService s : engine.undeploy(name)) {
                http.unpublish(s);
                services.removeIf(x -> x.service().equals(s.service()));
            }
            for (javax.xml.namespace.QName process : d.processes().keySet()) {
                composites.remove(process.getLocalPart());
                removeModelQuietly(process.getLocalPart());
            }
            if (replan) replan("process " + name + " undeployed");
        }
    }

    /** The behavioral models of every process in an unpacked unit, built before anything is deployed. */
    private static List<CompositeService> models(Path dir) {
        try (var files = java.nio.file.Files.walk(dir)) {
            List<CompositeService> out = new ArrayList<>();
            for (Path bpel : files.filter(f -> f.toString().endsWith(".bpel")).sorted().toList()) out.add(BehavioralModelBuilder.build(bpel));
            return out;
        } catch (java.io.IOException e) {
            throw new io.moses.core.engine.DeploymentException("cannot read the unpacked bundle: " + e.getMessage());
        } catch (io.moses.core.engine.DeploymentException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new io.moses.core.engine.DeploymentException("the process cannot be modelled: " + e.getMessage());
        }
    }

    private Path uploadDir() {
        return config.workDir().resolve("uploads").resolve(Long.toString(System.nanoTime(), 36));
    }

    private void removeModelQuietly(String composite) {
        try {
            kb.removeCompositeService(composite);
        } catch (RuntimeException e) {
            log.warn("behavioral model of {} not removed: {}", composite, e.getMessage());
        }
    }

    private static void deleteQuietly(Path dir) {
        if (dir == null) return;
        try (var files = java.nio.file.Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (java.io.IOException | RuntimeException ignored) {
            // a leftover upload directory is harmless
        }
    }

    private void replan(String why) {
        try {
            loop.solveNow(why, java.util.Set.of());
        } catch (RuntimeException e) {
            log.warn("re-plan after {} failed: {}", why, e.getMessage());
        }
    }

    /** Where the other replicas reach this one: its HTTP front-end. */
    private String internalAddress() {
        String host = config.host();
        if (host == null || host.isBlank() || host.equals("0.0.0.0") || host.equals("::")) host = "127.0.0.1";
        return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + http.port();
    }

    public int port() {
        return http.port();
    }

    /** How many plans this replica's optimizer has solved. */
    public long solves() {
        return loop.solves();
    }

    public long planVersion() {
        return knowledge.planVersion();
    }

    /** The knowledge base this replica uses (tests check that refused calls changed nothing). */
    KnowledgeBase knowledgeBase() {
        return kb;
    }

    /** True while this replica holds the optimizer lease. */
    boolean leads() {
        return lease != null && lease.leads();
    }

    /**
     * The readiness a balancer checks: UP (200) only when every unit is served, the plan loaded
     * and the replica not stopping; STARTING, DRAINING or DOWN (503) otherwise. The database is
     * not part of it: replicas serve through an outage with the plan they have.
     */
    Map<String, Object> health() {
        Map<String, Object> h = new LinkedHashMap<>();
        boolean up = engine != null && engine.isRunning();
        State st = state;
        h.put("status", !up && st == State.READY ? "DOWN" : st == State.READY ? "UP" : st == State.STOPPED ? "DOWN" : st.name());
        List<String> unitsFailed = processSync == null ? List.of() : processSync.failedHere();
        if (!unitsFailed.isEmpty()) {
            // a stored unit this replica could not apply: not the cluster's service, out of the balancer until fixed
            if ("UP".equals(h.get("status"))) h.put("status", "DEGRADED");
            h.put("unitsFailed", unitsFailed);
        }
        h.put("replica", cluster.replica());
        if (lease != null) {
            var seen = lease.lastSeen();
            h.put("optimizerLeader", lease.leads());
            h.put("lease", seen == null ? "unknown" : seen.holder() + " (term " + seen.term() + ")");
        }
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
        boolean serving = state == State.READY;
        state = State.DRAINING;
        if (serving && !cluster.drain().isZero()) {
            // still serving while the balancer's health check sees DRAINING and stops sending
            log.info("draining: /health answers DRAINING for {} ms, then requests in flight finish", cluster.drain().toMillis());
            try {
                Thread.sleep(cluster.drain().toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (http != null) http.close(); // closes the port, waits for requests in flight
        if (camel != null) camel.stop();
        if (processSync != null) processSync.forgetReplica();
        if (presence != null) presence.leave(); // the others police larger shares from their next heartbeat
        if (lease != null) lease.release(); // another replica takes over at its next renewal
        if (loop != null) loop.close();
        if (conversations != null) conversations.close();
        if (engine != null) engine.close();
        if (client != null) client.close();
        if (kb != null) kb.close();
        if (gauges != null) gauges.close();
        metrics.close();
        state = State.STOPPED;
        log.info("broker stopped");
    }
}
