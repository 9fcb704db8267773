package io.moses.core.operations;

import io.moses.core.frontend.RatePolicing;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.KnowledgeBaseException;
import io.moses.model.SlaEvent;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A user that has run above its agreed rate for the policing's window becomes one SLA event
 * ({@code OVER_RATE}, with its class and name) per episode, on the console's events and
 * {@code /admin/events}. In a cluster every replica the user's excess reaches sees an episode of
 * its own: each writes its view of it to the knowledge base at each policing tick while it lasts
 * ({@link KnowledgeBase#overRateEpisode}), and only the replica that begins the cluster's episode
 * records the event; the others log one line that it is already reported.
 */
public final class OverRateEvents {
    private static final Logger log = LoggerFactory.getLogger(OverRateEvents.class);
    private final KnowledgeBase kb;
    private final Clock wall;

    /** @param wall the broker's wall clock, which the events are stamped on */
    public OverRateEvents(KnowledgeBase kb, Clock wall) {
        this.kb = kb;
        this.wall = wall;
    }

    /** Off the request path (the policing's timer), at each tick while the episode lasts. */
    public void record(RatePolicing.Episode e) {
        boolean begun;
        try {
            begun = kb.overRateEpisode(e.user().name(), e.since(), e.last(), RatePolicing.EPISODE_WINDOW);
        } catch (KnowledgeBaseException ex) {
            // the database is away: the event is in the log, once; a later tick of the same episode may still store it
            if (e.first()) log.warn("SLA event (not stored, knowledge base unavailable): {}", e.detail());
            return;
        }
        if (!begun) {
            if (e.first()) log.info("over-rate episode already reported by another replica: {}", e.detail());
            return;
        }
        log.warn("SLA event: {}", e.detail());
        try {
            kb.recordSlaEvent(new SlaEvent(wall.instant(), SlaEvent.Kind.OVER_RATE, e.user().serviceClass(), e.user().name(), e.detail()));
        } catch (KnowledgeBaseException ex) {
            // the database went away in between: the event is in the log line above
        }
    }
}
