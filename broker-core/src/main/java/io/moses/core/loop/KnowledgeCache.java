package io.moses.core.loop;

import io.moses.adaptation.AdaptiveBinding;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.KnowledgeBaseException;
import io.moses.model.ConcreteService;
import io.moses.model.Plan;
import io.moses.model.User;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What this replica knows, in memory: users, concrete services and the plan, refreshed from
 * the knowledge base off the request path. Two cheap queries per refresh (the latest plan
 * version, the subscriptions' version); the whole plan, services and users are loaded only
 * when the plan changes, the users also when a subscription does. When the
 * database is away the replica keeps serving with what it has and says so once.
 */
public final class KnowledgeCache {
    private static final Logger log = LoggerFactory.getLogger(KnowledgeCache.class);

    private final KnowledgeBase kb;
    private final AdaptiveBinding binding;
    private final AtomicReference<Map<String, User>> users = new AtomicReference<>(Map.of());
    private volatile List<ConcreteService> services = List.of();
    private volatile List<io.moses.model.ServiceClass> classes = List.of();
    /** The classes' own policies above the agreed rate; loaded with the users (a change bumps the subscriptions' version). */
    private volatile Map<String, io.moses.model.OverRate> overRates = Map.of();
    private volatile Plan plan;
    private volatile long planVersion;
    /** The users' version when they were loaded: a subscription changed without a new plan reloads them too. */
    private volatile long subscriptionsVersion = -1;
    private volatile boolean databaseUp = true;

    public KnowledgeCache(KnowledgeBase kb, AdaptiveBinding binding) {
        this.kb = kb;
        this.binding = binding;
    }

    /** Loads everything; throws if the database is unavailable at start. */
    public void load() {
        List<ConcreteService> services = kb.concreteServices();
        Plan plan = kb.latestPlan().orElse(null);
        loadUsers();
        classes = kb.serviceClasses();
        binding.update(plan, services, new io.moses.adaptation.TaskTraits(kb.idempotentTasks(), kb.statefulTasks(), kb.asynchronousTasks()));
        this.services = services;
        this.plan = plan;
        planVersion = plan == null ? 0 : plan.version();
    }

    /** One refresh: a cheap version check, a full load when the plan changed. */
    public void refresh() {
        try {
            long latest = kb.latestPlanVersion();
            if (!databaseUp) {
                databaseUp = true;
                log.info("knowledge base is back ({})", kb.description());
                loadUsers();
            }
            if (latest != planVersion) load();
            else if (kb.subscriptionsVersion() != subscriptionsVersion) loadUsers();
        } catch (KnowledgeBaseException e) {
            if (databaseUp) {
                databaseUp = false;
                log.warn("knowledge base unavailable, serving with plan {}: {}", planVersion, e.getMessage());
            }
        } catch (RuntimeException e) {
            log.warn("knowledge refresh failed, keeping plan {}: {}", planVersion, e.getMessage());
        }
    }

    private void loadUsers() {
        long version = kb.subscriptionsVersion(); // read first: a change made meanwhile is loaded at the next refresh
        users.set(kb.users().stream().collect(Collectors.toUnmodifiableMap(User::name, Function.identity())));
        overRates = Map.copyOf(kb.classOverRates());
        subscriptionsVersion = version;
    }

    /** The Adaptation Manager's binding this replica serves with. */
    AdaptiveBinding binding() {
        return binding;
    }

    public User user(String name) {
        return users.get().get(name);
    }

    public java.util.Collection<User> users() {
        return users.get().values();
    }

    public Map<String, io.moses.model.OverRate> overRates() {
        return overRates;
    }

    public boolean hasUsers() {
        return !users.get().isEmpty();
    }

    /** The stateful tasks as of the last load. */
    public java.util.Set<io.moses.model.TaskRef> statefulTasks() {
        return binding.traits().stateful();
    }

    public List<ConcreteService> services() {
        return services;
    }

    public List<io.moses.model.ServiceClass> classes() {
        return classes;
    }

    public Plan plan() {
        return plan;
    }

    public long planVersion() {
        return planVersion;
    }

    public boolean databaseUp() {
        return databaseUp;
    }
}
