package io.moses.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Visits V^k_i (docs/model.md, "Workflow and visits"): the expected number of times one request of a class
 * invokes each task, computed from the activity tree and the class's {@link Profile}. Along the
 * path from the root to an invoke it multiplies the probabilities of the {@code if}/{@code pick}
 * branches taken and the expected iterations of the enclosing loops; every {@code flow} branch
 * counts once; a parallel {@code forEach} counts its N copies; a {@code repeatUntil} runs at
 * least once. Pure: no state, same input same output.
 *
 * <p>This is the one walker of activity trees for tasks, visits, branch probabilities and
 * iterations: the optimizer, the knowledge base and the Composition Manager all use it, so its
 * tests guard the code that plans.
 */
public final class Visits {
    private Visits() {}

    /** Probabilities of a choice's branches must sum to 1 within this tolerance. */
    public static final double TOLERANCE = 1e-6;

    /**
     * Per-class behavior of a composite's activity tree, keyed by activity id. An activity that
     * has no entry gets the default: every branch of a choice equally likely, every loop runs
     * once, a parallel {@code forEach} has one branch. Ids that match no activity are ignored,
     * so one profile may serve several composites.
     *
     * @param branchProbabilities per {@link Activity.Choice} id, the probability of each branch,
     *                            in document order (each in [0, 1], summing to 1)
     * @param iterations          per {@link Activity.Loop} id, the expected iterations n given
     *                            the loop is reached; per {@link Activity.ParallelForEach} id, its
     *                            expected number of branches N (each >= 0)
     */
    public record Profile(Map<String, List<Double>> branchProbabilities, Map<String, Double> iterations) {
        public static final Profile DEFAULT = new Profile(Map.of(), Map.of());

        public Profile {
            Map<String, List<Double>> probs = new LinkedHashMap<>();
            for (var e : branchProbabilities.entrySet()) {
                List<Double> ps = e.getValue();
                if (ps == null || ps.isEmpty()) throw new IllegalArgumentException(
                        "branchProbabilities[" + e.getKey() + "] must have one probability per branch, was " + ps);
                double sum = 0;
                for (int b = 0; b < ps.size(); b++) {
                    Double p = ps.get(b);
                    if (p == null || !(p >= 0 && p <= 1)) throw new IllegalArgumentException(
                            "branchProbabilities[" + e.getKey() + "][" + b + "] must be in [0, 1], was " + p);
                    sum += p;
                }
                if (Math.abs(sum - 1) > TOLERANCE) throw new IllegalArgumentException(
                        "branchProbabilities[" + e.getKey() + "] must sum to 1, was " + sum);
                probs.put(e.getKey(), List.copyOf(ps));
            }
            branchProbabilities = Map.copyOf(probs);
            for (var e : iterations.entrySet()) {
                Double n = e.getValue();
                if (n == null) throw new IllegalArgumentException("iterations[" + e.getKey() + "] must be >= 0, was null");
                Domain.nonNegative("iterations[" + e.getKey() + "]", n);
            }
            iterations = Map.copyOf(iterations);
        }
    }

    /**
     * V_i of every task of {@code composite}: tasks the tree never reaches (for example ones
     * invoked only from fault handlers) get 0. Ordered as {@link CompositeService#tasks()}, then
     * any task found only in the tree.
     *
     * @throws IllegalArgumentException naming the activity id when the profile does not fit the
     *                                  tree (wrong branch count)
     */
    public static Map<TaskRef, Double> of(CompositeService composite, Profile profile) {
        Map<TaskRef, Double> out = new LinkedHashMap<>();
        for (TaskRef t : composite.tasks()) out.put(t, 0.0);
        out.putAll(of(composite.root(), profile));
        return Collections.unmodifiableMap(out);
    }

    /**
     * Every task of {@code composite}: its declared tasks, then any task found only in the tree,
     * in document order.
     */
    public static Set<TaskRef> tasks(CompositeService composite) {
        Set<TaskRef> out = new LinkedHashSet<>(composite.tasks());
        out.addAll(tasks(composite.root()));
        return Collections.unmodifiableSet(out);
    }

    /**
     * Every task invoked in the tree rooted at {@code root}, in document order, whatever the
     * profile (a branch of probability 0 or a loop of 0 iterations still names its tasks).
     */
    public static Set<TaskRef> tasks(Activity root) {
        Set<TaskRef> out = new LinkedHashSet<>();
        collect(root, out);
        return Collections.unmodifiableSet(out);
    }

    private static void collect(Activity a, Set<TaskRef> out) {
        if (a instanceof Activity.Invoke i) out.add(i.task());
        else if (a instanceof Activity.Sequence s) s.children().forEach(c -> collect(c, out));
        else if (a instanceof Activity.Flow f) f.branches().forEach(b -> collect(b, out));
        else if (a instanceof Activity.Choice c) c.branches().forEach(b -> collect(b, out));
        else if (a instanceof Activity.Loop l) collect(l.body(), out);
        else if (a instanceof Activity.ParallelForEach f) collect(f.body(), out);
    }

    /** V_i of every task invoked in the tree rooted at {@code root}, in document order. */
    public static Map<TaskRef, Double> of(Activity root, Profile profile) {
        Map<TaskRef, Double> v = new LinkedHashMap<>();
        walk(root, profile, 1.0, v);
        return Collections.unmodifiableMap(v);
    }

    private static void walk(Activity a, Profile p, double mult, Map<TaskRef, Double> v) {
        if (a instanceof Activity.Invoke i) v.merge(i.task(), mult, Double::sum);
        else if (a instanceof Activity.Sequence s) s.children().forEach(c -> walk(c, p, mult, v));
        else if (a instanceof Activity.Flow f) f.branches().forEach(b -> walk(b, p, mult, v));
        else if (a instanceof Activity.Choice c) {
            List<Double> probs = probabilities(c, p);
            for (int b = 0; b < c.branches().size(); b++) walk(c.branches().get(b), p, mult * probs.get(b), v);
        } else if (a instanceof Activity.Loop l) walk(l.body(), p, mult * iterations(l, p), v);
        else if (a instanceof Activity.ParallelForEach f) walk(f.body(), p, mult * copies(f, p), v);
        // NoOp: invokes nothing
    }

    /**
     * The probability of each branch of {@code choice} under {@code profile}: the profile's, or
     * 1/|branches| each.
     *
     * @throws IllegalArgumentException naming the choice's id if the profile gives a different
     *                                  number of probabilities than the choice has branches
     */
    public static List<Double> probabilities(Activity.Choice choice, Profile profile) {
        int n = choice.branches().size();
        List<Double> given = profile.branchProbabilities().get(choice.id());
        if (given != null) {
            if (given.size() != n) throw new IllegalArgumentException("branchProbabilities[" + choice.id() + "] has "
                    + given.size() + " entries, the activity has " + n + " branches");
            return given;
        }
        if (n == 0) return List.of();
        List<Double> equal = new ArrayList<>(n);
        for (int b = 0; b < n; b++) equal.add(1.0 / n);
        return List.copyOf(equal);
    }

    /** Expected iterations of {@code loop}: the profile's or 1; at least 1 for a repeatUntil. */
    public static double iterations(Activity.Loop loop, Profile profile) {
        double n = profile.iterations().getOrDefault(loop.id(), 1.0);
        return loop.kind() == Activity.Loop.Kind.REPEAT_UNTIL ? Math.max(1.0, n) : n;
    }

    /** Expected branches N of a parallel forEach: the profile's or 1. */
    public static double copies(Activity.ParallelForEach forEach, Profile profile) {
        return profile.iterations().getOrDefault(forEach.id(), 1.0);
    }
}
