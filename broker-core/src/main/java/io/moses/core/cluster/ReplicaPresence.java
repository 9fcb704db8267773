package io.moses.core.cluster;

import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.KnowledgeBaseException;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many replicas share the users' agreed rates: each replica writes a heartbeat to the
 * knowledge base (on the lease's renewal timer) and counts the replicas seen within the lease's
 * ttl. A killed replica stops being counted within the ttl; one that stops leaves at once.
 * While the database is away the last count stands.
 */
public final class ReplicaPresence {
    private static final Logger log = LoggerFactory.getLogger(ReplicaPresence.class);

    private final KnowledgeBase kb;
    private final String replica;
    private final Duration ttl;
    private final Clock wall;
    private volatile int live = 1;

    /** @param wall the broker's wall clock, which the heartbeats are stamped and counted on */
    public ReplicaPresence(KnowledgeBase kb, String replica, Duration ttl, Clock wall) {
        this.kb = kb;
        this.replica = replica;
        this.ttl = ttl;
        this.wall = wall;
    }

    /** One heartbeat; returns the live replicas (this one included). Off the request path. */
    public int beat() {
        try {
            int n = Math.max(1, kb.replicaHeartbeat(replica, wall.instant(), ttl));
            if (n != live) log.info("{} live replicas share the users' agreed rates (was {})", n, live);
            live = n;
        } catch (KnowledgeBaseException e) {
            // the database is away: keep the last count (the lease and the cache say so in the log)
        }
        return live;
    }

    public void leave() {
        try {
            kb.leaveReplicas(replica);
        } catch (KnowledgeBaseException e) {
            // it is no longer counted once its heartbeat is older than the ttl
        }
    }
}
