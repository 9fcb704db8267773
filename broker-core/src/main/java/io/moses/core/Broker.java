package io.moses.core;

import io.moses.adaptation.AdaptiveBinding;
import io.moses.adaptation.InvokeHandler;
import io.moses.adaptation.ServiceCallLog;
import io.moses.adaptation.SoapClient;
import io.moses.adaptation.StaticBinding;
import io.moses.core.cluster.ClusterSettings;
import io.moses.core.cluster.LeaderRequests;
import io.moses.core.cluster.OptimizerLease;
import io.moses.core.cluster.ReplicaPresence;
import io.moses.core.console.Console;
import io.moses.core.engine.BpelEngine;
import io.moses.core.frontend.Authenticator;
import io.moses.core.frontend.BasicAuthenticator;
import io.moses.core.frontend.HttpFrontEnd;
import io.moses.core.frontend.OperatorFilter;
import io.moses.core.loop.FeedbackLoop;
import io.moses.core.loop.KnowledgeCache;
import io.moses.core.metrics.BrokerMetrics;
import io.moses.core.operations.AdminApi;
import io.moses.core.operations.Health;
import io.moses.core.operations.Health.State;
import io.moses.core.operations.OperatorActions;
import io.moses.core.operations.OverRateEvents;
import io.moses.core.processes.Processes;
import io.moses.mdal.Credentials;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.Mdal;
import io.moses.mdal.PasswordHasher;
import io.moses.model.ConcreteService;
import io.moses.model.TaskRef;
import jakarta.servlet.http.HttpServlet;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One broker replica, wired: the knowledge base, the Adaptation Manager's binding, the BPEL
 * engine, the HTTP front-end, the feedback loop ({@code loop}), the cluster's lease and requests
 * ({@code cluster}), the deployment units ({@code processes}), the operators' endpoints
 * ({@code operations}, {@code console}), {@code metrics}, and the Camel timer routes that run the
 * background work ({@link BrokerRoutes}). Started and stopped as a whole.
 */
final class Broker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Broker.class);

    private final BrokerConfig config;
    private final BrokerMetrics metrics = new BrokerMetrics(io.moses.core.tracing.Tracing.exemplars());
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The one clock of the monitors, the binding, the optimizer's plans, the cluster and the loop: a wall clock and a monotonic one. */
    private final java.time.Clock wall = java.time.Clock.systemUTC();
    private final java.util.function.LongSupplier nanos = System::nanoTime;
    /** Password guessing slowed down, the same for composite requests, the admin API, the console and the management services. */
    private final io.moses.model.auth.LoginThrottle logins = io.moses.model.auth.LoginThrottle.defaults();
    private KnowledgeBase kb;
    private KnowledgeCache knowledge;
    private AdaptiveBinding binding;
    private BpelEngine engine;
    private SoapClient client;
    private HttpFrontEnd http;
    private io.moses.core.tracing.Tracing tracing = io.moses.core.tracing.Tracing.OFF;
    private io.moses.core.cluster.ConversationRouter conversations;
    private CamelContext camel;
    private Authenticator authenticator = Authenticator.ANONYMOUS;
    private FeedbackLoop loop;
    private final ClusterSettings cluster;
    private OptimizerLease lease;
    private Processes processes;
    private LeaderRequests leaderRequests;
    private OperatorActions operatorActions;
    /** Told each finished durable instance the retention purge deletes (tests wait on it). */
    private volatile java.util.function.LongConsumer purged = id -> {};
    /** Readiness: STARTING until every unit is served and the plan loaded, DRAINING from close(). */
    private volatile State state = State.STARTING;

    private io.moses.core.frontend.RatePolicy ratePolicy = io.moses.core.frontend.RatePolicy.OFF;
    private io.moses.core.frontend.RatePolicing policing;
    private ReplicaPresence presence;
    /** Each class's worth under overload (the operator's priority, then its price), ranked from the cached classes at each refresh. */
    private io.moses.core.frontend.ClassWorth classWorth = new io.moses.core.frontend.ClassWorth();

    Broker(BrokerConfig config) {
        this(config, ClusterSettings.defaults());
    }

    Broker(BrokerConfig config, ClusterSettings cluster) {
        this.config = config;
        this.cluster = cluster;
    }

    /** What to do with requests above each user's agreed rate (before {@link #start}; default: not policed). */
    Broker ratePolicy(io.moses.core.frontend.RatePolicy policy) {
        this.ratePolicy = policy;
        return this;
    }

    /** The order in which classes are refused under overload (before {@link #start}; default: by price). */
    Broker classWorth(io.moses.core.frontend.ClassWorth worth) {
        this.classWorth = worth;
        return this;
    }

    void start() throws Exception {
        // a certificate that cannot serve is an operator's mistake: said before anything starts
        io.moses.core.frontend.TlsIdentity tls = config.tlsCert() == null ? null
                : io.moses.core.frontend.TlsIdentity.load(config.tlsCert(), config.tlsKey());
        if (tls != null) {
            java.security.cert.X509Certificate served = tls.chain().get(0);
            log.info("TLS with {} (valid until {}), TLS 1.2 and 1.3", served.getSubjectX500Principal().getName(), served.getNotAfter().toInstant());
            if (served.getNotAfter().toInstant().isBefore(wall.instant()))
                log.warn("the certificate in --tls-cert {} expired on {}: clients will refuse it", config.tlsCert(), served.getNotAfter().toInstant());
        }
        // wrong OTEL_* settings stop the start before anything listens
        tracing = io.moses.core.tracing.Tracing.fromEnvironment(cluster.replica());
        // replies parsed straight into the engine's DOM (ODE keeps its documents in Xerces)
        client = new SoapClient(Duration.ofSeconds(2), null,
                new io.moses.adaptation.Xml.Parser(new org.apache.xerces.jaxp.DocumentBuilderFactoryImpl()));
        kb = Mdal.open(config.db(), Credentials.fromEnvironment());
        log.info("knowledge base: {}", kb.description());
        FirstStart.seed(config, kb);
        FirstStart.firstOperator(config.operatorFile(), kb);
        ServiceCallLog outcomes = new ServiceCallLog(1 << 16);
        binding = new AdaptiveBinding(List.of(), null, client, outcomes, config.invokeTimeout(), Map.of(),
                AdaptiveBinding.Options.defaults().withClocks(nanos, wall).withStallWatch(stallWatch(System.getenv("MOSES_STALL_WATCH"))));
        knowledge = new KnowledgeCache(kb, binding);
        knowledge.load();
        InvokeHandler handler = config.staticBinding()
                ? new StaticBinding(firstServicePerTask(kb.concreteServices()), client, config.invokeTimeout())
                : binding;
        // the replicas share the key: any of them takes a callback whose call another made, before or after a restart
        io.moses.core.engine.CallNumbers calls = new io.moses.core.engine.CallNumbers(kb.clusterSecret("callback"));
        authenticator = new BasicAuthenticator(knowledge::user, PasswordHasher::verify, !knowledge.hasUsers(), logins, calls);
        engine = new BpelEngine(config.workDir(), metrics.timed(handler), config.engineThreads(), config.maxInstancesPerUser(),
                kb.processDatabase().orElse(null), cluster.replica(), this::publicUrl, calls);
        http = new HttpFrontEnd(config.host(), config.port(), config.httpThreads(), config.maxBodyBytes(), config.readDeadline(),
                config.overloadBound(), wall, tls);
        if (tracing.on()) {
            engine.traceWith(tracing);
            http.first(tracing.requests());
        }
        processes = new Processes(engine, kb, http, authenticator, metrics.requests(), config.requestTimeout(), config.workDir(),
                cluster.replica(), why -> loop.solveNow(why, java.util.Set.of()));
        Duration windowAge = Duration.ofMillis(Math.max(3_000, 3 * config.adaptation().monitorMillis()));
        lease = new OptimizerLease(kb, cluster.replica(), cluster.lease(), windowAge, () -> {
            // a takeover, not this replica's first lease at start (it has just loaded the latest plan)
            if (state == State.READY) loop.replan("replica " + cluster.replica() + " took over the optimizer lease");
        }, wall, nanos);
        loop = LoopWiring.loop(config, kb, knowledge, outcomes, lease, processes::composites, wall, nanos);
        engine.onCompleted(loop::completed);
        engine.start();
        // forwarded conversation messages are sealed with the cluster's secret: the owner does not police them again
        io.moses.core.frontend.HopSeal hops = new io.moses.core.frontend.HopSeal(kb.clusterSecret("hop"), cluster.replica());
        // a one-way start's instance runs within the 5 s grace, even on a loaded machine; to replicas
        // serving TLS the forwarded messages go over TLS, trusting this replica's own certificate too
        conversations = new io.moses.core.cluster.ConversationRouter(engine, kb, cluster.replica(), this::internalAddress,
                Duration.ofSeconds(5), hops, wall, tls == null ? null : tls.peerContext(),
                // the takeover comes once the replica's presence expired (the lease's ttl) and the leader looked
                cluster.lease().multipliedBy(2).plusSeconds(10));
        engine.onConversations(conversations);
        http.forwardConversations(conversations);
        classWorth.update(knowledge.classes());
        http.shedByClass(classWorth, authenticator, metrics.registry());
        // always there: a class may police its users' rates whatever the broker's default (beats only while any is policed)
        policing = new io.moses.core.frontend.RatePolicing(ratePolicy, metrics.registry(), config.usersInMetrics(), wall, nanos);
        presence = new ReplicaPresence(kb, cluster.replica(), cluster.lease(), wall);
        policing.overRates(knowledge.overRates());
        policing.update(knowledge.users(), presence.beat());
        policing.onEpisode(new OverRateEvents(kb, wall)::record);
        http.throttleLogins(logins, io.moses.core.frontend.TrustedProxies.parse(config.trustedProxies()));
        http.police(policing, authenticator);
        http.trustHops(hops);
        metrics.policing(policing);
        metrics.conversations(conversations);
        metrics.predictions(loop);
        Health health = new Health(() -> state, cluster.replica(), config.staticBinding(), engine, kb, knowledge, lease, loop, processes);
        http.mount("/health", health.readiness());
        http.mount("/health/live", health.liveness());
        metrics.replica(health::ready, knowledge::databaseUp, lease::leads, loop);
        metrics.gauges(binding::plan, loop::live, knowledge::classes, knowledge::services, binding::ejected, wall);
        http.mount("/metrics", metrics.servlet());
        // an asking replica waits for a takeover too: the lease runs out and the next leader answers
        leaderRequests = new LeaderRequests(kb.replanRequests(), lease, loop, knowledge, cluster.replica(),
                Duration.ofMillis(Math.max(10_000, 3 * cluster.lease().toMillis())));
        operatorActions = new OperatorActions(kb.operatorSwitches(), () -> camel, loop, leaderRequests);
        // a changed password holds on this replica from the reply on, on the others from their next refresh
        io.moses.sla.Accounts accounts = new io.moses.sla.Accounts(kb, user -> knowledge.refresh());
        Console console = new Console(authenticator, kb.operatorSessions(), wall, accounts);
        http.filter("/admin/*", console.admin(new OperatorFilter(authenticator)));
        http.mount("/admin/*", new AdminApi(binding::plan, kb, loop, operatorActions, policing, wall).servlet());
        http.filter("/console/*", console.guard());
        http.mount("/console/*", console.servlet());
        http.mount("/favicon.ico", io.moses.core.console.Console.noIcon());
        Management.start(http, kb, config, leaderRequests.planning(), wall, logins, accounts);
        HttpServlet processesServlet = processes.servlet();
        http.mount("/admin/processes", processesServlet);
        http.mount("/admin/processes/*", processesServlet);
        HttpServlet instancesServlet = new io.moses.core.operations.InstancesServlet(engine);
        http.mount("/admin/instances", instancesServlet);
        http.mount("/admin/instances/*", instancesServlet);
        http.start();
        processes.deployAtStart(config.deployments()); // --deploy directories and the knowledge base's units
        conversations.start(); // the engine knows now which processes are durable
        engine.resumeDurable(); // their processes registered: the durable jobs this replica owns run now
        if (config.instanceRetention() != null) engine.purgeFinishedAfter(config.instanceRetention(), purged::accept);
        camel = new DefaultCamelContext();
        camel.getCamelContextExtension().setName("moses");
        camel.addRoutes(new BrokerRoutes(config, lease, knowledge, classWorth, policing, presence, processes, operatorActions,
                leaderRequests, loop, new io.moses.core.cluster.DurableTakeovers(kb, engine, cluster.replica(), this::internalAddress,
                cluster.lease(), wall, lease::leads)));
        camel.start();
        operatorActions.poll(); // monitors switched off and services taken out hold here too, before the first plan
        // the first lease attempt before the loop starts: a lone replica solves its first plan at once
        lease.renew();
        loop.start();
        state = State.READY;
        log.info("broker listening on {}://{}:{} ({} binding, plan {}, replica {}{})", http.tls() ? "https" : "http", config.host(), http.port(),
                config.staticBinding() ? "static" : "adaptive", knowledge.planVersion(), cluster.replica(),
                lease.leads() ? ", optimizer leader" : "");
        String host = config.host();
        if (cluster.advertise() == null && (host.equals("0.0.0.0") || host.equals("::")))
            log.warn("other replicas reach this one at {} (--host {} without --advertise): in containers or across machines, "
                    + "pass --advertise {}://NAME:{} with a name they can reach", internalAddress(), host, http.tls() ? "https" : "http", http.port());
    }

    /**
     * {@code MOSES_STALL_WATCH}: on (the default) or off, which leaves a hung provider to its
     * calls' timeouts, as before the watch (for benchmarks that compare the two).
     */
    static boolean stallWatch(String setting) {
        if (setting == null || setting.isEmpty() || setting.equals("on")) return true;
        if (setting.equals("off")) return false;
        throw new IllegalArgumentException("MOSES_STALL_WATCH must be on or off, was '" + setting + "'");
    }

    private static Map<TaskRef, ConcreteService> firstServicePerTask(List<ConcreteService> all) {
        Map<TaskRef, ConcreteService> first = new LinkedHashMap<>();
        for (ConcreteService s : all) first.putIfAbsent(s.task(), s);
        return first;
    }

    /** The deployed units. */
    List<BpelEngine.Deployment> deployments() {
        return processes.deployments();
    }

    /** Where the other replicas reach this one: its HTTP front-end. */
    private String internalAddress() {
        if (cluster.advertise() != null) return cluster.advertise().toString();
        String host = config.host();
        if (host == null || host.isBlank() || host.equals("0.0.0.0") || host.equals("::")) host = "127.0.0.1";
        return (http.tls() ? "https://" : "http://") + (host.contains(":") ? "[" + host + "]" : host) + ":" + http.port();
    }

    /** Where partners reach this broker's services: --public-url, else where the other replicas do. */
    private String publicUrl() {
        return config.publicUrl() != null ? config.publicUrl().toString() : internalAddress();
    }

    int port() {
        return http.port();
    }

    /** How many plans this replica's optimizer has solved. */
    long solves() {
        return loop.solves();
    }

    long planVersion() {
        return knowledge.planVersion();
    }

    /** Told each finished durable instance the retention purge deletes (before {@link #start}). */
    Broker onPurged(java.util.function.LongConsumer listener) {
        this.purged = listener;
        return this;
    }

    /** The knowledge base this replica uses (tests check that refused calls changed nothing). */
    KnowledgeBase knowledgeBase() {
        return kb;
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
        if (processes != null) processes.forgetReplica();
        if (presence != null) presence.leave(); // the others police larger shares from their next heartbeat
        if (lease != null) lease.release(); // another replica takes over at its next renewal
        if (loop != null) loop.close();
        if (conversations != null) conversations.close();
        if (engine != null) engine.close();
        if (client != null) client.close();
        tracing.close(); // the spans of the requests that just finished go out
        if (kb != null) kb.close();
        metrics.close();
        state = State.STOPPED;
        log.info("broker stopped");
    }
}
