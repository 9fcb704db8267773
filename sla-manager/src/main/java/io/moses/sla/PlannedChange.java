package io.moses.sla;

import io.moses.mdal.KnowledgeBaseException;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A management change that is stored, then re-planned before the reply, and undone if the
 * re-plan fails: the caller then finds the knowledge base as it was before the call.
 */
final class PlannedChange {
    private static final Logger log = LoggerFactory.getLogger(PlannedChange.class);

    private PlannedChange() {}

    /**
     * Runs {@code store} (its knowledge-base failure refused with {@code translate}), then re-plans
     * leaving out {@code without}; if that fails, runs {@code undo} and refuses as UNAVAILABLE.
     */
    static Planning.Replanned apply(Planning planning, Runnable store, Function<KnowledgeBaseException, SlaException> translate,
                                    String why, Set<String> without, Runnable undo) {
        SlaException.orRefuse(() -> {
            store.run();
            return null;
        }, translate);
        try {
            return planning.replan(why, without);
        } catch (RuntimeException e) {
            try {
                undo.run();
            } catch (RuntimeException u) {
                log.error("could not undo ({}) after a failed re-plan: {}", why, u.getMessage());
            }
            throw new SlaException(SlaException.Code.UNAVAILABLE, "the change could not be planned (" + e.getMessage() + "); it was undone");
        }
    }
}
