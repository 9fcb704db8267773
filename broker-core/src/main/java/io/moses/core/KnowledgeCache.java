package io.moses.core;

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
 * the knowledge base off the request path. One cheap query per refresh (the latest plan
 * version); the whole plan, services and users are loaded only when it grows. When the
 * database is away the replica keeps serving with what it has and says so once.
 */
final class KnowledgeCache {
    private static final Logger log = LoggerFactory.getLogger(KnowledgeCache.class);

    private final KnowledgeBase kb;
    private final AdaptiveBinding binding;
    private final AtomicReference<Map<String, User>> users = new AtomicReference<>(Map.of());
    private volatile List<ConcreteService> services = List.of();
    private volatile List<io.moses.model.ServiceClass> classes = List.of();
    private volatile Plan plan;
    private volatile long planVersion;
    private volatile boolean databaseUp = true;

    KnowledgeCache(KnowledgeBase kb, AdaptiveBinding binding) {
        this.kb = kb;
        this.binding = binding;
    }

    /** Loads everything; throws if the database is unavailable at start. */
    void load() {
        List<ConcreteService> services = kb.concreteServices();
        Plan plan = kb.latestPlan().orElse(null);
        users.set(kb.users().stream().collect(Collectors.toUnmodifiableMap(User::name, Function.identity())));
        classes = kb.serviceClasses();
        binding.update(plan, services, kb.idempotentTasks());
        this.services = services;
        this.plan = plan;
        planVersion = plan == null ? 0 : plan.version();
    }

    /** One refresh: a cheap version check, a full load when the plan changed. */
    void refresh() {
        try {
            long latest = kb.latestPlanVersion();
            if (!databaseUp) {
                databaseUp = true;
                log.info("knowledge base is back ({})", kb.description());
                users.set(kb.users().stream().collect(Collectors.toUnmodifiableMap(User::name, Function.identity())));
            }
            if (latest != planVersion) load();
        } catch (KnowledgeBaseException e) {
            if (databaseUp) {
                databaseUp = false;
                log.warn("knowledge base unavailable, serving with plan {}: {}", planVersion, e.getMessage());
            }
        } catch (RuntimeException e) {
            log.warn("knowledge refresh failed, keeping plan {}: {}", planVersion, e.getMessage());
        }
    }

    /** The Adaptation Manager's binding this replica serves with. */
    AdaptiveBinding binding() {
        return binding;
    }

    User user(String name) {
        return users.get().get(name);
    }

    boolean hasUsers() {
        return !users.get().isEmpty();
    }

    List<ConcreteService> services() {
        return services;
    }

    List<io.moses.model.ServiceClass> classes() {
        return classes;
    }

    Plan plan() {
        return plan;
    }

    long planVersion() {
        return planVersion;
    }

    boolean databaseUp() {
        return databaseUp;
    }
}
