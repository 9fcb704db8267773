package io.moses.core.processes;

import io.moses.core.engine.BpelEngine;
import io.moses.core.engine.DeploymentException;
import io.moses.core.engine.ProvidedService;
import io.moses.mdal.KnowledgeBaseException;
import io.moses.mdal.ProcessUnit;
import io.moses.mdal.ProcessUnitState;
import io.moses.mdal.ProcessUnits;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deployment units are the cluster's. A unit deployed, redeployed or undeployed
 * through this replica's admin API is applied here first (so a bundle the engine refuses is
 * stored nowhere), then stored in the knowledge base with the next version; every replica polls
 * that version (once a second, off the request path) and applies what changed, and records the
 * version it applied or the error it met. At start, every stored unit is deployed before the
 * replica says UP.
 *
 * <p>A {@code --deploy} directory is this replica's own: it is deployed from disk unless the
 * knowledge base holds a unit of the same name, which then wins (its bundle is deployed, or, for
 * an undeployed unit, nothing). Only a change through the admin API stores a unit.
 *
 * <p>One lock orders the API's changes and the poll on this replica; the knowledge base's version
 * sequence orders changes across replicas.
 */
final class ProcessSync {
    private static final Logger log = LoggerFactory.getLogger(ProcessSync.class);

    /** What became of a stored version here: applied, or failed with {@code error}; recorded in the knowledge base or not yet. */
    private record Outcome(long version, String error, boolean recorded) {}

    /** An answer the admin API turns into its status (404, 409). */
    static final class Refusal extends RuntimeException {
        final int status;

        Refusal(int status, String message) {
            super(message);
            this.status = status;
        }
    }

    private final Processes processes;
    private final ProcessUnits units;
    private final String replica;
    /** Per unit, what this replica deploys again to undo a redeploy the knowledge base did not take: a zip, or a --deploy directory. */
    private final Map<String, Object> sources = new HashMap<>();
    private final Map<String, Outcome> outcomes = new java.util.concurrent.ConcurrentHashMap<>(); // the listing reads it unlocked
    private long seen = -1;

    ProcessSync(Processes processes, ProcessUnits units, String replica) {
        this.processes = processes;
        this.units = units;
        this.replica = replica;
    }

    /** At start, before the replica is ready: the --deploy directories and every stored unit. */
    synchronized void deployAtStart(List<Path> dirs) {
        Map<String, ProcessUnit> stored;
        long version;
        try {
            version = units.version();
            stored = byName(units.units());
        } catch (KnowledgeBaseException e) {
            log.warn("stored process units not read at start ({}); they are deployed when the knowledge base answers", e.getMessage());
            version = -1;
            stored = Map.of();
        }
        for (Path dir : dirs) {
            String name = dir.toAbsolutePath().normalize().getFileName().toString();
            ProcessUnit u = stored.get(name);
            if (u != null) {
                log.info("--deploy {}: the knowledge base holds unit {} (version {}{}), which wins", dir, name, u.version(),
                        u.deleted() ? ", undeployed" : "");
                continue;
            }
            processes.deploy(dir); // a --deploy unit that fails stops the start, as before
            sources.put(name, dir);
        }
        try {
            for (ProcessUnit u : stored.values()) apply(u);
        } catch (KnowledgeBaseException e) {
            log.warn("stored process units not all deployed at start ({}); the next poll goes on", e.getMessage());
            version = -1;
        }
        seen = version;
    }

    /** Applies what changed in the knowledge base since the last poll; cheap (one number) when nothing did. */
    synchronized void poll() {
        try {
            long version = units.version();
            if (version == seen && outcomes.values().stream().allMatch(Outcome::recorded)) return;
            for (ProcessUnit u : units.units()) apply(u);
            seen = version;
        } catch (KnowledgeBaseException e) {
            log.debug("process units not polled: {}", e.getMessage()); // the knowledge refresh reports outages
        }
    }

    /** Brings unit {@code u} here to its stored version, if this replica has not dealt with that version yet. */
    private void apply(ProcessUnit u) {
        Outcome done = outcomes.get(u.name());
        if (done != null && done.version() == u.version()) {
            if (!done.recorded()) record(u.name(), done.version(), done.error());
            return;
        }
        String error = null;
        try {
            if (u.deleted()) {
                if (deployedHere(u.name())) {
                    processes.undeployUnit(u.name(), false);
                    log.info("unit {} undeployed (version {} by {})", u.name(), u.version(), u.changedBy());
                }
                sources.remove(u.name());
            } else {
                byte[] zip = units.bundle(u.name(), u.version()).orElse(null);
                if (zip == null) return; // changed again meanwhile: the next poll sees the newer version
                if (deployedHere(u.name())) processes.redeployBundle(u.name(), zip, false);
                else processes.deployBundle(u.name(), zip, false);
                sources.put(u.name(), zip);
                log.info("unit {} version {} deployed (stored by {})", u.name(), u.version(), u.changedBy());
            }
        } catch (KnowledgeBaseException e) {
            throw e; // not this unit's fault: the next poll tries again
        } catch (RuntimeException e) {
            error = e.getMessage() == null ? e.toString() : e.getMessage();
            log.warn("unit {} version {} not deployed on this replica: {}", u.name(), u.version(), error);
        }
        record(u.name(), u.version(), error);
    }

    private void record(String unit, long version, String error) {
        boolean recorded;
        try {
            units.recordApplied(replica, unit, version, error);
            recorded = true;
        } catch (KnowledgeBaseException e) {
            recorded = false; // recorded at a later poll
        }
        outcomes.put(unit, new Outcome(version, error, recorded));
    }

    /** The stored units this replica failed to apply and their versions, for /health (public: the errors are in /admin/processes). */
    List<String> failedHere() {
        return outcomes.entrySet().stream().filter(e -> e.getValue().error() != null)
                .map(e -> e.getKey() + " version " + e.getValue().version()).sorted().toList();
    }

    // ------------------------------------------------------------------ the admin API's changes

    /** POST: deploys here, then stores; nothing stays here if the knowledge base does not take it. */
    synchronized Map<String, Object> deploy(String name, byte[] zip) {
        poll();
        if (deployedHere(name) || storedLive(name))
            throw new Refusal(409, "unit '" + name + "' is deployed: PUT a new version or DELETE it first");
        BpelEngine.Deployment d = processes.deployBundle(name, zip, true);
        ProcessUnit u;
        try {
            u = units.store(name, zip, replica);
        } catch (KnowledgeBaseException e) {
            processes.undeployUnit(name, true);
            throw e;
        }
        sources.put(name, zip);
        record(name, u.version(), null);
        return describe(d, u);
    }

    /** PUT: the new version here, then stored; the previous version comes back here if the knowledge base does not take it. */
    synchronized Map<String, Object> redeploy(String name, byte[] zip) {
        poll();
        if (!deployedHere(name)) {
            if (!storedLive(name)) throw new Refusal(404, "no deployed unit '" + name + "': POST to deploy it");
            // stored, but it failed here: this version may deploy
            BpelEngine.Deployment d = processes.deployBundle(name, zip, true);
            return stored(name, zip, d, () -> processes.undeployUnit(name, true));
        }
        Object previous = sources.get(name);
        BpelEngine.Deployment d = processes.redeployBundle(name, zip, true);
        return stored(name, zip, d, () -> {
            if (previous != null) processes.redeployBundle(name, previous instanceof byte[] b ? b : io.moses.core.engine.Bundle.zip((Path) previous), true);
        });
    }

    private Map<String, Object> stored(String name, byte[] zip, BpelEngine.Deployment d, Runnable undo) {
        ProcessUnit u;
        try {
            u = units.store(name, zip, replica);
        } catch (KnowledgeBaseException e) {
            try {
                undo.run();
            } catch (RuntimeException r) {
                log.warn("unit {}: the new version stays on this replica only ({})", name, r.getMessage());
            }
            throw e;
        }
        sources.put(name, zip);
        record(name, u.version(), null);
        return describe(d, u);
    }

    /**
     * DELETE: stored first (a tombstone), then undeployed here; nothing changes if the knowledge
     * base does not take it. Refused while durable instances of the unit are unfinished (they could
     * not continue), unless {@code terminate}: they are terminated first, and those that started
     * here meanwhile after.
     */
    synchronized Map<String, Object> undeploy(String name, boolean terminate) {
        poll();
        boolean here = deployedHere(name);
        if (!here && !storedLive(name)) throw new Refusal(404, "no deployed unit '" + name + "'");
        List<Long> unfinished = unfinished(name);
        if (!unfinished.isEmpty() && !terminate)
            throw new Refusal(409, "unit '" + name + "' has " + unfinished.size() + " unfinished durable instance(s) (oldest: "
                    + unfinished.subList(0, Math.min(5, unfinished.size())) + "), which could not continue once it is undeployed:"
                    + " let them finish, terminate them (moses admin instances terminate ID), or undeploy with ?terminate=true"
                    + " (moses admin processes undeploy " + name + " --terminate), which terminates them first");
        int terminated = terminate(unfinished);
        ProcessUnit u = units.store(name, null, replica);
        if (here) processes.undeployUnit(name, true);
        sources.remove(name);
        record(name, u.version(), null);
        if (terminate) terminated += terminate(unfinished(name));
        if (terminated > 0) log.info("unit {} undeployed: {} unfinished durable instance(s) terminated", name, terminated);
        return Map.of("undeployed", name, "version", u.version(), "terminated", terminated);
    }

    private List<Long> unfinished(String name) {
        try {
            return processes.unfinishedInstances(name);
        } catch (io.moses.core.engine.InstanceRefusal e) {
            throw new Refusal(503, "the durable instances of '" + name + "' were not counted: " + e.getMessage());
        }
    }

    private int terminate(List<Long> instances) {
        try {
            return processes.terminate(instances);
        } catch (io.moses.core.engine.InstanceRefusal e) {
            throw new Refusal(503, "the unfinished durable instances were not all terminated: " + e.getMessage());
        }
    }

    /** A replica that stops takes its states out of the listing. */
    synchronized void forgetReplica() {
        try {
            units.forgetReplica(replica);
        } catch (KnowledgeBaseException e) {
            log.info("process unit states of {} stay in the knowledge base: {}", replica, e.getMessage());
        }
    }

    // ------------------------------------------------------------------ the listing

    /**
     * Every unit this replica serves or the knowledge base holds: its stored version, where it
     * comes from, its processes and services here, and each replica's version or error.
     */
    List<Map<String, Object>> describeAll() {
        Map<String, BpelEngine.Deployment> here = processes.deployments().stream()
                .collect(Collectors.toMap(BpelEngine.Deployment::name, Function.identity(), (a, b) -> a, TreeMap::new));
        Map<String, ProcessUnit> stored;
        Map<String, List<ProcessUnitState>> states;
        String unavailable = null;
        try {
            stored = byName(units.units());
            states = units.states().stream().collect(Collectors.groupingBy(ProcessUnitState::unit));
        } catch (KnowledgeBaseException e) {
            stored = Map.of();
            states = Map.of();
            unavailable = "knowledge base unavailable: " + e.getMessage();
        }
        TreeSet<String> names = new TreeSet<>(here.keySet());
        names.addAll(stored.keySet());
        List<Map<String, Object>> out = new java.util.ArrayList<>();
        for (String name : names) {
            ProcessUnit u = stored.get(name);
            Map<String, Object> m = describe(here.get(name), u);
            m.put("name", name);
            if (u == null) {
                m.put("source", unavailable != null ? unavailable : "--deploy of this replica (not stored)");
            } else {
                Map<String, Object> replicas = new TreeMap<>();
                boolean converged = true;
                for (ProcessUnitState s : states.getOrDefault(name, List.of())) {
                    Map<String, Object> r = new LinkedHashMap<>();
                    r.put("version", s.version());
                    if (s.failed()) r.put("error", s.error());
                    r.put("at", s.at().toString());
                    replicas.put(s.replica(), r);
                    converged &= s.version() == u.version() && !s.failed();
                }
                m.put("source", "knowledge base");
                m.put("replicas", replicas);
                m.put("converged", converged);
            }
            out.add(m);
        }
        return out;
    }

    private Map<String, Object> describe(BpelEngine.Deployment d, ProcessUnit u) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", d != null ? d.name() : u.name());
        m.put("version", u == null ? null : u.version());
        m.put("state", u != null && u.deleted() ? "undeployed" : "deployed");
        if (u != null) {
            m.put("changedBy", u.changedBy());
            m.put("updated", u.updated().toString());
        }
        m.put("deployedHere", d != null);
        m.put("replica", replica);
        m.put("processes", d == null ? List.of() : d.processes().keySet().stream().map(Object::toString).toList());
        m.put("services", d == null ? List.of() : d.services().stream().map(ProvidedService::path).map(p -> "/services" + p).toList());
        m.put("modes", d == null ? Map.of() : modes(d));
        Outcome o = outcomes.get(m.get("name"));
        if (o != null && o.error() != null) m.put("error", o.error());
        return m;
    }

    /** Each process (named as in "processes") and its mode, "durable" or "in-memory", as deploy.xml says. */
    private static Map<String, String> modes(BpelEngine.Deployment d) {
        Map<String, String> modes = new TreeMap<>();
        for (javax.xml.namespace.QName p : d.processes().keySet()) modes.put(p.toString(), d.mode(p));
        return modes;
    }

    private boolean deployedHere(String name) {
        return processes.deployments().stream().anyMatch(d -> d.name().equals(name));
    }

    private boolean storedLive(String name) {
        return units.unit(name).map(u -> !u.deleted()).orElse(false);
    }

    private static Map<String, ProcessUnit> byName(List<ProcessUnit> list) {
        Map<String, ProcessUnit> m = new TreeMap<>();
        for (ProcessUnit u : list) m.put(u.name(), u);
        return m;
    }
}
