package io.moses.optimizer;

import io.moses.model.CompositeService;
import io.moses.model.ConcreteService;
import io.moses.model.Domain;
import io.moses.model.Observation;
import io.moses.model.ServiceClass;
import io.moses.model.TaskRef;
import io.moses.model.Visits;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Everything the optimizer plans with, as plain model values (the knowledge base's view at one
 * moment). Build one with {@link #builder()}.
 *
 * @param composites       the deployed composite services
 * @param classes          the service classes
 * @param classLoad        L^k per class name [req/s] (missing: 0); the rate of class-k requests to
 *                         every composite service
 * @param services         the concrete services
 * @param down             names of concrete services the WS Monitor finds down (not candidates)
 * @param observed         observed QoS per concrete-service name; replaces the agreed r and a once
 *                         it has {@link Settings#minObservedSamples()} samples
 * @param successSamples   recent raw latencies [s] of successful replies per concrete service, for
 *                         the empirical E[min] of 1-out-of-n sets
 * @param failureDetection f_j [s] per concrete service (its timeout or observed mean failure
 *                         latency); missing or not a number: {@link Settings#defaultFailureDetection()}
 * @param profiles         per class, measured branch probabilities and loop iterations (missing:
 *                         equal branches, loops once)
 * @param visits           per class, measured visits V^k_i that override the ones computed from the
 *                         profile for availability, cost and capacity (may be empty; a value
 *                         that is not a number is ignored)
 * @param settings         weights, margin, objective, pattern caps, time limit
 * @param idempotent       the tasks whose second call is safe; every other task gets no 1-out-of-n
 *                         implementation (docs/model.md, "Idempotent tasks")
 * @param stateful         the tasks whose provider keeps conversation state: within one process
 *                         instance every call of the stateful tasks of one (composite, partner
 *                         link) goes to one provider (docs/model.md, "Stateful partners")
 */
public record PlanningInput(List<CompositeService> composites, List<ServiceClass> classes, Map<String, Double> classLoad,
                            List<ConcreteService> services, Set<String> down,
                            Map<String, Observation.ServiceQos> observed, Map<String, double[]> successSamples,
                            Map<String, Double> failureDetection, Map<String, Visits.Profile> profiles,
                            Map<String, Map<TaskRef, Double>> visits, Settings settings, Set<TaskRef> idempotent,
                            Set<TaskRef> stateful) {

    /** An input in which no task is stateful (the default). */
    public PlanningInput(List<CompositeService> composites, List<ServiceClass> classes, Map<String, Double> classLoad,
                         List<ConcreteService> services, Set<String> down,
                         Map<String, Observation.ServiceQos> observed, Map<String, double[]> successSamples,
                         Map<String, Double> failureDetection, Map<String, Visits.Profile> profiles,
                         Map<String, Map<TaskRef, Double>> visits, Settings settings, Set<TaskRef> idempotent) {
        this(composites, classes, classLoad, services, down, observed, successSamples, failureDetection, profiles, visits,
                settings, idempotent, Set.of());
    }

    /** An input in which no task is idempotent or stateful (the default). */
    public PlanningInput(List<CompositeService> composites, List<ServiceClass> classes, Map<String, Double> classLoad,
                         List<ConcreteService> services, Set<String> down,
                         Map<String, Observation.ServiceQos> observed, Map<String, double[]> successSamples,
                         Map<String, Double> failureDetection, Map<String, Visits.Profile> profiles,
                         Map<String, Map<TaskRef, Double>> visits, Settings settings) {
        this(composites, classes, classLoad, services, down, observed, successSamples, failureDetection, profiles, visits,
                settings, Set.of(), Set.of());
    }

    public PlanningInput {
        idempotent = Set.copyOf(idempotent);
        stateful = Set.copyOf(stateful);
        composites = List.copyOf(composites);
        classes = List.copyOf(classes);
        classLoad = Map.copyOf(classLoad);
        services = List.copyOf(services);
        down = Set.copyOf(down);
        observed = Map.copyOf(observed);
        successSamples = Map.copyOf(successSamples);
        failureDetection = Map.copyOf(failureDetection);
        profiles = Map.copyOf(profiles);
        visits = Map.copyOf(visits);
        Objects.requireNonNull(settings, "settings");
        Set<String> names = new HashSet<>();
        for (ServiceClass k : classes)
            if (!names.add(k.name())) throw new IllegalArgumentException("classes: duplicate class " + k.name());
        for (var e : classLoad.entrySet()) {
            if (!names.contains(e.getKey())) throw new IllegalArgumentException("classLoad: unknown class " + e.getKey());
            Domain.nonNegative("classLoad[" + e.getKey() + "]", e.getValue());
        }
        Set<String> serviceNames = new HashSet<>();
        for (ConcreteService s : services)
            if (!serviceNames.add(s.name())) throw new IllegalArgumentException("services: duplicate concrete service " + s.name());
        // Estimates from the monitors: a negative one is a bug and refused; one that is not a number
        // (NaN, infinite) is ignored by the optimizer and named in the plan's message.
        for (var e : failureDetection.entrySet())
            if (e.getValue() < 0) throw new IllegalArgumentException("failureDetection[" + e.getKey() + "] must be >= 0, was " + e.getValue());
        for (var e : visits.entrySet())
            for (var v : e.getValue().entrySet())
                if (v.getValue() < 0) throw new IllegalArgumentException("visits[" + e.getKey() + "][" + v.getKey() + "] must be >= 0, was " + v.getValue());
        Set<String> compositeNames = new HashSet<>();
        for (CompositeService c : composites)
            if (!compositeNames.add(c.name())) throw new IllegalArgumentException("composites: duplicate composite " + c.name());
    }

    /** True when a second call of {@code task} is safe. */
    public boolean idempotent(TaskRef task) {
        return idempotent.contains(task);
    }

    /** True when {@code task}'s provider keeps conversation state (one provider per process instance). */
    public boolean stateful(TaskRef task) {
        return stateful.contains(task);
    }

    public double load(String serviceClass) {
        return classLoad.getOrDefault(serviceClass, 0.0);
    }

    public ServiceClass serviceClass(String name) {
        for (ServiceClass k : classes) if (k.name().equals(name)) return k;
        throw new IllegalArgumentException("serviceClass: unknown class " + name);
    }

    /** The same input with class {@code serviceClass}'s load set to {@code load}. */
    public PlanningInput withLoad(String serviceClass, double load) {
        serviceClass(serviceClass);
        Map<String, Double> m = new HashMap<>(classLoad);
        m.put(serviceClass, load);
        return new PlanningInput(composites, classes, m, services, down, observed, successSamples, failureDetection,
                profiles, visits, settings, idempotent, stateful);
    }

    /** The same input planning only {@code c} (a subset of its composites). */
    public PlanningInput withComposites(List<CompositeService> c) {
        return new PlanningInput(c, classes, classLoad, services, down, observed, successSamples, failureDetection,
                profiles, visits, settings, idempotent, stateful);
    }

    public PlanningInput withSettings(Settings s) {
        return new PlanningInput(composites, classes, classLoad, services, down, observed, successSamples,
                failureDetection, profiles, visits, s, idempotent, stateful);
    }

    /** The same input with {@code tasks} as its stateful tasks. */
    public PlanningInput withStateful(Set<TaskRef> tasks) {
        return new PlanningInput(composites, classes, classLoad, services, down, observed, successSamples,
                failureDetection, profiles, visits, settings, idempotent, tasks);
    }

    /**
     * The same input with the observed response times of {@code responseTimes}' services replaced
     * (a forecast in place of what was observed); their latency samples are scaled with them, so
     * that a 1-out-of-n set's empirical E[min] follows.
     */
    public PlanningInput withResponseTimes(Map<String, Double> responseTimes) {
        Map<String, Observation.ServiceQos> o = new HashMap<>(observed);
        Map<String, double[]> samples = new HashMap<>(successSamples);
        for (ConcreteService cs : services) {
            Double r = responseTimes.get(cs.name());
            if (r == null || !(r > 0) || Double.isInfinite(r)) continue;
            Observation.ServiceQos q = o.get(cs.name());
            double before = q == null ? cs.sla().responseTime() : q.responseTime();
            o.put(cs.name(), q == null
                    ? new Observation.ServiceQos(cs.name(), r, cs.sla().availability(), Math.max(1, settings.minObservedSamples()), java.time.Instant.EPOCH)
                    : new Observation.ServiceQos(cs.name(), r, q.availability(), Math.max(q.samples(), settings.minObservedSamples()), q.at()));
            double[] s = samples.get(cs.name());
            if (s != null && before > 0) samples.put(cs.name(), java.util.Arrays.stream(s).map(x -> x * r / before).toArray());
        }
        return new PlanningInput(composites, classes, classLoad, services, down, o, samples, failureDetection,
                profiles, visits, settings, idempotent, stateful);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Which objective the program maximizes (docs/model.md, "The linear program"). */
    public enum Objective { UTILITY, REVENUE }

    /**
     * Operator settings of the optimizer (the solver itself is chosen when the {@link OptimizationEngine} is made).
     *
     * @param weightResponseTime       w_r
     * @param weightAvailability       w_a
     * @param weightCost               w_c (w_r + w_a + w_c = 1)
     * @param margin                   m in [0, 1): response-time constraints use (1 - m) R_max
     * @param objective                utility (default) or revenue
     * @param maxParallel              largest 1-out-of-n set (below 2: none)
     * @param maxAlternate             longest alternate tuple (below 2: none)
     * @param defaultFailureDetection  f_j [s] of a service with none given; 0 means its r_j
     * @param minObservedSamples       samples an observation needs to replace the agreed r and a
     * @param empiricalMinSamples      success samples every member of a 1-out-of-n set needs for
     *                                 the empirical E[min]
     * @param timeoutSeconds           per-solve time limit
     */
    public record Settings(double weightResponseTime, double weightAvailability, double weightCost, double margin,
                           Objective objective, int maxParallel, int maxAlternate, double defaultFailureDetection,
                           long minObservedSamples, int empiricalMinSamples, double timeoutSeconds) {
        public Settings {
            Domain.nonNegative("weightResponseTime", weightResponseTime);
            Domain.nonNegative("weightAvailability", weightAvailability);
            Domain.nonNegative("weightCost", weightCost);
            double sum = weightResponseTime + weightAvailability + weightCost;
            if (Math.abs(sum - 1) > 1e-9)
                throw new IllegalArgumentException("weights w_r + w_a + w_c must sum to 1, was " + sum);
            if (!(margin >= 0 && margin < 1)) throw new IllegalArgumentException("margin must be in [0, 1), was " + margin);
            Objects.requireNonNull(objective, "objective");
            Domain.nonNegative("defaultFailureDetection", defaultFailureDetection);
            if (minObservedSamples < 0) throw new IllegalArgumentException("minObservedSamples must be >= 0");
            if (empiricalMinSamples < 1) throw new IllegalArgumentException("empiricalMinSamples must be >= 1");
            Domain.positive("timeoutSeconds", timeoutSeconds);
        }

        public static Settings defaults() {
            return new Settings(1.0 / 3, 1.0 / 3, 1.0 / 3, 0.1, Objective.UTILITY, 3, 2, 0, 50, 200, 30);
        }

        public Settings withWeights(double wr, double wa, double wc) {
            return new Settings(wr, wa, wc, margin, objective, maxParallel, maxAlternate, defaultFailureDetection,
                    minObservedSamples, empiricalMinSamples, timeoutSeconds);
        }

        public Settings withMargin(double m) {
            return new Settings(weightResponseTime, weightAvailability, weightCost, m, objective, maxParallel,
                    maxAlternate, defaultFailureDetection, minObservedSamples, empiricalMinSamples, timeoutSeconds);
        }

        public Settings withObjective(Objective o) {
            return new Settings(weightResponseTime, weightAvailability, weightCost, margin, o, maxParallel,
                    maxAlternate, defaultFailureDetection, minObservedSamples, empiricalMinSamples, timeoutSeconds);
        }

        public Settings withCaps(int parallel, int alternate) {
            return new Settings(weightResponseTime, weightAvailability, weightCost, margin, objective, parallel,
                    alternate, defaultFailureDetection, minObservedSamples, empiricalMinSamples, timeoutSeconds);
        }

        public Settings withDefaultFailureDetection(double f) {
            return new Settings(weightResponseTime, weightAvailability, weightCost, margin, objective, maxParallel,
                    maxAlternate, f, minObservedSamples, empiricalMinSamples, timeoutSeconds);
        }
    }

    /** Collects an input step by step. */
    public static final class Builder {
        private final List<CompositeService> composites = new ArrayList<>();
        private final List<ServiceClass> classes = new ArrayList<>();
        private final Map<String, Double> load = new LinkedHashMap<>();
        private final List<ConcreteService> services = new ArrayList<>();
        private final Set<String> down = new HashSet<>();
        private final Map<String, Observation.ServiceQos> observed = new HashMap<>();
        private final Map<String, double[]> samples = new HashMap<>();
        private final Map<String, Double> failure = new HashMap<>();
        private final Map<String, Visits.Profile> profiles = new HashMap<>();
        private final Map<String, Map<TaskRef, Double>> visits = new HashMap<>();
        private Settings settings = Settings.defaults();
        private final Set<TaskRef> idempotent = new HashSet<>();
        private final Set<TaskRef> stateful = new HashSet<>();

        public Builder composite(CompositeService c) { composites.add(c); return this; }
        public Builder serviceClass(ServiceClass k, double classLoad) { classes.add(k); load.put(k.name(), classLoad); return this; }
        public Builder service(ConcreteService s) { services.add(s); return this; }
        public Builder services(List<ConcreteService> s) { services.addAll(s); return this; }
        public Builder down(String service) { down.add(service); return this; }
        public Builder observed(Observation.ServiceQos q) { observed.put(q.service(), q); return this; }
        public Builder successSamples(String service, double[] latencies) { samples.put(service, latencies.clone()); return this; }
        public Builder failureDetection(String service, double seconds) { failure.put(service, seconds); return this; }
        public Builder profile(String serviceClass, Visits.Profile p) { profiles.put(serviceClass, p); return this; }
        public Builder visits(String serviceClass, Map<TaskRef, Double> v) { visits.put(serviceClass, Map.copyOf(v)); return this; }
        public Builder settings(Settings s) { settings = s; return this; }
        public Builder idempotent(TaskRef task) { idempotent.add(task); return this; }
        public Builder stateful(TaskRef task) { stateful.add(task); return this; }

        public PlanningInput build() {
            return new PlanningInput(composites, classes, load, services, down, observed, samples, failure, profiles,
                    visits, settings, idempotent, stateful);
        }
    }
}
