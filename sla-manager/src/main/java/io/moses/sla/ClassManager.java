package io.moses.sla;

import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.KnowledgeBaseException;
import io.moses.model.OverRate;
import io.moses.model.ServiceClass;
import io.moses.model.User;
import io.moses.optimizer.OptimizationEngine;
import io.moses.optimizer.PlanResult;
import io.moses.optimizer.PlanningInput;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Operators add, change and remove service classes. A class with subscribers may change only
 * to an SLA the plan can still keep for them (the optimizer's hard program stays feasible);
 * every change is re-planned before the reply, and undone if that fails.
 */
public final class ClassManager {
    private static final Logger log = LoggerFactory.getLogger(ClassManager.class);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");

    /** A class and how many users subscribe to it. */
    public record Listed(ServiceClass serviceClass, int subscribers) {}

    /** The class as stored (null after a removal) and the plan in force. */
    public record Change(ServiceClass serviceClass, long planVersion, String message) {}

    private final KnowledgeBase kb;
    private final OptimizationEngine optimizer;
    private final Planning planning;

    public ClassManager(KnowledgeBase kb, OptimizationEngine optimizer, Planning planning) {
        this.kb = kb;
        this.optimizer = optimizer;
        this.planning = planning;
    }

    public List<Listed> list() {
        return call(() -> {
            List<User> users = kb.users();
            return kb.serviceClasses().stream().map(k -> new Listed(k, (int) users.stream().filter(u -> u.serviceClass().equals(k.name())).count()))
                    .toList();
        });
    }

    /** The classes that name their own policy for requests above their users' agreed rates (the others follow the broker's). */
    public java.util.Map<String, OverRate> overRates() {
        return call(kb::classOverRates);
    }

    public synchronized Change add(ServiceClass k) {
        return add(k, null);
    }

    /** Adds a class with its own policy above the agreed rate ({@code null}: the broker's); both or neither are stored. */
    public synchronized Change add(ServiceClass k, OverRate overRate) {
        if (!NAME.matcher(k.name()).matches())
            throw new SlaException(SlaException.Code.INVALID, "name must be 1 to 100 letters, digits, '.', '_' or '-', was '" + k.name() + "'");
        if (call(() -> kb.serviceClass(k.name())).isPresent())
            throw new SlaException(SlaException.Code.DUPLICATE_CLASS, "service class '" + k.name() + "' already exists");
        Planning.Replanned p = PlannedChange.apply(planning, () -> {
            kb.addServiceClass(k);
            if (overRate != null) {
                try {
                    kb.putClassOverRate(k.name(), overRate);
                } catch (KnowledgeBaseException e) {
                    kb.removeServiceClass(k.name()); // nothing half-applied
                    throw e;
                }
            }
        }, ClassManager::translate, "service class " + k.name() + " added", Set.of(), () -> kb.removeServiceClass(k.name()));
        log.info("service class added: {}, plan {}", k, p.version());
        return new Change(k, p.version(), p.note());
    }

    public synchronized Change update(ServiceClass next) {
        return update(next, false, null);
    }

    /**
     * Changes a class's SLA and, when {@code setOverRate}, its own policy above the agreed rate
     * ({@code null}: the broker's again); both or neither are stored. A policy alone needs no re-plan.
     */
    public synchronized Change update(ServiceClass next, boolean setOverRate, OverRate overRate) {
        ServiceClass before = call(() -> kb.serviceClass(next.name()))
                .orElseThrow(() -> new SlaException(SlaException.Code.UNKNOWN_CLASS, "no service class '" + next.name() + "'"));
        if (setOverRate && before.equals(next)) { // the policy alone: the plan does not depend on it
            call(() -> {
                kb.putClassOverRate(next.name(), overRate);
                return null;
            });
            log.info("service class {}: requests above the agreed rate {}", next.name(), overRate == null ? "follow the broker's policy" : overRate.label());
            return new Change(next, call(kb::latestPlanVersion), "over-rate policy set; the plan is unchanged");
        }
        OverRate overRateBefore = call(kb::classOverRates).get(next.name());
        PlanningInput in = planning.input();
        if (in.load(next.name()) > 0) {
            List<ServiceClass> classes = new ArrayList<>();
            for (ServiceClass k : in.classes()) classes.add(k.name().equals(next.name()) ? next : k);
            PlanningInput changed = new PlanningInput(in.composites(), classes, in.classLoad(), in.services(), in.down(), in.observed(),
                    in.successSamples(), in.failureDetection(), in.profiles(), in.visits(), in.settings(), in.idempotent(),
                    in.stateful());
            PlanResult r = optimizer.plan(changed, "check of service class " + next.name());
            boolean kept = r.status() == PlanResult.Status.OPTIMAL
                    || r.hasPlan() && r.plan().atRisk().stream().noneMatch(a -> a.serviceClass().equals(next.name()) && a.breaksSla());
            if (!kept)
                throw new SlaException(SlaException.Code.IMPOSSIBLE_SLA, "the plan cannot keep " + describe(next) + " for the "
                        + String.format("%.4g", in.load(next.name())) + " req/s its users subscribed (" + r.message() + ")");
        }
        Planning.Replanned p = PlannedChange.apply(planning, () -> {
            kb.updateServiceClass(next.name(), k -> next);
            if (setOverRate) {
                try {
                    kb.putClassOverRate(next.name(), overRate);
                } catch (KnowledgeBaseException e) {
                    kb.putServiceClass(before); // nothing half-applied
                    throw e;
                }
            }
        }, ClassManager::translate, "service class " + next.name() + " changed", Set.of(), () -> {
            kb.putServiceClass(before);
            if (setOverRate) kb.putClassOverRate(next.name(), overRateBefore);
        });
        log.info("service class changed: {} -> {}, plan {}", before, next, p.version());
        return new Change(next, p.version(), p.note());
    }

    public synchronized Change remove(String name) {
        call(() -> kb.serviceClass(name)).orElseThrow(() -> new SlaException(SlaException.Code.UNKNOWN_CLASS, "no service class '" + name + "'"));
        try {
            kb.removeServiceClass(name);
        } catch (KnowledgeBaseException e) {
            if (e.kind() == KnowledgeBaseException.Kind.CONFLICT)
                throw new SlaException(SlaException.Code.CLASS_IN_USE, "service class '" + name + "' still has subscribers: move or cancel them first");
            throw translate(e);
        }
        Planning.Replanned p;
        try {
            p = planning.replan("service class " + name + " removed", Set.of());
        } catch (RuntimeException e) {
            return new Change(null, 0, "removed; re-plan failed: " + e.getMessage());
        }
        log.info("service class removed: {}, plan {}", name, p.version());
        return new Change(null, p.version(), p.note());
    }

    private static String describe(ServiceClass k) {
        return String.format("R_max %.4g s, A_min %.4g, C_max %.4g", k.maxResponseTime(), k.minAvailability(), k.maxCost());
    }

    private static SlaException translate(KnowledgeBaseException e) {
        return SlaException.from(e, SlaException.Code.UNKNOWN_CLASS, SlaException.Code.DUPLICATE_CLASS);
    }

    private static <T> T call(java.util.function.Supplier<T> c) {
        return SlaException.orRefuse(c, ClassManager::translate);
    }
}
