package io.moses.core.operations;

import io.moses.core.frontend.RatePolicing;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.KnowledgeBaseException;
import io.moses.model.SlaEvent;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A user that has run above its agreed rate for the policing's window becomes one SLA event
 * ({@code OVER_RATE}, with its class and name) per episode, on the console's events and
 * {@code /admin/events}. Each replica reports what it sees: in a cluster an episode may be
 * reported once by each replica the user's requests reach.
 */
public final class OverRateEvents {
    private static final Logger log = LoggerFactory.getLogger(OverRateEvents.class);
    private final KnowledgeBase kb;

    public OverRateEvents(KnowledgeBase kb) {
        this.kb = kb;
    }

    /** Off the request path (the policing's timer). */
    public void record(RatePolicing.Episode e) {
        log.warn("SLA event: {}", e.detail());
        try {
            kb.recordSlaEvent(new SlaEvent(Instant.now(), SlaEvent.Kind.OVER_RATE, e.user().serviceClass(), e.user().name(), e.detail()));
        } catch (KnowledgeBaseException ex) {
            // the database is away: the event is in the log line above
        }
    }
}
