package io.moses.optimizer;

import io.moses.model.Activity;
import io.moses.model.TaskRef;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * Walks an activity tree with a class's profile: visits V_i (model.md section 1) and the
 * response time recomputed from per-task times (section 3, flows as the max of their branches).
 * The visits here are the seam for a shared io.moses.model visits function: same defaults
 * (equal branches, loops once).
 */
final class Workflow {
    private Workflow() {}

    /** V_i per task: product of branch probabilities and loop iterations along each invoke's path. */
    static Map<TaskRef, Double> visits(Activity root, PlanningInput.Profile profile) {
        Map<TaskRef, Double> v = new LinkedHashMap<>();
        visit(root, profile, 1.0, v);
        return v;
    }

    private static void visit(Activity a, PlanningInput.Profile p, double mult, Map<TaskRef, Double> v) {
        if (a instanceof Activity.Invoke i) v.merge(i.task(), mult, Double::sum);
        else if (a instanceof Activity.Sequence s) s.children().forEach(c -> visit(c, p, mult, v));
        else if (a instanceof Activity.Flow f) f.branches().forEach(b -> visit(b, p, mult, v));
        else if (a instanceof Activity.Choice c) {
            for (int b = 0; b < c.branches().size(); b++) visit(c.branches().get(b), p, mult * probability(c, b, p), v);
        } else if (a instanceof Activity.Loop l) visit(l.body(), p, mult * iterations(l, p), v);
        else if (a instanceof Activity.ParallelForEach f) visit(f.body(), p, mult * copies(f, p), v);
    }

    /** Every task the tree invokes, in document order. */
    static Set<TaskRef> tasks(Activity root) {
        Set<TaskRef> out = new LinkedHashSet<>();
        collect(root, out);
        return out;
    }

    private static void collect(Activity a, Set<TaskRef> out) {
        if (a instanceof Activity.Invoke i) out.add(i.task());
        else if (a instanceof Activity.Sequence s) s.children().forEach(c -> collect(c, out));
        else if (a instanceof Activity.Flow f) f.branches().forEach(b -> collect(b, out));
        else if (a instanceof Activity.Choice c) c.branches().forEach(b -> collect(b, out));
        else if (a instanceof Activity.Loop l) collect(l.body(), out);
        else if (a instanceof Activity.ParallelForEach f) collect(f.body(), out);
    }

    /** R of the tree given each task's expected time: sums, weighted sums, and max over flow branches. */
    static double responseTime(Activity a, PlanningInput.Profile p, ToDoubleFunction<TaskRef> taskTime) {
        if (a instanceof Activity.Invoke i) return taskTime.applyAsDouble(i.task());
        if (a instanceof Activity.Sequence s) return s.children().stream().mapToDouble(c -> responseTime(c, p, taskTime)).sum();
        if (a instanceof Activity.Flow f)
            return f.branches().stream().mapToDouble(b -> responseTime(b, p, taskTime)).max().orElse(0);
        if (a instanceof Activity.Choice c) {
            double r = 0;
            for (int b = 0; b < c.branches().size(); b++)
                r += probability(c, b, p) * responseTime(c.branches().get(b), p, taskTime);
            return r;
        }
        if (a instanceof Activity.Loop l) return iterations(l, p) * responseTime(l.body(), p, taskTime);
        if (a instanceof Activity.ParallelForEach f) return copies(f, p) > 0 ? responseTime(f.body(), p, taskTime) : 0;
        return 0; // NoOp
    }

    static double probability(Activity.Choice c, int branch, PlanningInput.Profile p) {
        var probs = p.branchProbabilities().get(c.id());
        if (probs == null) return 1.0 / c.branches().size();
        if (probs.size() != c.branches().size())
            throw new IllegalArgumentException("branchProbabilities[" + c.id() + "] has " + probs.size()
                    + " entries, the activity has " + c.branches().size() + " branches");
        return probs.get(branch);
    }

    static double iterations(Activity.Loop l, PlanningInput.Profile p) {
        double n = p.iterations().getOrDefault(l.id(), 1.0);
        return l.kind() == Activity.Loop.Kind.REPEAT_UNTIL ? Math.max(1.0, n) : n;
    }

    static double copies(Activity.ParallelForEach f, PlanningInput.Profile p) {
        return p.iterations().getOrDefault(f.id(), 1.0);
    }
}
