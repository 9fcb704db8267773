package io.moses.mdal;

import com.zaxxer.hikari.HikariDataSource;
import io.moses.model.CompositeService;
import io.moses.model.ConcreteService;
import io.moses.model.Observation;
import io.moses.model.Plan;
import io.moses.model.ServiceClass;
import io.moses.model.SlaEvent;
import io.moses.model.TaskRef;
import io.moses.model.User;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The knowledge base over JDBC: the same SQL on H2 and MySQL/MariaDB (see the V1 migration).
 * A facade over one record store per kind of record; {@link Database} runs every call as one
 * transaction on a pooled connection (deadlocks and lock timeouts retried, connection failures
 * surfaced at once as UNAVAILABLE).
 */
final class JdbcKnowledgeBase implements KnowledgeBase {
    private final Database db;
    private final CompositeStore composites;
    private final ConcreteServiceStore services;
    private final ServiceClassStore classes;
    private final UserStore users;
    private final PlanStore plans;
    private final ObservationStore observations;
    private final SlaEventStore slaEvents;
    private final LeaseStore leases;
    private final ReplicaWindowStore replicaWindows;
    private final ReplicaPresenceStore replicaPresence;
    private final ClusterPolicingStore clusterPolicing;
    private final ProcessUnitStore processUnits;
    private final ReplanRequestStore replanRequests;
    private final ConversationStore conversations;
    private final DurableOwnerStore durableOwners;
    private final OperatorSessionStore operatorSessions;
    private final OperatorSwitchStore operatorSwitches;

    private final ProcessDatabase processDatabase;

    JdbcKnowledgeBase(HikariDataSource dataSource, String description, boolean h2InMemory) {
        this.db = new Database(dataSource, description, h2InMemory);
        this.processDatabase = ProcessDatabase.of(dataSource, description);
        this.composites = new CompositeStore(db);
        this.services = new ConcreteServiceStore(db);
        this.classes = new ServiceClassStore(db);
        this.users = new UserStore(db);
        this.plans = new PlanStore(db);
        this.observations = new ObservationStore(db);
        this.slaEvents = new SlaEventStore(db);
        this.leases = new LeaseStore(db);
        this.replicaWindows = new ReplicaWindowStore(db);
        this.replicaPresence = new ReplicaPresenceStore(db);
        this.clusterPolicing = new ClusterPolicingStore(db);
        this.processUnits = new ProcessUnitStore(db);
        this.replanRequests = new ReplanRequestStore(db);
        this.conversations = new ConversationStore(db);
        this.durableOwners = new DurableOwnerStore(db);
        this.operatorSessions = new OperatorSessionStore(db);
        this.operatorSwitches = new OperatorSwitchStore(db);
    }

    /** The database under the stores (tests run their own statements on its connections). */
    Database database() {
        return db;
    }

    // ---- composite services and their tasks

    @Override public void putCompositeService(CompositeService cs) { composites.putCompositeService(cs); }
    @Override public Optional<CompositeService> compositeService(String name) { return composites.compositeService(name); }
    @Override public List<CompositeService> compositeServices() { return composites.compositeServices(); }
    @Override public boolean removeCompositeService(String name) { return composites.removeCompositeService(name); }
    @Override public List<TaskRef> tasks() { return composites.tasks(); }
    @Override public List<TaskRef> tasks(String composite) { return composites.tasks(composite); }
    @Override public java.util.Set<TaskRef> idempotentTasks() { return composites.idempotentTasks(); }
    @Override public void putTaskIdempotent(TaskRef task, boolean idempotent) { composites.putTaskIdempotent(task, idempotent); }
    @Override public java.util.Set<TaskRef> statefulTasks() { return composites.statefulTasks(); }
    @Override public void putTaskStateful(TaskRef task, boolean stateful) { composites.putTaskStateful(task, stateful); }
    @Override public java.util.Map<TaskRef, io.moses.model.Callback> asynchronousTasks() { return composites.asynchronousTasks(); }
    @Override public void putTaskCallback(TaskRef task, io.moses.model.Callback callback) { composites.putTaskCallback(task, callback); }

    // ---- concrete services

    @Override public void addConcreteService(ConcreteService s) { services.addConcreteService(s); }
    @Override public void putConcreteService(ConcreteService s) { services.putConcreteService(s); }
    @Override public ConcreteService updateConcreteService(String name, UnaryOperator<ConcreteService> change) {
        return services.updateConcreteService(name, change);
    }
    @Override public Optional<ConcreteService> concreteService(String name) { return services.concreteService(name); }
    @Override public List<ConcreteService> concreteServices() { return services.concreteServices(); }
    @Override public List<ConcreteService> concreteServices(TaskRef t) { return services.concreteServices(t); }
    @Override public boolean removeConcreteService(String name) { return services.removeConcreteService(name); }

    // ---- service classes

    @Override public void addServiceClass(ServiceClass k) { classes.addServiceClass(k); }
    @Override public void putServiceClass(ServiceClass k) { classes.putServiceClass(k); }
    @Override public ServiceClass updateServiceClass(String name, UnaryOperator<ServiceClass> change) {
        return classes.updateServiceClass(name, change);
    }
    @Override public Optional<ServiceClass> serviceClass(String name) { return classes.serviceClass(name); }
    @Override public List<ServiceClass> serviceClasses() { return classes.serviceClasses(); }
    @Override public boolean removeServiceClass(String name) { return classes.removeServiceClass(name); }
    @Override public java.util.Map<String, io.moses.model.OverRate> classOverRates() { return classes.classOverRates(); }
    @Override public void putClassOverRate(String serviceClass, io.moses.model.OverRate o) { classes.putClassOverRate(serviceClass, o); }

    // ---- users, their roles and subscriptions

    @Override public void addUser(User u) { users.addUser(u); }
    @Override public void putUser(User u) { users.putUser(u); }
    @Override public User updateUser(String name, UnaryOperator<User> change) { return users.updateUser(name, change); }
    @Override public Optional<User> user(String name) { return users.user(name); }
    @Override public List<User> users() { return users.users(); }
    @Override public List<User> users(String serviceClass) { return users.users(serviceClass); }
    @Override public boolean removeUser(String name) { return users.removeUser(name); }
    @Override public long subscriptionsVersion() { return users.subscriptionsVersion(); }
    @Override public long subscribe(User u, long expectedVersion) { return users.subscribe(u, expectedVersion); }
    @Override public long changeSubscription(String name, String serviceClass, double rate, long expectedVersion) {
        return users.changeSubscription(name, serviceClass, rate, expectedVersion);
    }

    // ---- plans

    @Override public Plan publish(Plan draft) { return plans.publish(draft); }
    @Override public long latestPlanVersion() { return plans.latestPlanVersion(); }
    @Override public Optional<Plan> latestPlan() { return plans.latestPlan(); }
    @Override public Optional<Plan> plan(long version) { return plans.plan(version); }
    @Override public List<Plan> planHistory(int n) { return plans.planHistory(n); }

    // ---- monitored parameters

    @Override public void putServiceQos(Observation.ServiceQos q) { observations.putServiceQos(q); }
    @Override public void putServiceQos(java.util.Collection<Observation.ServiceQos> qs) { observations.putServiceQos(qs); }
    @Override public Optional<Observation.ServiceQos> serviceQos(String service) { return observations.serviceQos(service); }
    @Override public List<Observation.ServiceQos> serviceQos() { return observations.serviceQos(); }
    @Override public void putVisits(Observation.TaskVisits v) { observations.putVisits(v); }
    @Override public List<Observation.TaskVisits> visits() { return observations.visits(); }

    // ---- SLA events

    @Override public void recordSlaEvent(SlaEvent e) { slaEvents.recordSlaEvent(e); }
    @Override public List<SlaEvent> slaEvents(Instant since, int limit) { return slaEvents.slaEvents(since, limit); }

    // ---- leases and replica windows

    @Override public Lease acquireLease(String name, String holder, Instant now, Duration ttl) {
        return leases.acquireLease(name, holder, now, ttl);
    }
    @Override public boolean releaseLease(String name, String holder) { return leases.releaseLease(name, holder); }
    @Override public Optional<Lease> lease(String name) { return leases.lease(name); }
    @Override public void putReplicaWindows(String replica, List<ReplicaWindow> windows) {
        replicaWindows.putReplicaWindows(replica, windows);
    }
    @Override public List<ReplicaWindow> replicaWindows(Instant since) { return replicaWindows.replicaWindows(since); }
    @Override public int replicaHeartbeat(String replica, Instant now, Duration ttl) { return replicaPresence.heartbeat(replica, now, ttl); }
    @Override public void leaveReplicas(String replica) { replicaPresence.leave(replica); }
    @Override public boolean overRateEpisode(String user, Instant since, Instant last, Duration window) {
        return clusterPolicing.overRateEpisode(user, since, last, window);
    }
    @Override public String clusterSecret(String name) { return clusterPolicing.clusterSecret(name); }

    // ---- deployment units

    @Override public ProcessUnits processUnits() { return processUnits; }
    @Override public ReplanRequests replanRequests() { return replanRequests; }

    // ---- conversations' owners

    @Override public void registerConversation(ConversationOwner owner) { conversations.register(owner, System.currentTimeMillis()); }
    @Override public Optional<ConversationOwner> conversationOwner(String process, String correlationKey) {
        return conversations.owner(process, correlationKey);
    }
    @Override public int forgetConversations(String replica, long instanceId) { return conversations.forgetInstance(replica, instanceId); }
    @Override public int forgetConversations(String replica) { return conversations.forgetReplica(replica); }
    @Override public int forgetConversations(String replica, java.util.function.Predicate<String> ofProcess) {
        return durableOwners.forgetConversations(replica, ofProcess);
    }

    // ---- durable instances' owners

    @Override public java.util.Set<String> durableOwners() { return durableOwners.owners(); }
    @Override public java.util.Set<String> replicasSeen(Instant now, Duration ttl) { return durableOwners.seen(now, ttl); }
    @Override public DurableTakeover takeOverDurable(String gone, String to, String toAddress, java.util.function.Predicate<String> durableProcess) {
        return durableOwners.takeOver(gone, to, toAddress, durableProcess);
    }

    // ---- operator state

    @Override public OperatorSessions operatorSessions() { return operatorSessions; }
    @Override public OperatorSwitches operatorSwitches() { return operatorSwitches; }

    // ---- connection

    @Override public boolean isAvailable() { return db.isAvailable(); }
    @Override public String description() { return db.description(); }
    @Override public java.util.Optional<ProcessDatabase> processDatabase() { return java.util.Optional.of(processDatabase); }

    @Override public void close() { db.close(); }

    @Override
    public String toString() {
        return "KnowledgeBase[" + db.description() + "]";
    }
}
