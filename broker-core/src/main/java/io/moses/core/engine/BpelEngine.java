package io.moses.core.engine;

import io.moses.adaptation.InvokeHandler;
import io.moses.core.engine.CompositeOutcome.CompositeFailure;
import io.moses.core.engine.CompositeOutcome.CompositeFault;
import io.moses.core.engine.CompositeOutcome.CompositeReply;
import io.moses.ode.VariableStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.wsdl.Definition;
import javax.xml.namespace.QName;
import org.apache.ode.bpel.dd.TDeployment;
import org.apache.ode.bpel.engine.BpelServerImpl;
import org.apache.ode.bpel.iapi.Endpoint;
import org.apache.ode.bpel.iapi.Message;
import org.apache.ode.bpel.iapi.MessageExchange;
import org.apache.ode.bpel.iapi.MyRoleMessageExchange;
import org.apache.ode.bpel.memdao.InMemoryProcesses;
import org.apache.ode.scheduler.simple.InstanceOrderedScheduler;
import org.apache.ode.utils.GUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.w3c.dom.Element;

/**
 * The embedded Apache ODE 1.3.7 engine, behind an API with no ODE types: deploy a deployment
 * unit, invoke one of its provided services. Partner invokes go to the {@link InvokeHandler}.
 * A process runs in memory, or durable (its instances and jobs in the knowledge base, through a
 * {@link DurableStore}) as its deploy.xml says.
 */
public final class BpelEngine implements CompositeInvoker, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(BpelEngine.class);

    /** Conversations one user may have under way on this broker, by default. */
    public static final int DEFAULT_MAX_INSTANCES_PER_USER = 1000;

    private final Path workDir;
    private final int maxInstancesPerUser;
    private final LocalTransactions tx;
    /** Durable processes' instances and jobs, or null: all processes run in memory. */
    private final DurableStore durable;
    private final org.apache.ode.scheduler.simple.SplitJobStore jobStore;
    private final InstanceOrderedScheduler scheduler;
    private final org.apache.ode.bpel.engine.BrokerBpelServer server;
    private final ExecutorService jobThreads;
    private final ExecutorService replyThreads;
    private final Endpoints endpoints;
    private final InvokeHandler handler;
    private final Callers callers = new Callers();
    private final AtomicLong versions = new AtomicLong(1);
    private final Map<QName, Provided> provided = new ConcurrentHashMap<>();
    private final List<Deployment> deployments = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Unit name -> the process configurations of its newest version (the versions it replaced are in {@link #retired}). */
    private final Map<String, List<ProcessConfiguration>> unitVersions = new ConcurrentHashMap<>();
    /** ODE's process stores (persistent and in-memory processes: both in memory here), asked whether a retired version still runs. */
    private final InMemoryProcesses[] daos = new InMemoryProcesses[2];
    /** Versions replaced by a redeploy, unregistered from ODE once their last instance has ended. */
    private final Map<ProcessConfiguration, Long> retired = new ConcurrentHashMap<>();
    /** Numbers of the requests under way (each request's instance may not exist yet): a version retires after those started before. */
    private final java.util.concurrent.ConcurrentSkipListSet<Long> inFlight = new java.util.concurrent.ConcurrentSkipListSet<>();
    private final AtomicLong requests = new AtomicLong();
    private volatile boolean running;
    private volatile Conversations conversations;
    private volatile io.moses.core.tracing.Tracing tracing = io.moses.core.tracing.Tracing.OFF;
    private volatile java.util.function.Consumer<CompletedRequest> completed = r -> {};
    /** The operators' view of durable instances (null without a durable store), and the purge of finished ones. */
    private final Instances instances;
    /** The files of each durable version (null without a durable store): its instances finish on it after a start or a takeover. */
    private final DurableVersions durableVersions;
    private volatile RetentionPurge purge;

    /**
     * A deployed unit: its processes' files, the services they provide, and which of its
     * processes are durable (their instances kept in the knowledge base; the others run in memory).
     */
    public record Deployment(String name, Path dir, Map<QName, Path> processes, List<ProvidedService> services, Set<QName> durable) {
        public Deployment {
            durable = Set.copyOf(durable);
        }

        /** "durable" or "in-memory", as deploy.xml's {@code <in-memory>} decides (absent: durable, ODE's rule). */
        public String mode(QName process) {
            return durable.contains(process) ? "durable" : "in-memory";
        }
    }

    /**
     * @param correlates whether its process declares correlation sets (only then can a message belong to another replica's instance)
     * @param durable    whether its process keeps its instances in the knowledge base (any replica can reach them)
     */
    private record Provided(ProvidedService service, SoapBinding binding, boolean correlates, boolean durable) {}

    /**
     * @param workDir    where deployment units are copied and compiled
     * @param handler    where partner invokes go
     * @param jobThreads threads running process instances
     */
    public BpelEngine(Path workDir, InvokeHandler handler, int jobThreads) {
        this(workDir, handler, jobThreads, DEFAULT_MAX_INSTANCES_PER_USER);
    }

    /**
     * @param maxInstancesPerUser the instances of processes that correlate (conversations, which
     *                            wait for their next message) one user may have under way; a message
     *                            that would start one more is refused (0: no limit)
     */
    public BpelEngine(Path workDir, InvokeHandler handler, int jobThreads, int maxInstancesPerUser) {
        this(workDir, handler, jobThreads, maxInstancesPerUser, null, "moses", () -> null, null);
    }

    /**
     * @param store where durable processes keep their instances and jobs (the knowledge base's
     *              database), or null: every process runs in memory, whatever its deploy.xml says
     * @param node  this replica's name, which owns the durable jobs it schedules
     * @param publicUrl where partners reach the broker's services ({@code http://host:port}), asked when a
     *              process is deployed: its own endpoint references are there (null: they hold no address)
     * @param numbers makes the numbers of asynchronous calls, their callbacks' credentials; null: random numbers
     */
    public BpelEngine(Path workDir, InvokeHandler handler, int jobThreads, int maxInstancesPerUser, io.moses.mdal.ProcessDatabase store,
                      String node, java.util.function.Supplier<String> publicUrl, CallNumbers numbers) {
        this.endpoints = new Endpoints(publicUrl);
        if (maxInstancesPerUser < 0) throw new IllegalArgumentException("maxInstancesPerUser must be >= 0, was " + maxInstancesPerUser);
        this.maxInstancesPerUser = maxInstancesPerUser;
        this.workDir = workDir;
        try {
            Files.createDirectories(workDir);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot create " + workDir + ": " + e, e);
        }
        this.tx = new LocalTransactions();
        io.moses.ode.LiteralParsing.install(); // before the job threads make their parsers
        // How the scheduler retries a job whose instance is busy: InstanceOrderedScheduler.execTransaction
        Properties props = new Properties();
        this.durable = store == null ? null : new DurableStore(store, tx);
        var memoryJobs = new org.apache.ode.scheduler.simple.InMemoryJobStore();
        this.jobStore = durable == null ? null : new org.apache.ode.scheduler.simple.SplitJobStore(memoryJobs, durable.jobs(), node);
        this.scheduler = new InstanceOrderedScheduler(node, jobStore == null ? memoryJobs : jobStore, props);
        scheduler.setTransactionManager(tx);
        AtomicInteger n = new AtomicInteger();
        this.jobThreads = Executors.newFixedThreadPool(jobThreads, r -> {
            Thread t = new Thread(r, "bpel-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        scheduler.setExecutorService(this.jobThreads);
        this.server = new org.apache.ode.bpel.engine.BrokerBpelServer();
        server.setConfigProperties(props);
        // ODE's in-memory store, with the broker's variable store and the look-up of instances by
        // correlation key it lacks (the DAO chain: docs/ode-internals.md)
        daos[0] = new InMemoryProcesses(scheduler);
        server.setDaoConnectionFactory(durable == null ? daos[0] : durable.dao());
        if (durable != null) server.setInstanceFence(new InstanceOwners(tx, durable.enlisted(), node));
        server.setInstanceMessages(handler::received); // an asynchronous task's callback is timed when its instance takes it
        this.handler = handler;
        server.setInMemDaoConnectionFactory(daos[1] = new InMemoryProcesses(scheduler));
        server.setScheduler(scheduler);
        server.setBindingContext(endpoints);
        server.setEndpointReferenceContext(endpoints);
        AtomicInteger r = new AtomicInteger();
        this.replyThreads = Executors.newFixedThreadPool(Math.max(4, jobThreads / 2), t -> {
            Thread th = new Thread(t, "bpel-reply-" + r.incrementAndGet());
            th.setDaemon(true);
            return th;
        });
        server.setMessageExchangeContext(new PartnerInvoker(handler, scheduler, () -> server, callers, replyThreads,
                () -> tx.getTransaction() != null, numbers, () -> tracing));
        server.registerBpelEventListener(callers);
        server.registerBpelEventListener(new ConversationEvents(() -> conversations, callers::starterOf,
                pid -> org.apache.ode.bpel.engine.IncomingCorrelation.durable(server, pid)));
        scheduler.setJobProcessor(this::runJob);
        this.instances = durable == null ? null : new Instances(durable, scheduler, server);
        this.durableVersions = durable == null ? null : new DurableVersions(durable, scheduler);
    }

    /** Runs one engine job; a failed job of an in-memory instance fails its waiting request at once. */
    private void runJob(org.apache.ode.bpel.iapi.Scheduler.JobInfo job) {
        try {
            if (org.apache.ode.bpel.engine.IncomingCorrelation.holdValuesOrFailEnded(server, job.jobDetail, scheduler)) return;
            if (org.apache.ode.bpel.engine.RunningConversations.queueForRunningInstance(server, job.jobDetail)) return;
            server.onScheduledJob(job);
        } catch (RuntimeException e) { // JobProcessorException included
            // Instance-lock contention (concurrent replies of a flow) is retried by the scheduler.
            if (e instanceof org.apache.ode.bpel.iapi.Scheduler.JobProcessorException j && j.retry) throw e;
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) root = root.getCause();
            String reason = root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
            log.warn("process job {} failed: {}", job.jobDetail.getType(), reason);
            callers.failed(job.jobDetail.getMexId(), job.jobDetail.getInstanceId(), "the process failed while running: " + reason);
            throw e;
        }
    }

    /**
     * @throws IllegalStateException when ODE's DAOs keep the variables in another store than the
     *         broker's {@link VariableStore} (ODE's copies every variable on every write: a
     *         broker that quietly ran several times slower would mislead every measurement)
     */
    public void start() {
        if (durable == null) requireOwnVariableStore(daos);
        else requireOwnVariableStore(daos[1]);
        server.init();
        server.start();
        scheduler.start();
        running = true;
        log.info("BPEL engine started (Apache ODE 1.3.7, {}, in-memory variables in {})",
                durable == null ? "every process in memory" : "durable processes in the knowledge base", VariableStore.class.getName());
    }

    /**
     * Starts running the durable jobs this replica owns (timers that fell due while it was down,
     * messages and replies its instances had not yet taken): after the units were deployed at
     * start, since ODE abandons a job whose process is not registered.
     */
    public void resumeDurable() {
        if (jobStore == null || jobStore.open()) return;
        registerWaitingVersions();
        scheduler.loadJobsNow();
        log.info("durable jobs resumed");
    }

    /**
     * Loads the durable jobs due now (a takeover just made some this replica's), after the
     * versions their instances run on are registered.
     */
    public void loadDurableJobs() {
        if (jobStore == null) return;
        registerWaitingVersions();
        scheduler.loadJobsNow();
    }

    /**
     * Registers the versions unfinished durable instances run on, before a takeover moves them
     * here: once the move is committed, their messages run here at once, and a message that came
     * before its version was registered went to the deployed version, where no instance took it
     * (it waited for the request's timeout: DurableVersionsClusterTest, in CI).
     */
    public void registerVersionsOfUnfinished() {
        if (jobStore != null) registerWaitingVersions();
    }

    /**
     * Registers again, retired, each replaced durable version that unfinished instances run on
     * and this engine lacks, from its files in the knowledge base: those instances finish on
     * their version (its unit must still be deployed here; the newest version takes new requests).
     */
    private synchronized void registerWaitingVersions() {
        Map<QName, Integer> waiting;
        try {
            waiting = new java.util.HashMap<>(durableVersions.waiting());
        } catch (RuntimeException e) {
            log.warn("the versions unfinished durable instances run on were not read ({}): they are looked for again at the next takeover",
                    e.getMessage());
            return;
        }
        waiting.keySet().removeAll(registeredVersions());
        while (!waiting.isEmpty()) {
            QName pid = waiting.keySet().iterator().next();
            try {
                var kept = durableVersions.kept(pid);
                if (kept.isEmpty())
                    log.warn("{} unfinished instance(s) of {} cannot continue: the knowledge base keeps no files of that version", waiting.get(pid), pid);
                else registerRetired(kept.get(), pid, waiting);
            } catch (RuntimeException e) {
                log.warn("{} unfinished instance(s) of {} cannot continue here: its version was not registered ({})", waiting.get(pid), pid,
                        e.getMessage());
            }
            waiting.remove(pid);
        }
    }

    /**
     * Registers the processes of {@code pid}'s kept unit that {@code waiting} names, as retired
     * versions of the deployed unit, and takes them out of {@code waiting}.
     */
    private void registerRetired(DurableVersions.Kept kept, QName pid, Map<QName, Integer> waiting) {
        List<ProcessConfiguration> current = unitVersions.get(kept.unit());
        if (current == null) {
            log.warn("{} unfinished instance(s) of {} cannot continue: its unit {} is not deployed here", waiting.get(pid), pid, kept.unit());
            return;
        }
        Path upload = workDir.resolve("uploads").resolve(Long.toString(System.nanoTime(), 36));
        DeploymentUnit unit;
        try {
            unit = DeploymentUnit.load(Bundle.unpack(kept.bundle(), upload, kept.unit()), workDir.resolve("processes"), versions.getAndIncrement());
        } finally {
            DeploymentUnit.delete(upload);
        }
        boolean used = false;
        for (TDeployment.Process p : unit.descriptor.getDeploy().getProcessArray()) {
            ProcessConfiguration conf = new ProcessConfiguration(unit, p, true);
            Integer count = waiting.remove(conf.getProcessId());
            if (count == null || conf.isTransient()) continue;
            ProcessConfiguration active = current.stream().filter(c -> c.type().equals(conf.type())).findFirst().orElse(null);
            if (active == null) {
                log.warn("{} unfinished instance(s) of {} cannot continue: unit {} no longer has process {}", count, conf.getProcessId(),
                        kept.unit(), conf.type());
                continue;
            }
            conf.succeed(active); // retired: new requests stay on the deployed version
            endpoints.add(conf);
            server.register(conf);
            retired.put(conf, requests.get());
            used = true;
            log.info("registered {} again, a replaced version of {}: its {} unfinished instance(s) finish on it", conf.getProcessId(),
                    kept.unit(), count);
        }
        if (!used) DeploymentUnit.delete(unit.dir);
    }

    /** Keeps the files of the unit's durable versions in the knowledge base, before they are registered. */
    private void keepDurableVersions(DeploymentUnit unit, List<ProcessConfiguration> confs) {
        List<QName> pids = confs.stream().filter(c -> !c.isTransient()).map(ProcessConfiguration::getProcessId).toList();
        if (durableVersions == null || pids.isEmpty()) return;
        try {
            durableVersions.keep(unit.name, unit.dir, pids);
        } catch (RuntimeException e) {
            throw new DeploymentException("the files of durable process version(s) " + pids + " were not kept in the knowledge base: "
                    + e.getMessage());
        }
    }

    /** Connections the durable store has handed out (0 without one): an in-memory request takes none. */
    long durableStoreConnections() {
        return durable == null ? 0 : durable.connectionsTaken();
    }

    /** Probes each DAO factory the way ODE's engine reaches a variable, in a transaction rolled back. */
    private void requireOwnVariableStore(org.apache.ode.bpel.dao.BpelDAOConnectionFactory... factories) {
        try {
            tx.begin();
            try {
                for (var f : factories) VariableStore.requireUsedBy(f);
            } finally {
                tx.rollback();
            }
        } catch (javax.transaction.NotSupportedException | javax.transaction.SystemException e) {
            throw new IllegalStateException("cannot probe the variable store: " + e, e);
        }
    }

    /** Told of every composite request that ends (on the request's thread: keep it cheap). */
    public void onCompleted(java.util.function.Consumer<CompletedRequest> listener) {
        this.completed = listener;
    }

    /** Traces every partner invoke, as a child of its request's span ({@link io.moses.core.tracing.Tracing#current()}). */
    public void traceWith(io.moses.core.tracing.Tracing tracing) {
        this.tracing = tracing;
    }

    /** Told of the correlation values instances initiate and of instances that end (on the instance's thread). */
    public void onConversations(Conversations listener) {
        this.conversations = listener;
    }

    @Override
    public boolean startsInstances(QName service, String operation) {
        return provided.containsKey(service) && createsInstances(service, operation);
    }

    private boolean createsInstances(QName service, String operation) {
        return readingModel(() -> org.apache.ode.bpel.engine.IncomingCorrelation.createsInstances(server, service, operation),
                "cannot read the process's model");
    }

    /** {@code read} within a transaction, as ODE reads a process's model; a failure is {@code failure}: its message. */
    private <T> T readingModel(java.util.concurrent.Callable<T> read, String failure) {
        try {
            tx.begin();
            T result = read.call();
            tx.commit();
            return result;
        } catch (Exception e) {
            rollbackQuietly();
            throw new IllegalStateException(failure + ": " + e.getMessage(), e);
        }
    }

    /** Whether {@code service}'s process is durable: its instances are in the knowledge base, within every replica's reach. */
    public boolean durable(QName service) {
        Provided p = provided.get(service);
        return p != null && p.durable();
    }

    /** Whether a deployed process of this name ({@code QName.toString()}, as conversations name it) is durable. */
    public boolean durableProcess(String process) {
        QName name;
        try {
            name = QName.valueOf(process);
        } catch (IllegalArgumentException e) {
            return false;
        }
        for (Deployment d : deployments()) if (d.durable().contains(name)) return true;
        return false;
    }

    /**
     * The correlation values a message for {@code operation} of {@code service} carries, as ODE
     * will compute them when it routes the message; null when that operation correlates nothing
     * (or the message lacks the values: the engine then refuses it with its reason).
     */
    public Conversations.Keys correlationOf(QName service, String operation, Element body) {
        Provided target = provided.get(service);
        if (target == null || !target.correlates()) return null; // the common case costs one look-up
        SoapBinding.OperationBinding op = target.binding().operation(operation);
        if (op == null) return null;
        Element message;
        try {
            message = target.binding().toOdeMessage(op, body, true);
        } catch (IllegalArgumentException e) {
            return null;
        }
        var keys = readingModel(() -> org.apache.ode.bpel.engine.IncomingCorrelation.of(server, service, operation, message),
                "cannot compute the correlation values");
        return keys == null ? null : new Conversations.Keys(keys.process(), keys.keys(), keys.mustMatch(), keys.starts());
    }

    public boolean isRunning() {
        return running;
    }

    /**
     * Deploys a deployment unit in ODE's format.
     *
     * @throws DeploymentException with a reason when the unit is invalid
     */
    public Deployment deploy(Path unitDir) {
        DeploymentUnit unit = DeploymentUnit.load(unitDir, workDir.resolve("processes"), versions.getAndIncrement());
        List<ProcessConfiguration> registered = new ArrayList<>();
        try {
            return deploy(unit, registered);
        } catch (RuntimeException e) {
            for (ProcessConfiguration r : registered) unregisterQuietly(r.getProcessId());
            DeploymentUnit.delete(unit.dir); // a refused unit leaves no work directory behind
            throw e;
        }
    }

    private Deployment deploy(DeploymentUnit unit, List<ProcessConfiguration> registered) {
        List<ProvidedService> services = new ArrayList<>();
        List<ProcessConfiguration> confs = new ArrayList<>();
        for (TDeployment.Process p : unit.descriptor.getDeploy().getProcessArray()) {
            ProcessConfiguration conf = new ProcessConfiguration(unit, p, durable != null);
            for (Endpoint ep : conf.getProvideEndpoints().values()) {
                Definition def = conf.getDefinitionForService(ep.serviceName);
                SoapBinding binding = SoapBinding.of(def, ep.serviceName, ep.portName);
                if (provided.containsKey(ep.serviceName))
                    throw new DeploymentException("service " + ep.serviceName + " is already provided by another deployment");
                try {
                    ProvidedService ps = new ProvidedService(conf.getType().getLocalPart(), ep.serviceName, ep.portName,
                            wsdlFile(unit, def).toUri().toURL(),
                            binding.operations().keySet(), binding.soap12);
                    services.add(ps);
                } catch (Exception e) {
                    throw new DeploymentException("cannot locate the WSDL of " + ep.serviceName + ": " + e.getMessage());
                }
            }
            confs.add(conf);
        }
        keepDurableVersions(unit, confs);
        for (ProcessConfiguration conf : confs) {
            endpoints.add(conf);
            try {
                server.register(conf);
                registered.add(conf);
            } catch (RuntimeException e) {
                throw new DeploymentException("ODE refused process " + conf.getType() + ": " + e.getMessage());
            }
        }
        for (ProvidedService ps : services) {
            Definition def = confs.stream().map(c -> c.getDefinitionForService(ps.service())).filter(d -> d != null).findFirst().orElseThrow();
            // the processes of a unit may share one WSDL: what correlates is the process that provides the service
            boolean correlates = confs.stream().anyMatch(c -> c.correlates()
                    && c.getProvideEndpoints().values().stream().anyMatch(ep -> ep.serviceName.equals(ps.service())));
            boolean durableService = confs.stream().anyMatch(c -> !c.isTransient()
                    && c.getProvideEndpoints().values().stream().anyMatch(ep -> ep.serviceName.equals(ps.service())));
            provided.put(ps.service(), new Provided(ps, SoapBinding.of(def, ps.service(), ps.port()), correlates, durableService));
        }
        Deployment d = new Deployment(unit.name, unit.dir, unit.sources, List.copyOf(services), durableTypes(confs));
        deployments.add(d);
        unitVersions.computeIfAbsent(unit.name, k -> new java.util.concurrent.CopyOnWriteArrayList<>()).addAll(confs);
        log.info("deployed {} ({}, services {})", unit.name, modes(confs),
                services.stream().map(s -> s.service().getLocalPart()).toList());
        if (durable == null) {
            // without a durable store ODE's rule cannot hold: say so rather than drop it silently
            List<String> asked = confs.stream().filter(c -> ProcessConfiguration.asksDurable(c.info()))
                    .map(c -> c.getType().getLocalPart()).toList();
            if (!asked.isEmpty())
                log.warn("{}: deploy.xml asks for durable instances of {}; this engine has no durable store and keeps them in memory",
                        unit.name, asked);
        }
        return d;
    }

    private static Set<QName> durableTypes(List<ProcessConfiguration> confs) {
        return confs.stream().filter(c -> !c.isTransient()).map(ProcessConfiguration::getType).collect(java.util.stream.Collectors.toSet());
    }

    /** Each process and its mode, for the deploy's log line: "OrderProcess durable, Audit in-memory". */
    private static String modes(List<ProcessConfiguration> confs) {
        return String.join(", ", confs.stream().map(c -> c.getType().getLocalPart() + (c.isTransient() ? " in-memory" : " durable")).toList());
    }

    /**
     * Deploys a new version of a deployed unit while requests run: requests already running
     * finish on the old version (it stays registered, retired, until its last instance ends), new
     * ones start on the new one.
     * The new version must provide the same services. Nothing changes if it does not compile.
     *
     * @throws DeploymentException with a reason when the unit is invalid or not a new version of {@code name}
     */
    public synchronized Deployment redeploy(String name, Path unitDir) {
        Deployment old = deployments.stream().filter(x -> x.name().equals(name)).findFirst()
                .orElseThrow(() -> new DeploymentException("no deployed unit '" + name + "'"));
        List<ProcessConfiguration> olderConfs = unitVersions.getOrDefault(name, List.of());
        DeploymentUnit unit = DeploymentUnit.load(unitDir, workDir.resolve("processes"), versions.getAndIncrement());
        Deployment d;
        try {
            d = redeploy(name, old, olderConfs, unit);
        } catch (RuntimeException e) {
            DeploymentUnit.delete(unit.dir); // a refused version leaves no work directory behind
            throw e;
        }
        retireIdleVersions();
        return d;
    }

    private Deployment redeploy(String name, Deployment old, List<ProcessConfiguration> olderConfs, DeploymentUnit unit) {
        if (!unit.name.equals(name)) throw new DeploymentException("the new version's directory is '" + unit.name + "', not '" + name + "'");
        List<ProcessConfiguration> confs = new ArrayList<>();
        Map<QName, Provided> next = new java.util.LinkedHashMap<>();
        List<ProvidedService> services = new ArrayList<>();
        for (TDeployment.Process p : unit.descriptor.getDeploy().getProcessArray()) {
            ProcessConfiguration conf = new ProcessConfiguration(unit, p, durable != null);
            ProcessConfiguration previous = null;
            for (ProcessConfiguration c : olderConfs) if (c.type().equals(conf.type())) previous = c;
            if (previous == null) throw new DeploymentException("process " + conf.type() + " is not part of '" + name
                    + "': a new version must redeploy the same processes (undeploy and deploy instead)");
            if (!conf.isTransient() && conf.getProcessId().equals(previous.getProcessId()))
                throw new DeploymentException("process " + conf.type() + " of '" + name + "' is unchanged: the new version's files are"
                        + " the deployed version's, so there is nothing to redeploy");
            conf.succeed(previous);
            for (Endpoint ep : conf.getProvideEndpoints().values()) {
                Definition def = conf.getDefinitionForService(ep.serviceName);
                SoapBinding binding = SoapBinding.of(def, ep.serviceName, ep.portName);
                try {
                    ProvidedService ps = new ProvidedService(conf.getType().getLocalPart(), ep.serviceName, ep.portName,
                            wsdlFile(unit, def).toUri().toURL(), binding.operations().keySet(), binding.soap12);
                    services.add(ps);
                    next.put(ep.serviceName, new Provided(ps, binding, conf.correlates(), !conf.isTransient()));
                } catch (Exception e) {
                    throw new DeploymentException("cannot locate the WSDL of " + ep.serviceName + ": " + e.getMessage());
                }
            }
            confs.add(conf);
        }
        java.util.Set<QName> before = old.services().stream().map(ProvidedService::service).collect(java.util.stream.Collectors.toSet());
        if (!before.equals(next.keySet()))
            throw new DeploymentException("a new version must provide the same services " + before + ", not " + next.keySet()
                    + " (undeploy and deploy instead)");
        keepDurableVersions(unit, confs);
        List<ProcessConfiguration> registered = new ArrayList<>();
        for (ProcessConfiguration conf : confs) {
            endpoints.add(conf);
            try {
                server.register(conf); // retired until activated: requests still go to the old version
                registered.add(conf);
            } catch (RuntimeException e) {
                for (ProcessConfiguration r : registered) unregisterQuietly(r.getProcessId());
                throw new DeploymentException("ODE refused process " + conf.getType() + ": " + e.getMessage());
            }
        }
        provided.putAll(next);
        for (ProcessConfiguration conf : confs) conf.activate();
        Deployment d = new Deployment(unit.name, unit.dir, unit.sources, List.copyOf(services), durableTypes(confs));
        deployments.replaceAll(x -> x.name().equals(name) ? d : x);
        for (ProcessConfiguration c : olderConfs) retired.put(c, requests.get());
        unitVersions.put(name, new java.util.concurrent.CopyOnWriteArrayList<>(confs));
        log.info("redeployed {} as version {} ({}); running requests finish on the old version", name, unit.version, modes(confs));
        return d;
    }

    /**
     * Removes a deployed unit, every version: its services are no longer provided. Requests
     * still running on it fail.
     *
     * @return the services it provided
     */
    public synchronized List<ProvidedService> undeploy(String name) {
        Deployment d = deployments.stream().filter(x -> x.name().equals(name)).findFirst()
                .orElseThrow(() -> new DeploymentException("no deployed unit '" + name + "'"));
        for (ProvidedService s : d.services()) provided.remove(s.service());
        for (ProcessConfiguration conf : unitVersions.getOrDefault(name, List.of())) {
            unregisterQuietly(conf.getProcessId());
            DeploymentUnit.delete(conf.unitDir());
        }
        for (ProcessConfiguration conf : retired.keySet())
            if (conf.getPackage().equals(name)) {
                unregisterQuietly(conf.getProcessId());
                DeploymentUnit.delete(conf.unitDir());
                retired.remove(conf);
            }
        unitVersions.remove(name);
        deployments.remove(d);
        log.info("undeployed {}", name);
        return d.services();
    }

    /**
     * Unregisters from ODE every version a redeploy replaced whose last instance has ended, and
     * deletes its work directory: a version with instances still running stays until they end
     * (checked again after each request and each redeploy), so no running request loses its process.
     */
    private void retireIdleVersions() {
        if (retired.isEmpty()) return;
        synchronized (retired) {
            Long oldest = inFlight.ceiling(Long.MIN_VALUE); // null when none (first() would throw if the last one just ended)
            for (var e : retired.entrySet()) {
                ProcessConfiguration conf = e.getKey();
                QName pid = conf.getProcessId();
                if (oldest != null && oldest <= e.getValue()) continue; // a request started before the switch may still create an instance
                // a durable version's instances may wait for days: it stays registered (until the next start)
                if (!conf.isTransient() || daos[0].instances(pid) + daos[1].instances(pid) > 0) continue;
                unregisterQuietly(pid);
                for (InMemoryProcesses dao : daos) dao.forget(pid);
                retired.remove(conf);
                if (retired.keySet().stream().noneMatch(c -> c.unitDir().equals(conf.unitDir()))) DeploymentUnit.delete(conf.unitDir());
                log.info("retired {}: its last instance has ended", pid);
            }
        }
    }

    /** The process versions registered in ODE's engine (the newest of each unit, and replaced ones still running). */
    java.util.Set<QName> registeredVersions() {
        try {
            tx.begin(); // ODE hands its engine out inside a transaction only
            try {
                return java.util.Set.copyOf(((org.apache.ode.bpel.engine.BpelEngineImpl) server.getEngine())._activeProcesses.keySet());
            } finally {
                tx.commit();
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot read ODE's registered processes: " + e, e);
        }
    }

    private void unregisterQuietly(QName pid) {
        try {
            server.unregister(pid);
        } catch (RuntimeException e) {
            log.warn("unregister {}: {}", pid, e.getMessage());
        }
    }

    private static Path wsdlFile(DeploymentUnit unit, Definition def) {
        java.net.URI base = java.net.URI.create(def.getDocumentBaseURI());
        return base.isAbsolute() ? Path.of(base) : unit.dir.resolve(def.getDocumentBaseURI());
    }

    public List<Deployment> deployments() {
        return List.copyOf(deployments);
    }

    /**
     * Runs one composite request to completion: starts (or continues) a process instance with
     * {@code body} as the input of {@code operation}, and waits for its reply.
     *
     * @param serviceClass the caller's class, handed to every partner invoke of the instance
     */
    @Override
    public CompositeOutcome invoke(QName service, String operation, Element body, String serviceClass, Duration timeout) {
        return invoke(service, operation, body, serviceClass, timeout, false);
    }

    @Override
    public CompositeOutcome invoke(QName service, String operation, Element body, String serviceClass, Duration timeout,
                                   boolean bestEffort) {
        return invoke(service, operation, body, serviceClass, null, timeout, bestEffort);
    }

    @Override
    public CompositeOutcome invoke(QName service, String operation, Element body, String serviceClass, String caller, Duration timeout,
                                   boolean bestEffort) {
        return invoke(service, operation, body, serviceClass, caller, timeout, bestEffort, null);
    }

    @Override
    public CompositeOutcome discarded(QName service, String operation, String call) {
        if (call == null || !handler.superseded(call)) return null;
        log.info("{}.{}: discarded a late callback (its call went to another provider)", service.getLocalPart(), operation);
        Provided target = provided.get(service);
        SoapBinding.OperationBinding op = target == null ? null : target.binding().operation(operation);
        return op != null && mexIsOneWay(op) ? new CompositeReply(null)
                : new CompositeFailure("this callback's call was answered by another provider: it is discarded", true);
    }

    @Override
    public CompositeOutcome invoke(QName service, String operation, Element body, String serviceClass, String caller, Duration timeout,
                                   boolean bestEffort, String call) {
        Provided target = provided.get(service);
        if (target == null) return new CompositeFailure("no deployed service " + service, true);
        SoapBinding.OperationBinding op = target.binding().operation(operation);
        if (op == null)
            return new CompositeFailure("service " + service.getLocalPart() + " has no operation " + operation
                    + " (it has " + target.binding().operations().keySet() + ")", true);
        Element request;
        try {
            request = target.binding().toOdeMessage(op, body, true);
        } catch (IllegalArgumentException e) {
            return new CompositeFailure(e.getMessage(), true);
        }
        // waiting instances hold memory until they end: one user may not start them without bound
        int live = caller == null || !target.correlates() || maxInstancesPerUser == 0 ? 0 : callers.liveInstancesOf(caller);
        if (maxInstancesPerUser > 0 && live >= maxInstancesPerUser && createsInstances(service, operation))
            return new CompositeFailure("user '" + caller + "' has " + live + " conversations under way, the most one user may have"
                    + " (--max-instances-per-user): end one first", true);
        long start = System.nanoTime();
        long number = requests.incrementAndGet();
        inFlight.add(number);
        try {
            return invoke(target, service, operation, op, request, serviceClass, caller, timeout, bestEffort, start, call);
        } finally {
            inFlight.remove(number);
            retireIdleVersions();
        }
    }

    private CompositeOutcome invoke(Provided target, QName service, String operation, SoapBinding.OperationBinding op, Element request,
                                    String serviceClass, String caller, Duration timeout, boolean bestEffort, long start, String call) {
        String clientId = new GUID().toString();
        String mexId;
        Future<?> reply;
        org.apache.ode.bpel.engine.ResponseWaiters.ParkedWait parked = null;
        try {
            tx.begin();
            MyRoleMessageExchange mex = server.getEngine().createMessageExchange(clientId, service, operation);
            if (mex.getOperation() == null) {
                tx.rollback();
                return new CompositeFailure("service " + service.getLocalPart() + " has no operation " + operation, true);
            }
            Message msg = mex.createMessage(mex.getOperation().getInput().getMessage().getQName());
            msg.setMessage(request);
            if (call != null) mex.setProperty(io.moses.ode.InstanceMessages.CALL, call); // the instance says which call it answers
            mexId = mex.getMessageExchangeId();
            // the sender matters only where a conversation can belong to it: the common case keeps no entry
            callers.register(mexId, clientId, serviceClass, target.correlates() ? caller : null, tracing.current());
            reply = mex.invoke(msg);
            parked = org.apache.ode.bpel.engine.ResponseWaiters.park(clientId); // before the instance can run
            tx.commit();
        } catch (Exception e) {
            rollbackQuietly();
            return new CompositeFailure("the engine could not start the request: " + e.getMessage(), false);
        }
        CompositeOutcome outcome = null;
        try {
            if (mexIsOneWay(op)) return outcome = new CompositeReply(null);
            if (reply == null) return new CompositeFailure("the engine refused the request", false);
            try {
                // One wait: ends with the process's reply, or at once when the instance fails
                // (Callers wakes it), or at the timeout.
                if (parked == null) reply.get(Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS);
                else if (!parked.await(Math.max(1, timeout.toMillis()))) throw new TimeoutException();
            } catch (TimeoutException e) {
                String failure = callers.failure(mexId);
                return new CompositeFailure(failure != null ? failure
                        : "no reply from " + service.getLocalPart() + " within " + timeout.toMillis() + " ms", false);
            } catch (Exception e) {
                return new CompositeFailure("the request failed: " + e.getMessage(), false);
            }
            String failure = callers.failure(mexId);
            if (failure != null) return new CompositeFailure(failure, false);
            outcome = readReply(mexId, target.binding(), op);
            return outcome;
        } finally {
            try {
                // a callback answers the broker's own call: it is no request of the class (the
                // Path Analyzer would count the asynchronous task's visits per request halved)
                if (call == null)
                    completed.accept(new CompletedRequest(target.service().composite(), serviceClass,
                            outcome instanceof CompositeReply, System.nanoTime() - start, callers.invokes(mexId), bestEffort));
            } catch (RuntimeException e) {
                log.warn("request listener failed: {}", e.toString());
            }
            callers.release(mexId, mexIsOneWay(op));
        }
    }

    private static boolean mexIsOneWay(SoapBinding.OperationBinding op) {
        return op.operation().getOutput() == null;
    }

    private CompositeOutcome readReply(String mexId, SoapBinding binding, SoapBinding.OperationBinding op) {
        try {
            tx.begin();
            MyRoleMessageExchange mex = (MyRoleMessageExchange) server.getEngine().getMessageExchange(mexId);
            CompositeOutcome outcome = switch (mex.getStatus()) {
                case RESPONSE, ASYNC -> new CompositeReply(binding.toBody(op, mex.getResponse().getMessage(), false));
                case FAULT -> {
                    Element detail = null;
                    if (mex.getFaultResponse() != null && mex.getFaultResponse().getMessage() != null) {
                        Element part = org.apache.ode.utils.DOMUtils.getFirstChildElement(mex.getFaultResponse().getMessage());
                        detail = part == null ? null : org.apache.ode.utils.DOMUtils.getFirstChildElement(part);
                    }
                    yield new CompositeFault(mex.getFault(), detail, faultReason(mex));
                }
                default -> new CompositeFailure(faultReason(mex), false);
            };
            mex.release(true);
            tx.commit();
            return outcome;
        } catch (Exception e) {
            rollbackQuietly();
            return new CompositeFailure("cannot read the reply: " + e.getMessage(), false);
        }
    }

    private static String faultReason(MessageExchange mex) {
        String explanation = mex.getFaultExplanation();
        if (mex.getFault() != null)
            return "process fault " + mex.getFault().getLocalPart() + (explanation == null ? "" : ": " + explanation);
        return explanation == null ? "the process failed (status " + mex.getStatus() + ")" : explanation;
    }

    private void rollbackQuietly() {
        try {
            if (tx.getTransaction() != null) tx.rollback();
        } catch (Exception ignored) {
            // nothing left to undo
        }
    }

    /**
     * Durable instances, newest first (instances of in-memory processes are not kept, and not listed).
     *
     * @param process a process type ({@code {namespace}name} or name) or null; @param state a state's name or null
     * @throws InstanceRefusal for bad input, or without a durable store
     */
    public List<InstanceSummary> instances(String process, String state, int limit) {
        return durableInstances().list(process, state, limit);
    }

    /** @throws InstanceRefusal NO_SUCH_INSTANCE */
    public InstanceDetails instance(long id) {
        return durableInstances().show(id);
    }

    /** @throws InstanceRefusal NO_SUCH_INSTANCE, or NOT_IN_THIS_STATE unless it is new, ready or active */
    public InstanceSummary suspend(long id) {
        return durableInstances().suspend(id);
    }

    /** @throws InstanceRefusal NO_SUCH_INSTANCE, or NOT_IN_THIS_STATE unless it is suspended */
    public InstanceSummary resume(long id) {
        return durableInstances().resume(id);
    }

    /** @throws InstanceRefusal NO_SUCH_INSTANCE, or NOT_IN_THIS_STATE when it has finished */
    public InstanceSummary terminate(long id) {
        return durableInstances().terminate(id);
    }

    /**
     * The unfinished durable instances of any version of unit {@code name}, oldest first (none
     * without a durable store): they could not continue once it is undeployed.
     *
     * @throws InstanceRefusal UNAVAILABLE when the knowledge base does not answer
     */
    public List<Long> unfinishedInstances(String name) {
        if (durableVersions == null) return List.of();
        List<QName> registered = new ArrayList<>();
        for (ProcessConfiguration c : unitVersions.getOrDefault(name, List.of())) registered.add(c.getProcessId());
        for (ProcessConfiguration c : retired.keySet()) if (c.getPackage().equals(name)) registered.add(c.getProcessId());
        try {
            return durableVersions.unfinished(name, registered);
        } catch (RuntimeException e) {
            throw new InstanceRefusal(InstanceRefusal.Reason.UNAVAILABLE, "the knowledge base did not answer: " + e.getMessage());
        }
    }

    /**
     * Deletes finished durable instances older than {@code retention}, now and periodically
     * (nothing without a durable store); {@code purged} is told each one.
     */
    public synchronized void purgeFinishedAfter(Duration retention, java.util.function.LongConsumer purged) {
        if (instances == null || purge != null) return;
        purge = new RetentionPurge(instances, durableVersions, retention, purged);
        purge.start();
        log.info("finished durable instances are kept {} (then purged)", retention);
    }

    private Instances durableInstances() {
        if (instances == null)
            throw new InstanceRefusal(InstanceRefusal.Reason.UNAVAILABLE, "this engine keeps no durable instances (no durable store)");
        return instances;
    }

    @Override
    public void close() {
        running = false;
        if (purge != null) purge.close();
        try {
            scheduler.stop();
            server.stop();
            server.shutdown();
        } catch (RuntimeException e) {
            log.warn("engine stop: {}", e.toString());
        }
        jobThreads.shutdownNow();
        replyThreads.shutdownNow();
        if (durable != null) durable.close();
        log.info("BPEL engine stopped");
    }
}
