package io.moses.core.composition;

import io.moses.model.Activity;
import java.util.ArrayList;
import java.util.List;

/** Test helper: walks an activity tree. */
final class ModelTrees {
    private ModelTrees() {}

    /** Every id of the tree, pre-order. */
    static List<String> ids(Activity root) {
        List<String> out = new ArrayList<>();
        collect(root, out);
        return out;
    }

    private static void collect(Activity a, List<String> out) {
        out.add(a.id());
        if (a instanceof Activity.Sequence s) s.children().forEach(c -> collect(c, out));
        else if (a instanceof Activity.Flow f) f.branches().forEach(c -> collect(c, out));
        else if (a instanceof Activity.Choice c) c.branches().forEach(b -> collect(b, out));
        else if (a instanceof Activity.Loop l) collect(l.body(), out);
        else if (a instanceof Activity.ParallelForEach p) collect(p.body(), out);
    }
}
