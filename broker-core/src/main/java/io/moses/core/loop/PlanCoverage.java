package io.moses.core.loop;

import io.moses.model.CompositeService;
import io.moses.model.ConcreteService;
import io.moses.model.TaskRef;
import io.moses.model.Visits;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which composites deployed on this broker the plans cover, and why the others are not
 * (docs/model.md, "What is planned"): a composite none of whose tasks has a concrete service
 * registered is unmanaged (its invokes go to its WSDL's addresses); one with a task whose
 * registered services are all unavailable (down, taken out, ejected) cannot be planned and keeps
 * its fractions, and so does one with a stateful partner no endpoint offers every task of; tasks
 * without registered services inside a planned composite are unmanaged too.
 * The optimizer decides the same way ({@code OptimizationEngine.scoped}); this is the cheap view
 * for /health, the admin API and the console, computed from this replica's caches.
 *
 * @param planned        names of the composites the plans cover
 * @param unplanned      the others, with why
 * @param unmanagedTasks tasks with no concrete service registered (their invokes go to the WSDL's address)
 */
record PlanCoverage(List<String> planned, Map<String, String> unplanned, List<String> unmanagedTasks) {

    static PlanCoverage of(Collection<CompositeService> deployed, List<ConcreteService> services, Set<String> unavailable) {
        return of(deployed, services, unavailable, Set.of());
    }

    static PlanCoverage of(Collection<CompositeService> deployed, List<ConcreteService> services, Set<String> unavailable,
                           Set<TaskRef> stateful) {
        Map<TaskRef, Boolean> available = new HashMap<>(); // registered tasks: any service available?
        for (ConcreteService s : services) available.merge(s.task(), !unavailable.contains(s.name()), Boolean::logicalOr);
        List<String> planned = new ArrayList<>();
        Map<String, String> unplanned = new LinkedHashMap<>();
        List<String> unmanaged = new ArrayList<>();
        for (CompositeService c : deployed.stream().sorted(Comparator.comparing(CompositeService::name)).toList()) {
            Set<TaskRef> tasks = new LinkedHashSet<>(Visits.tasks(c));
            List<TaskRef> notRegistered = tasks.stream().filter(t -> !available.containsKey(t)).toList();
            List<TaskRef> uncovered = tasks.stream().filter(t -> Boolean.FALSE.equals(available.get(t))).toList();
            notRegistered.forEach(t -> unmanaged.add(t.toString()));
            if (notRegistered.size() == tasks.size()) unplanned.put(c.name(), "unmanaged: no concrete service registered for " + notRegistered);
            else if (!uncovered.isEmpty()) unplanned.put(c.name(), "no available concrete service for " + uncovered);
            else {
                String noProvider = withoutProvider(c, tasks, services, unavailable, stateful);
                if (noProvider != null) unplanned.put(c.name(), noProvider);
                else planned.add(c.name());
            }
        }
        return new PlanCoverage(List.copyOf(planned), unplanned, List.copyOf(unmanaged));
    }

    /**
     * Why a stateful partner of {@code c} has no provider (no endpoint with an available service
     * for every one of its tasks, one with no service registered included), as the optimizer
     * says it; null if each has one.
     */
    private static String withoutProvider(CompositeService c, Set<TaskRef> tasks, List<ConcreteService> services, Set<String> unavailable,
                                          Set<TaskRef> stateful) {
        Map<String, List<TaskRef>> partners = new LinkedHashMap<>();
        for (TaskRef t : tasks) if (stateful.contains(t)) partners.computeIfAbsent(t.partnerLink(), p -> new ArrayList<>()).add(t);
        for (var p : partners.entrySet()) {
            Set<String> providers = null;
            for (TaskRef t : p.getValue()) {
                Set<String> offering = new java.util.HashSet<>();
                for (ConcreteService s : services)
                    if (s.task().equals(t) && !unavailable.contains(s.name())) offering.add(s.endpoint().toString());
                if (providers == null) providers = offering;
                else providers.retainAll(offering);
            }
            if (providers.isEmpty())
                return "stateful partner " + c.name() + "/" + p.getKey() + ": no provider (endpoint) offers every one of its tasks " + p.getValue();
        }
        return null;
    }

    Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("planned", planned);
        m.put("unplanned", unplanned);
        m.put("unmanagedTasks", unmanagedTasks);
        return m;
    }
}
