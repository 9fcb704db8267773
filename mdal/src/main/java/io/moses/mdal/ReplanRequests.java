package io.moses.mdal;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Re-plans asked of the optimizer leader through the knowledge base (decisions are the
 * leader's). A replica that stored a change and needs a plan for it, and does not lead, asks here
 * and waits for the answer; the leader takes every pending request, solves once for all of them,
 * and answers each with the plan version that serves it. Errors as in {@link KnowledgeBase}.
 */
public interface ReplanRequests {

    /** A request: why, the services to plan without, who asked; {@code planVersion} once answered (0: no new plan). */
    record Request(String id, String reason, Set<String> without, String requestedBy, long requestedMs,
                   Long planVersion, String answer) {
        public Request {
            without = Set.copyOf(without);
        }

        public boolean answered() {
            return planVersion != null;
        }
    }

    /** Stores a new request and returns its id. */
    String ask(String reason, Set<String> without, String requestedBy);

    /** The requests not answered yet, by the time they were asked (those of one millisecond in any order). */
    List<Request> pending();

    /**
     * Answers requests {@code ids} with the plan that serves them ({@code planVersion}, or 0 when
     * no new plan could be made) and a one-line {@code answer}; also forgets answered requests
     * older than an hour.
     */
    void answer(List<String> ids, long planVersion, String answer);

    Optional<Request> request(String id);
}
