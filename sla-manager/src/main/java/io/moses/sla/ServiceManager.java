package io.moses.sla;

import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.KnowledgeBaseException;
import io.moses.model.ConcreteService;
import io.moses.model.PayloadMapping;
import io.moses.model.Plan;
import io.moses.model.ProviderSla;
import io.moses.model.TaskRef;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Service Manager: operators add, update and remove concrete services. Every change is
 * stored through MDAL and re-planned before the call returns; a service the plan uses is
 * removed only after a plan without it is in force on this replica (its traffic has moved).
 * A change whose re-plan fails is undone: the knowledge base is as before the call.
 */
public final class ServiceManager {
    private static final Logger log = LoggerFactory.getLogger(ServiceManager.class);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");

    /** A concrete service and whether the plan in force sends it traffic. */
    public record Listed(ConcreteService service, boolean used) {}

    /** The outcome of a change: the service as stored (null after a removal) and the plan in force. */
    public record Change(ConcreteService service, long planVersion, String message) {}

    private final KnowledgeBase kb;
    private final Planning planning;
    /** One change at a time on this replica: a removal's two steps must not interleave with an add. */
    private final Object changes = new Object();

    public ServiceManager(KnowledgeBase kb, Planning planning) {
        this.kb = kb;
        this.planning = planning;
    }

    public List<Listed> list(String composite) {
        Set<String> used = used(planning.current());
        List<ConcreteService> all = call(kb::concreteServices);
        return all.stream().filter(s -> composite == null || composite.isBlank() || s.task().composite().equals(composite))
                .map(s -> new Listed(s, used.contains(s.name()))).toList();
    }

    public long planVersion() {
        Plan p = planning.current();
        return p == null ? 0 : p.version();
    }

    public Change add(ConcreteService s) {
        if (s.name() == null || !NAME.matcher(s.name()).matches())
            throw new SlaException(SlaException.Code.INVALID, "name must be 1 to 100 letters, digits, '.', '_' or '-', was '" + s.name() + "'");
        checkEndpoint(s.endpoint());
        synchronized (changes) {
            if (!call(kb::tasks).contains(s.task()))
                throw new SlaException(SlaException.Code.UNKNOWN_TASK, "no task " + s.task() + " (tasks: " + call(kb::tasks) + ")");
            if (call(() -> kb.concreteService(s.name())).isPresent())
                throw new SlaException(SlaException.Code.DUPLICATE_SERVICE, "concrete service '" + s.name() + "' already exists");
            Planning.Replanned p = PlannedChange.apply(planning, () -> kb.addConcreteService(s), ServiceManager::translate,
                    "concrete service " + s.name() + " added for " + s.task(), Set.of(), () -> kb.removeConcreteService(s.name()));
            log.info("concrete service added: {} for {} at {}, plan {}", s.name(), s.task(), s.endpoint(), p.version());
            return new Change(s, p.version(), p.note());
        }
    }

    /** Changes a service's endpoint, SLA and/or mapping (null: unchanged). */
    public Change update(String name, URI endpoint, ProviderSla sla, PayloadMapping mapping) {
        if (endpoint != null) checkEndpoint(endpoint);
        synchronized (changes) {
            ConcreteService before = existing(name);
            ConcreteService after = new ConcreteService(name, before.task(), endpoint == null ? before.endpoint() : endpoint,
                    sla == null ? before.sla() : sla, mapping == null ? before.mapping() : mapping);
            Planning.Replanned p = PlannedChange.apply(planning, () -> kb.updateConcreteService(name, s -> after), ServiceManager::translate,
                    "concrete service " + name + " updated", Set.of(), () -> kb.putConcreteService(before));
            log.info("concrete service updated: {} ({} -> {}), plan {}", name, before.sla(), after.sla(), p.version());
            return new Change(after, p.version(), p.note());
        }
    }

    /** The tasks whose second call is safe (docs/model.md, "Idempotent tasks"). */
    public Set<TaskRef> idempotentTasks() {
        return call(kb::idempotentTasks);
    }

    /**
     * Says whether a second call of {@code task} is safe, and re-plans: a task that is no longer
     * idempotent loses its 1-out-of-n implementations before the call returns. Undone if the
     * re-plan fails.
     */
    public Change setIdempotent(TaskRef task, boolean idempotent) {
        return setFlag(task, "idempotent", kb::idempotentTasks, kb::putTaskIdempotent, idempotent);
    }

    /** The tasks whose provider keeps conversation state (docs/model.md, "Stateful partners"). */
    public Set<TaskRef> statefulTasks() {
        return call(kb::statefulTasks);
    }

    /**
     * Says whether {@code task}'s provider keeps conversation state, and re-plans: a stateful
     * task gets one provider per (class, partner link) and single implementations only. Calls
     * already bound to a provider in running instances stay with it. Undone if the re-plan fails.
     */
    public Change setStateful(TaskRef task, boolean stateful) {
        return setFlag(task, "stateful", kb::statefulTasks, kb::putTaskStateful, stateful);
    }

    /** The asynchronous tasks and how each answers (docs/model.md, "Asynchronous tasks"). */
    public java.util.Map<TaskRef, io.moses.model.Callback> asynchronousTasks() {
        return call(kb::asynchronousTasks);
    }

    /**
     * Says how {@code task} answers: by {@code callback}, or in its reply (null), and re-plans:
     * the task's observations change meaning. Undone if the re-plan fails.
     */
    public Change setCallback(TaskRef task, io.moses.model.Callback callback) {
        synchronized (changes) {
            if (!call(kb::tasks).contains(task))
                throw new SlaException(SlaException.Code.UNKNOWN_TASK, "no task " + task + " (tasks: " + call(kb::tasks) + ")");
            io.moses.model.Callback before = call(kb::asynchronousTasks).get(task);
            if (java.util.Objects.equals(before, callback))
                return new Change(null, planVersion(), task + " already answers " + (callback == null ? "in its reply" : "by " + callback.operation()));
            String what = callback == null ? "answers in its reply" : "is answered by its callback " + callback.operation();
            Planning.Replanned p = PlannedChange.apply(planning, () -> kb.putTaskCallback(task, callback), ServiceManager::translate,
                    "task " + task + " " + what, Set.of(), () -> kb.putTaskCallback(task, before));
            log.info("task {} {} now, plan {}", task, what, p.version());
            return new Change(null, p.version(), p.note());
        }
    }

    private Change setFlag(TaskRef task, String flag, java.util.function.Supplier<Set<TaskRef>> flagged, java.util.function.BiConsumer<TaskRef, Boolean> put,
                           boolean value) {
        synchronized (changes) {
            if (!call(kb::tasks).contains(task))
                throw new SlaException(SlaException.Code.UNKNOWN_TASK, "no task " + task + " (tasks: " + call(kb::tasks) + ")");
            boolean before = call(flagged).contains(task);
            if (before == value) return new Change(null, planVersion(), task + " is already " + (value ? "" : "not ") + flag);
            Planning.Replanned p = PlannedChange.apply(planning, () -> put.accept(task, value), ServiceManager::translate,
                    "task " + task + (value ? " declared " : " declared not ") + flag, Set.of(), () -> put.accept(task, before));
            log.info("task {} is {}{} now, plan {}", task, value ? "" : "not ", flag, p.version());
            return new Change(null, p.version(), p.note());
        }
    }

    /**
     * Removes a service; if the plan uses it, a plan without it is put in force first. The only
     * service of a task stays, whatever the plan in force: the next plan would need it; so does the
     * only one that is in, the others taken out by an operator.
     */
    public Change remove(String name) {
        synchronized (changes) {
            ConcreteService s = existing(name);
            List<ConcreteService> ofTask = call(() -> kb.concreteServices(s.task()));
            if (call(kb::tasks).contains(s.task())) {
                // the last one that is in: the only one, or the others all taken out by an operator
                List<String> others = ofTask.stream().map(ConcreteService::name).filter(o -> !o.equals(name)).toList();
                Set<String> out = others.isEmpty() ? Set.of() : call(() -> kb.operatorSwitches().state().servicesOut());
                if (out.containsAll(others))
                    throw new SlaException(SlaException.Code.LAST_SERVICE, "'" + name + "' is the only concrete service of " + s.task()
                            + (others.isEmpty() ? ": the plan cannot do without it; nothing was removed"
                                    : " that is in (the others are taken out): the plan cannot do without it; put another one in first;"
                                            + " nothing was removed"));
            }
            boolean used = used(planning.current()).contains(name);
            Planning.Replanned p;
            try {
                p = planning.replan("concrete service " + name + " removed", Set.of(name));
            } catch (RuntimeException e) {
                throw new SlaException(SlaException.Code.UNAVAILABLE, "cannot re-plan without " + name + " (" + e.getMessage()
                        + "); nothing was removed");
            }
            if (used && (!p.solved() || used(p.plan()).contains(name)))
                throw new SlaException(SlaException.Code.UNAVAILABLE, "no plan without '" + name + "': " + p.message() + "; nothing was removed");
            try {
                kb.removeConcreteService(name);
            } catch (KnowledgeBaseException e) {
                throw translate(e);
            }
            try {
                // the replicas' view of the services follows the knowledge base on a new plan version
                if (p.solved()) p = planning.replan("concrete service " + name + " removed", Set.of());
            } catch (RuntimeException e) {
                log.warn("concrete service {} removed; the follow-up re-plan failed: {}", name, e.getMessage());
            }
            log.info("concrete service removed: {} ({}), {}plan {}", name, s.task(), used ? "its traffic moved by " : "", p.version());
            return new Change(null, p.version(), used ? "its traffic moved to the others by plan " + p.version() : p.note());
        }
    }

    // ------------------------------------------------------------------ helpers

    private ConcreteService existing(String name) {
        if (name == null || name.isBlank()) throw new SlaException(SlaException.Code.INVALID, "name must not be empty");
        return call(() -> kb.concreteService(name))
                .orElseThrow(() -> new SlaException(SlaException.Code.UNKNOWN_SERVICE, "no concrete service '" + name + "'"));
    }

    static Set<String> used(Plan plan) {
        Set<String> out = new HashSet<>();
        if (plan == null) return out;
        plan.bindings().values().forEach(shares -> shares.forEach(sh -> {
            if (sh.fraction() > 0) out.addAll(sh.implementation().members());
        }));
        return out;
    }

    /** Only http(s) URLs with a host: the broker calls them with its SOAP client. */
    static void checkEndpoint(URI e) {
        if (e == null || !e.isAbsolute() || e.getHost() == null || !("http".equalsIgnoreCase(e.getScheme()) || "https".equalsIgnoreCase(e.getScheme())))
            throw new SlaException(SlaException.Code.INVALID, "endpoint must be an http:// or https:// URL with a host, was '" + e + "'");
    }

    /** Parses an endpoint, refusing anything but an http(s) URL with a host. */
    public static URI endpoint(String text) {
        try {
            URI u = new URI(text == null ? "" : text.strip());
            checkEndpoint(u);
            return u;
        } catch (URISyntaxException e) {
            throw new SlaException(SlaException.Code.INVALID, "endpoint is not a URL: " + e.getMessage());
        }
    }

    /** Builds model values, turning their domain errors into INVALID refusals. */
    public static <T> T build(java.util.function.Supplier<T> constructor) {
        try {
            return constructor.get();
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new SlaException(SlaException.Code.INVALID, String.valueOf(e.getMessage()));
        }
    }

    /**
     * A task's callback as the admin API and the SOAP Service Manager give it: the operation and
     * the timeout in seconds (null: {@link io.moses.model.Callback#DEFAULT_TIMEOUT}), at most
     * {@link io.moses.model.Callback#MAX_TIMEOUT}.
     */
    public static io.moses.model.Callback callback(String operation, Double timeoutSeconds) {
        if (operation == null || operation.isBlank())
            throw new SlaException(SlaException.Code.INVALID, "callback operation must not be empty (name the process's operation the provider calls)");
        long max = io.moses.model.Callback.MAX_TIMEOUT.toSeconds();
        // in seconds, as it was given: the operator reads the reason in the unit it wrote
        if (timeoutSeconds != null && !(timeoutSeconds > 0 && timeoutSeconds <= max))
            throw new SlaException(SlaException.Code.INVALID, "callback timeout must be more than 0 and at most " + max + " s ("
                    + io.moses.model.Callback.MAX_TIMEOUT.toDays() + " days), was " + timeoutSeconds + " s");
        java.time.Duration timeout = timeoutSeconds == null ? io.moses.model.Callback.DEFAULT_TIMEOUT
                : java.time.Duration.ofNanos(Math.round(timeoutSeconds * 1e9));
        return build(() -> new io.moses.model.Callback(operation, timeout));
    }

    /** A task named {@code partnerLink.operation} of a composite. */
    public static TaskRef task(String composite, String task) {
        if (composite == null || composite.isBlank()) throw new SlaException(SlaException.Code.INVALID, "composite must not be empty");
        if (task == null || !task.matches("[^.\\s]+\\.[^.\\s]+"))
            throw new SlaException(SlaException.Code.INVALID, "task must be partnerLink.operation, was '" + task + "'");
        return new TaskRef(composite.strip(), task.strip());
    }


    private static SlaException translate(KnowledgeBaseException e) {
        return SlaException.from(e, SlaException.Code.UNKNOWN_SERVICE, SlaException.Code.DUPLICATE_SERVICE);
    }

    private static <T> T call(java.util.function.Supplier<T> c) {
        return SlaException.orRefuse(c, ServiceManager::translate);
    }
}
