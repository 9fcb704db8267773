package io.moses.optimizer;

import io.moses.model.CompositeService;
import io.moses.model.ConcreteService;
import io.moses.model.Implementation;
import io.moses.model.Observation;
import io.moses.model.TaskRef;
import io.moses.model.Visits;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The candidate implementations of every task and their QoS (docs/model.md, "Implementations"): single
 * services, 1-out-of-n sets up to {@code maxParallel} members, alternate tuples up to
 * {@code maxAlternate} and hedged pairs, over the services that are not down. A task that is not
 * idempotent gets no 1-out-of-n set and no hedged pair: they send one request to two providers
 * (x_J = 0 for those J, docs/model.md, "Idempotent tasks"). A stateful task gets only the singles
 * of the providers of its stateful partner: a group or an alternate could move the conversation
 * to another provider mid-way (docs/model.md, "Stateful partners").
 */
final class Candidates {
    /**
     * The stateful tasks of one (composite, partner link) and its providers: the endpoints with
     * an available concrete service for every one of those tasks, in the order of their addresses.
     */
    record StatefulPartner(String composite, String partnerLink, List<TaskRef> tasks, List<String> providers) {
        @Override
        public String toString() {
            return composite + "/" + partnerLink;
        }
    }

    /** What the planner believes of one concrete service now. */
    record Member(ConcreteService service, String endpoint, double r, double a, double aLow, double f, double c,
                  double[] samples) {
        /** Expected time of one call: a r + (1 - a) f. */
        double expectedTime() {
            return a * r + (1 - a) * f;
        }
    }

    private final Map<TaskRef, List<ImplementationQos>> byTask = new LinkedHashMap<>();
    private final Map<String, Double> capacity = new LinkedHashMap<>();
    /** Tasks with at least one concrete service that is not down. */
    private final Set<TaskRef> available = new HashSet<>();
    /** Per stateful task, its stateful partner. */
    private final Map<TaskRef, StatefulPartner> partnerOf = new LinkedHashMap<>();
    /** Estimates from the monitors that were not numbers and were left out, for the plan's message. */
    private final List<String> ignored = new ArrayList<>();

    Candidates(PlanningInput in, Iterable<TaskRef> tasks) {
        var s = in.settings();
        Map<TaskRef, List<Member>> members = new HashMap<>();
        for (ConcreteService cs : in.services()) {
            String endpoint = cs.endpoint().toString();
            capacity.merge(endpoint, cs.sla().maxRate(), Math::min);
            if (in.down().contains(cs.name())) continue;
            double r = cs.sla().responseTime(), a = cs.sla().availability(), aLow = a;
            Observation.ServiceQos q = in.observed().get(cs.name());
            if (q != null && q.samples() >= s.minObservedSamples() && q.samples() > 0) {
                // an estimate that is not a number is ignored (the agreed value stays), not planned with
                if (q.responseTime() > 0 && Double.isFinite(q.responseTime())) r = q.responseTime();
                else if (!Double.isFinite(q.responseTime())) ignored.add("observed response time of " + cs.name() + " (" + q.responseTime() + ")");
                if (Double.isFinite(q.availability())) {
                    a = Math.min(1, Math.max(1e-6, q.availability()));
                    aLow = Math.max(1e-6, wilsonLower(a, q.samples()));
                } else ignored.add("observed availability of " + cs.name() + " (" + q.availability() + ")");
            }
            Double given = in.failureDetection().get(cs.name());
            if (given != null && !Double.isFinite(given)) {
                ignored.add("failure-detection time of " + cs.name() + " (" + given + ")");
                given = null;
            }
            double f = given != null ? given : s.defaultFailureDetection() > 0 ? s.defaultFailureDetection() : r;
            double[] samples = in.successSamples().get(cs.name());
            if (samples != null && !Arrays.stream(samples).allMatch(x -> x >= 0 && Double.isFinite(x))) {
                ignored.add("latency samples of " + cs.name() + " (not all finite and >= 0)");
                samples = null;
            }
            members.computeIfAbsent(cs.task(), t -> new ArrayList<>())
                    .add(new Member(cs, endpoint, r, a, aLow, f, cs.sla().cost(), samples));
        }
        available.addAll(members.keySet());
        statefulPartners(in, tasks, members);
        for (TaskRef t : tasks) {
            List<Member> ms = new ArrayList<>(members.getOrDefault(t, List.of()));
            ms.sort(Comparator.comparing(m -> m.service().name()));
            StatefulPartner partner = partnerOf.get(t);
            if (partner != null) {
                List<ImplementationQos> singles = new ArrayList<>();
                for (Member m : ms) if (partner.providers().contains(m.endpoint())) singles.add(single(m));
                byTask.put(t, singles);
                continue;
            }
            List<ImplementationQos> impls = implementations(ms, in.idempotent(t) ? s.maxParallel() : 1, s.maxAlternate(), s.empiricalMinSamples());
            if (in.idempotent(t)) impls.addAll(Hedge.pairs(ms));
            byTask.put(t, impls);
        }
    }

    /**
     * Groups the stateful tasks of the composites (and of {@code tasks}) by (composite, partner
     * link) and finds each group's providers. Every task of the group counts, also one with no
     * concrete service registered: its calls would go to the process's own address, another
     * provider than the broker's choice, so such a group has no provider.
     */
    private void statefulPartners(PlanningInput in, Iterable<TaskRef> tasks, Map<TaskRef, List<Member>> members) {
        Set<TaskRef> known = new LinkedHashSet<>();
        for (CompositeService c : in.composites()) known.addAll(Visits.tasks(c));
        for (TaskRef t : tasks) known.add(t);
        Map<List<String>, List<TaskRef>> groups = new LinkedHashMap<>();
        for (TaskRef t : known)
            if (in.stateful(t)) groups.computeIfAbsent(List.of(t.composite(), t.partnerLink()), g -> new ArrayList<>()).add(t);
        for (var g : groups.entrySet()) {
            Set<String> providers = null;
            for (TaskRef t : g.getValue()) {
                Set<String> offering = new TreeSet<>();
                for (Member m : members.getOrDefault(t, List.of())) offering.add(m.endpoint());
                if (providers == null) providers = offering;
                else providers.retainAll(offering);
            }
            StatefulPartner p = new StatefulPartner(g.getKey().get(0), g.getKey().get(1), List.copyOf(g.getValue()),
                    List.copyOf(providers));
            for (TaskRef t : p.tasks()) partnerOf.put(t, p);
        }
    }

    /** True when {@code task} has a concrete service that is not down (it may still have no candidate, if stateful). */
    boolean available(TaskRef task) {
        return available.contains(task);
    }

    /** The stateful partners, each once. */
    Collection<StatefulPartner> statefulPartners() {
        return new LinkedHashSet<>(partnerOf.values());
    }

    /** {@code task}'s stateful partner, or null when the task is not stateful. */
    StatefulPartner partnerOf(TaskRef task) {
        return partnerOf.get(task);
    }

    List<String> ignoredEstimates() {
        return ignored;
    }

    List<ImplementationQos> of(TaskRef task) {
        return byTask.getOrDefault(task, List.of());
    }

    /** l_j per endpoint: the smallest limit of the records that share it. */
    Map<String, Double> capacity() {
        return capacity;
    }

    static List<ImplementationQos> implementations(List<Member> ms, int maxParallel, int maxAlternate, int empiricalMin) {
        List<ImplementationQos> out = new ArrayList<>();
        for (Member m : ms) out.add(single(m));
        int n = ms.size();
        for (int size = 2; size <= Math.min(maxParallel, n); size++)
            combinations(n, size, new int[size], 0, 0, idx -> out.add(parallel(pick(ms, idx), empiricalMin)));
        for (int size = 2; size <= Math.min(maxAlternate, n); size++)
            permutations(n, size, new int[size], 0, new boolean[n], idx -> out.add(alternate(pick(ms, idx))));
        return out;
    }

    static ImplementationQos single(Member m) {
        return new ImplementationQos(Implementation.single(m.service().name()), m.expectedTime(), m.a(), m.c(),
                Map.of(m.endpoint(), 1.0));
    }

    static ImplementationQos parallel(List<Member> ms, int empiricalMin) {
        double fail = 1, cost = 0;
        Map<String, Double> share = new LinkedHashMap<>();
        boolean empirical = true;
        double best = Double.POSITIVE_INFINITY;
        for (Member m : ms) {
            fail *= 1 - m.a();
            cost += m.c();
            share.merge(m.endpoint(), 1.0, Double::sum);
            best = Math.min(best, m.expectedTime());
            empirical &= m.samples() != null && m.samples().length >= empiricalMin;
        }
        double r = best;
        if (empirical) r = EmpiricalMin.expectedMin(ms.stream().map(Member::samples).toArray(double[][]::new));
        return new ImplementationQos(new Implementation(Implementation.Pattern.PARALLEL, names(ms)), r, 1 - fail, cost, share);
    }

    static ImplementationQos alternate(List<Member> ms) {
        double reach = 1, reachLow = 1, r = 0, cost = 0;
        Map<String, Double> share = new LinkedHashMap<>();
        for (Member m : ms) {
            r += reach * m.expectedTime();
            cost += reach * m.c();
            // Backup load uses the lower end of the earlier members' availability, so that it
            // stays within capacity when a first member degrades (docs/model.md, "Implementations").
            share.merge(m.endpoint(), reachLow, Double::sum);
            reach *= 1 - m.a();
            reachLow *= 1 - m.aLow();
        }
        return new ImplementationQos(new Implementation(Implementation.Pattern.ALTERNATE, names(ms)), r, 1 - reach, cost, share);
    }

    /** Wilson score lower bound (95%) of a proportion observed over n trials. */
    static double wilsonLower(double p, long n) {
        double z = 1.96, z2 = z * z;
        double centre = p + z2 / (2 * n);
        double half = z * Math.sqrt(p * (1 - p) / n + z2 / (4.0 * n * n));
        return (centre - half) / (1 + z2 / n);
    }

    private static List<String> names(List<Member> ms) {
        return ms.stream().map(m -> m.service().name()).toList();
    }

    private static List<Member> pick(List<Member> ms, int[] idx) {
        List<Member> out = new ArrayList<>(idx.length);
        for (int i : idx) out.add(ms.get(i));
        return out;
    }

    private static void combinations(int n, int k, int[] idx, int depth, int from, java.util.function.Consumer<int[]> f) {
        if (depth == k) { f.accept(idx); return; }
        for (int i = from; i < n; i++) {
            idx[depth] = i;
            combinations(n, k, idx, depth + 1, i + 1, f);
        }
    }

    private static void permutations(int n, int k, int[] idx, int depth, boolean[] used, java.util.function.Consumer<int[]> f) {
        if (depth == k) { f.accept(idx); return; }
        for (int i = 0; i < n; i++) {
            if (used[i]) continue;
            used[i] = true;
            idx[depth] = i;
            permutations(n, k, idx, depth + 1, used, f);
            used[i] = false;
        }
    }
}
