package io.moses.mdal;

import io.moses.model.CompositeService;
import io.moses.model.ConcreteService;
import io.moses.model.Observation;
import io.moses.model.Plan;
import io.moses.model.ServiceClass;
import io.moses.model.SlaEvent;
import io.moses.model.TaskRef;
import io.moses.model.User;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The knowledge base of the broker (the K of MAPE-K): every persistent part of the model of
 * docs/model.md. Open one with {@link Mdal#open}. Thread-safe; every method is one
 * transaction.
 *
 * <p>Naming: {@code addX} refuses a duplicate name (CONFLICT); {@code putX} inserts or
 * replaces; {@code updateX} reads, applies a change and writes under a row lock, so concurrent
 * updates of one record are never lost; {@code removeX} returns whether a record was removed.
 *
 * <p>Every method throws {@link KnowledgeBaseException}: INVALID for values outside their domain
 * or unknown references (the message names the field), CONFLICT for duplicates and records still
 * in use, NOT_FOUND for updates of missing records, UNAVAILABLE within about two seconds when the
 * database cannot be reached. After the database comes back the same object works again.
 */
public interface KnowledgeBase extends AutoCloseable {

    // ---- composite services and their tasks

    /** Stores (or replaces) a composite service's behavioral model and registers its tasks. */
    void putCompositeService(CompositeService composite);

    Optional<CompositeService> compositeService(String name);

    List<CompositeService> compositeServices();

    /** Removes the behavioral model; its tasks stay while concrete services implement them. */
    boolean removeCompositeService(String name);

    /** Every known task, sorted. */
    List<TaskRef> tasks();

    List<TaskRef> tasks(String composite);

    /**
     * The tasks whose second call is safe (docs/model.md, "Idempotent tasks"); every other task
     * is not idempotent, the default.
     */
    java.util.Set<TaskRef> idempotentTasks();

    /** Says whether a second call of {@code task} is safe; registers the task if new. */
    void putTaskIdempotent(TaskRef task, boolean idempotent);

    /**
     * The tasks whose provider keeps conversation state (docs/model.md, "Stateful partners"):
     * within one process instance the calls on a partner link's stateful tasks go to one provider.
     */
    java.util.Set<TaskRef> statefulTasks();

    /** Says whether {@code task}'s provider keeps conversation state; registers the task if new. */
    void putTaskStateful(TaskRef task, boolean stateful);

    /**
     * The asynchronous tasks, each with the callback that answers it (docs/model.md,
     * "Asynchronous tasks"); every other task answers in its reply.
     */
    java.util.Map<TaskRef, io.moses.model.Callback> asynchronousTasks();

    /** Says how {@code task} answers: by {@code callback}, or in its reply (null); registers the task if new. */
    void putTaskCallback(TaskRef task, io.moses.model.Callback callback);

    // ---- concrete services (the task is registered if new)

    void addConcreteService(ConcreteService service);

    void putConcreteService(ConcreteService service);

    /** Atomic read-change-write; NOT_FOUND if absent. The change may not rename the service. */
    ConcreteService updateConcreteService(String name, UnaryOperator<ConcreteService> change);

    Optional<ConcreteService> concreteService(String name);

    List<ConcreteService> concreteServices();

    List<ConcreteService> concreteServices(TaskRef task);

    boolean removeConcreteService(String name);

    // ---- service classes

    void addServiceClass(ServiceClass serviceClass);

    void putServiceClass(ServiceClass serviceClass);

    ServiceClass updateServiceClass(String name, UnaryOperator<ServiceClass> change);

    Optional<ServiceClass> serviceClass(String name);

    List<ServiceClass> serviceClasses();

    /** CONFLICT while users subscribe to it. */
    boolean removeServiceClass(String name);

    /** The classes that name their own policy for requests above their users' agreed rates (the others follow the broker's). */
    java.util.Map<String, io.moses.model.OverRate> classOverRates();

    /**
     * Sets a class's own policy for requests above the agreed rate (null: the broker's); bumps
     * subscriptionsVersion() so every replica reloads it. NOT_FOUND for an unknown class.
     */
    void putClassOverRate(String serviceClass, io.moses.model.OverRate overRate);

    // ---- users (passwordHash must come from PasswordHasher); every change bumps subscriptionsVersion()

    void addUser(User user);

    void putUser(User user);

    User updateUser(String name, UnaryOperator<User> change);

    Optional<User> user(String name);

    List<User> users();

    List<User> users(String serviceClass);

    boolean removeUser(String name);

    // ---- subscriptions: admission decided on one version of the users commits only on that version

    /** The version of the subscriptions (users, their classes and rates); every user change bumps it. */
    long subscriptionsVersion();

    /**
     * Adds a new user if the subscriptions are still at {@code expectedVersion}; CONFLICT if they
     * changed meanwhile (decide again) or the name is taken. Returns the new version.
     */
    long subscribe(User user, long expectedVersion);

    /**
     * Moves a user to another class and/or rate if the subscriptions are still at
     * {@code expectedVersion}; CONFLICT if they changed, NOT_FOUND for an unknown user, INVALID for
     * an unknown class. Returns the new version.
     */
    long changeSubscription(String name, String serviceClass, double rate, long expectedVersion);

    // ---- plans

    /**
     * Publishes a plan atomically with the next version (the draft's version is ignored), and
     * returns it as stored. A draft without a creation time gets the current time.
     */
    Plan publish(Plan draft);

    /** The latest published version, 0 if none: the one cheap query a replica polls. */
    long latestPlanVersion();

    Optional<Plan> latestPlan();

    Optional<Plan> plan(long version);

    /** The latest {@code n} plans, newest first. */
    List<Plan> planHistory(int n);

    // ---- monitored parameters (the latest observation per key)

    void putServiceQos(Observation.ServiceQos qos);

    /**
     * The observations of one monitor period, each as {@link #putServiceQos(Observation.ServiceQos)}
     * writes it, in one transaction (one commit a period, not one per service); one of a service no
     * longer registered is left out, the others are written. Invalid ones are refused before anything is written.
     */
    void putServiceQos(java.util.Collection<Observation.ServiceQos> observations);

    Optional<Observation.ServiceQos> serviceQos(String service);

    List<Observation.ServiceQos> serviceQos();

    void putVisits(Observation.TaskVisits visits);

    List<Observation.TaskVisits> visits();

    // ---- SLA events

    void recordSlaEvent(SlaEvent event);

    /** Events at or after {@code since}, oldest first, at most {@code limit}. */
    List<SlaEvent> slaEvents(Instant since, int limit);

    // ---- clustered replicas: the leader's lease and the replicas' monitoring windows

    /**
     * Takes or renews the lease {@code name} for {@code holder} until {@code now + ttl}, if it is
     * free, expired or already {@code holder}'s; returns the lease as it stands after the
     * attempt (held by someone else if the attempt lost). {@code now} is the caller's clock:
     * replicas' clocks must agree to well within {@code ttl}.
     */
    Lease acquireLease(String name, String holder, Instant now, java.time.Duration ttl);

    /** Gives the lease up at once if {@code holder} holds it (a replica that stops); true if it did. */
    boolean releaseLease(String name, String holder);

    /** The lease as it stands, if it was ever taken. */
    Optional<Lease> lease(String name);

    /** Replaces {@code replica}'s windows with these, in one transaction. */
    void putReplicaWindows(String replica, List<ReplicaWindow> windows);

    /** Every replica's windows written at or after {@code since}. */
    List<ReplicaWindow> replicaWindows(Instant since);

    /**
     * Records that {@code replica} is alive at {@code now} and returns how many replicas (itself
     * included) were seen alive within {@code ttl} before it (V9; the agreed rates' shares).
     */
    int replicaHeartbeat(String replica, Instant now, java.time.Duration ttl);

    /** Removes {@code replica}'s presence at once (a replica that stops). */
    void leaveReplicas(String replica);

    /**
     * Records that {@code user} ran above its agreed rate from {@code since} to {@code last}, as
     * one replica saw it (V11). True when this begins the user's episode for the whole cluster:
     * no replica had recorded it above its rate within {@code window} before {@code since}; the
     * caller then reports the episode, once for the cluster (of racing replicas one wins).
     * Otherwise the episode goes on and its last time moves to {@code last}.
     */
    boolean overRateEpisode(String user, Instant since, Instant last, java.time.Duration window);

    /** The cluster's secret of this name (V11), created at random (256 bits, hex) by the first replica that asks. */
    String clusterSecret(String name);

    // ---- the cluster's deployment units

    /** The deployment units every replica applies, and which version each replica has applied. */
    ProcessUnits processUnits();

    /** Re-plans asked of the optimizer leader. */
    ReplanRequests replanRequests();
    // ---- conversations: which replica holds the instance a correlation value belongs to (V8)

    /** Registers (or moves to a new instance) the owner of a correlation value. */
    void registerConversation(ConversationOwner owner);

    /** The owner of {@code correlationKey} of process {@code process}, if an instance registered it. */
    Optional<ConversationOwner> conversationOwner(String process, String correlationKey);

    /** Removes what the instance registered (it ended); returns how many values. */
    int forgetConversations(String replica, long instanceId);

    /** Removes what the replica registered (it starts again: its in-memory instances are gone). */
    int forgetConversations(String replica);

    /** Removes what the replica registered for the processes {@code ofProcess} accepts (the in-memory ones, at its start). */
    int forgetConversations(String replica, java.util.function.Predicate<String> ofProcess);

    // ---- durable instances: which replica runs each (V14), and the takeover of a replica that is gone

    /** Replicas that own durable instances or jobs. */
    java.util.Set<String> durableOwners();

    /** Replicas whose presence heartbeat (V9) is no older than {@code ttl} at {@code now}. */
    java.util.Set<String> replicasSeen(Instant now, java.time.Duration ttl);

    /**
     * Moves, in one transaction, the durable instances of {@code gone}, their jobs and the
     * correlation values of durable processes ({@code durableProcess} tells them by name) to
     * {@code to}, reachable at {@code toAddress}.
     */
    DurableTakeover takeOverDurable(String gone, String to, String toAddress, java.util.function.Predicate<String> durableProcess);

    // ---- the operator's state, the cluster's

    /** Console logins, valid on every replica. */
    OperatorSessions operatorSessions();

    /** Monitors switched off and concrete services taken out, applied by every replica. */
    OperatorSwitches operatorSwitches();

    // ---- the connection

    /** True if the database answers now; never throws. */
    boolean isAvailable();

    /** Back-end and location, without credentials, for logs and the console. */
    String description();

    @Override
    void close();

    /**
     * The database as the BPEL engine's durable process store reaches it (ODE's own DAO and
     * scheduler tables, migrated with the others), where there is one.
     */
    default Optional<ProcessDatabase> processDatabase() {
        return Optional.empty();
    }
}
