package io.moses.core.cluster;

import io.moses.core.engine.BpelEngine;
import io.moses.mdal.DurableTakeover;
import io.moses.mdal.KnowledgeBase;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable instances of a replica that is gone continue on a survivor. The optimizer leader
 * (one replica of the cluster at a time) looks, on its timer, for replicas that own durable
 * instances or jobs but whose presence heartbeat is older than the ttl, and takes each over in
 * one knowledge-base transaction: its instances (whose rows fence them, see the engine's
 * {@code InstanceOwners}), its jobs (timers that fall due fire here, once: the job's row is the
 * token ODE deletes in the job's own transaction) and the correlation values of its durable
 * conversations, which then route here. The engine then loads the jobs at once.
 */
public final class DurableTakeovers {
    private static final Logger log = LoggerFactory.getLogger(DurableTakeovers.class);

    private final KnowledgeBase kb;
    private final BpelEngine engine;
    private final String replica;
    private final Supplier<String> address;
    private final Duration ttl;
    private final Clock wall;
    private final BooleanSupplier leads;
    private final LongAdder instances = new LongAdder();

    /**
     * @param ttl   how old a heartbeat may be before its replica counts as gone (the presence's)
     * @param leads whether this replica leads now (only the leader takes over)
     */
    public DurableTakeovers(KnowledgeBase kb, BpelEngine engine, String replica, Supplier<String> address, Duration ttl, Clock wall,
                            BooleanSupplier leads) {
        this.kb = kb;
        this.engine = engine;
        this.replica = replica;
        this.address = address;
        this.ttl = ttl;
        this.wall = wall;
        this.leads = leads;
    }

    /** One look, off the request path; knowledge-base errors are the caller's (the next tick tries again). */
    public void poll() {
        if (!leads.getAsBoolean()) return;
        Set<String> owners = kb.durableOwners();
        owners.remove(replica);
        if (owners.isEmpty()) return;
        Set<String> live = kb.replicasSeen(wall.instant(), ttl);
        boolean registered = false;
        for (String gone : owners) {
            if (live.contains(gone)) continue;
            if (!registered) engine.registerVersionsOfUnfinished(); // before their messages can run here
            registered = true;
            DurableTakeover t = kb.takeOverDurable(gone, replica, address.get(), engine::durableProcess);
            if (!t.movedAny()) continue;
            instances.add(t.instances());
            log.info("took over replica {}, gone for over {} s: {} durable instance(s), {} job(s), {} conversation value(s) continue here",
                    gone, ttl.toSeconds(), t.instances(), t.jobs(), t.conversations());
            engine.loadDurableJobs();
        }
    }

    /** Durable instances this replica took over from replicas that were gone. */
    public long instancesTakenOver() {
        return instances.sum();
    }
}
