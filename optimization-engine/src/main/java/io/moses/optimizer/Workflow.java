package io.moses.optimizer;

import io.moses.model.Activity;
import io.moses.model.TaskRef;
import io.moses.model.Visits;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The response time of an activity tree from per-task times (docs/model.md, "Workflow and visits"):
 * sums along sequences, probability-weighted sums over choices, iterations times the body for
 * loops, and the max over flow branches. Tasks, visits, branch probabilities and iterations come
 * from the one shared walker, {@link Visits}.
 */
final class Workflow {
    private Workflow() {}

    /** R of the tree given each task's expected time. */
    static double responseTime(Activity a, Visits.Profile p, ToDoubleFunction<TaskRef> taskTime) {
        if (a instanceof Activity.Invoke i) return taskTime.applyAsDouble(i.task());
        if (a instanceof Activity.Sequence s) return s.children().stream().mapToDouble(c -> responseTime(c, p, taskTime)).sum();
        if (a instanceof Activity.Flow f)
            return f.branches().stream().mapToDouble(b -> responseTime(b, p, taskTime)).max().orElse(0);
        if (a instanceof Activity.Choice c) {
            List<Double> probs = Visits.probabilities(c, p);
            double r = 0;
            for (int b = 0; b < c.branches().size(); b++) r += probs.get(b) * responseTime(c.branches().get(b), p, taskTime);
            return r;
        }
        if (a instanceof Activity.Loop l) return Visits.iterations(l, p) * responseTime(l.body(), p, taskTime);
        if (a instanceof Activity.ParallelForEach f) return Visits.copies(f, p) > 0 ? responseTime(f.body(), p, taskTime) : 0;
        return 0; // NoOp
    }
}
