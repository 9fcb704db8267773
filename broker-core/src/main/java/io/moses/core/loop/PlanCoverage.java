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
 * its fractions; tasks without registered services inside a planned composite are unmanaged too.
 * The optimizer decides the same way ({@code OptimizationEngine.scoped}); this is the cheap view
 * for /health, the admin API and the console, computed from this replica's caches.
 *
 * @param planned        names of the composites the plans cover
 * @param unplanned      the others, with why
 * @param unmanagedTasks tasks with no concrete service registered (their invokes go to the WSDL's address)
 */
record PlanCoverage(List<String> planned, Map<String, String> unplanned, List<String> unmanagedTasks) {

    static PlanCoverage of(Collection<CompositeService> deployed, List<ConcreteService> services, Set<String> unavailable) {
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
            else planned.add(c.name());
        }
        return new PlanCoverage(List.copyOf(planned), unplanned, List.copyOf(unmanaged));
    }

    Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("planned", planned);
        m.put("unplanned", unplanned);
        m.put("unmanagedTasks", unmanagedTasks);
        return m;
    }
}
