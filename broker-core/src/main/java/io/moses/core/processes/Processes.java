package io.moses.core.processes;

import io.moses.core.composition.BehavioralModelBuilder;
import io.moses.core.engine.BpelEngine;
import io.moses.core.engine.Bundle;
import io.moses.core.engine.ProvidedService;
import io.moses.core.frontend.Authenticator;
import io.moses.core.frontend.HttpFrontEnd;
import io.moses.core.frontend.RequestMetrics;
import io.moses.mdal.KnowledgeBase;
import io.moses.model.CompositeService;
import jakarta.servlet.http.HttpServlet;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The deployment units of one replica: each deployed on the engine, its processes' behavioral
 * models stored (the Composition Manager's part) and its provided services served, or (on any
 * refusal) nothing at all; the cluster's units kept in step ({@link ProcessSync}) and the
 * operators' {@code /admin/processes} ({@link ProcessesServlet}).
 */
public final class Processes {
    private static final Logger log = LoggerFactory.getLogger(Processes.class);

    private final BpelEngine engine;
    private final KnowledgeBase kb;
    private final HttpFrontEnd http;
    private final Authenticator authenticator;
    private final RequestMetrics timers;
    private final Duration requestTimeout;
    private final Path workDir;
    private final Consumer<String> solveNow;
    private final ProcessSync sync;
    private final List<ProvidedService> services = new java.util.concurrent.CopyOnWriteArrayList<>(); // /health reads it while units are deployed
    private final Map<String, CompositeService> composites = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * @param replica        this replica's name in the cluster
     * @param requestTimeout how long a request to a provided service may take
     * @param workDir        where uploaded bundles are unpacked (under {@code uploads/})
     * @param replan         a new plan now, for why (the units deployed and undeployed are planned for)
     */
    public Processes(BpelEngine engine, KnowledgeBase kb, HttpFrontEnd http, Authenticator authenticator, RequestMetrics timers,
                     Duration requestTimeout, Path workDir, String replica, Consumer<String> replan) {
        this.engine = engine;
        this.kb = kb;
        this.http = http;
        this.authenticator = authenticator;
        this.timers = timers;
        this.requestTimeout = requestTimeout;
        this.workDir = workDir;
        this.solveNow = replan;
        this.sync = new ProcessSync(this, kb.processUnits(), replica);
    }

    /** GET, POST, PUT and DELETE /admin/processes[/NAME]. */
    public HttpServlet servlet() {
        return new ProcessesServlet(sync);
    }

    /** At start, before the replica is ready: the --deploy directories and every stored unit. */
    public void deployAtStart(List<Path> dirs) {
        sync.deployAtStart(dirs);
    }

    /** Applies what other replicas changed (off the request path, on a timer). */
    public void poll() {
        sync.poll();
    }

    /** The stored units this replica could not apply. */
    public List<String> failedHere() {
        return sync.failedHere();
    }

    /** On stop: this replica no longer reports on the stored units. */
    public void forgetReplica() {
        sync.forgetReplica();
    }

    /** The composite services deployed here (the loop plans for these). */
    public Collection<CompositeService> composites() {
        return composites.values();
    }

    /** The composite services' endpoints this replica provides (under /services/), not the concrete services it calls. */
    public List<ProvidedService> providedServices() {
        return services;
    }

    /**
     * Deploys a unit, stores the behavioral model of each of its processes (the Composition
     * Manager's part) and serves its provided services.
     */
    BpelEngine.Deployment deploy(Path unit) {
        BpelEngine.Deployment d = engine.deploy(unit);
        for (Path bpel : d.processes().values()) {
            CompositeService model = BehavioralModelBuilder.build(bpel);
            kb.putCompositeService(model);
            composites.put(model.name(), model);
        }
        for (ProvidedService s : d.services()) {
            http.publish(engine, s, requestTimeout, authenticator, timers);
            services.add(s);
        }
        return d;
    }

    private final Object processes = new Object();

    /** The deployed units. */
    public List<BpelEngine.Deployment> deployments() {
        return engine.deployments();
    }

    /**
     * Deploys a process bundle (a zip of a deployment unit) as a new unit {@code name}:
     * compiled, modelled, served and planned for, or (on any refusal) nothing at all.
     *
     * <p>{@code replan} is false for a unit applied from the knowledge base (the replica that took
     * the change has planned for it) and at start (the first plan follows).
     *
     * @throws io.moses.core.engine.DeploymentException with the reason (ODE's compiler messages included)
     */
    BpelEngine.Deployment deployBundle(String name, byte[] zip, boolean replan) {
        synchronized (processes) {
            Path upload = uploadDir();
            try {
                return deployUnpacked(name, Bundle.unpack(zip, upload, name), replan);
            } finally {
                deleteQuietly(upload); // the engine deployed its own copy, or nothing; or the bundle was refused half unpacked
            }
        }
    }

    private BpelEngine.Deployment deployUnpacked(String name, Path dir, boolean replan) {
        BpelEngine.Deployment d = engine.deploy(dir); // ODE's compiler first: its messages are the ones a BPEL author needs
        List<CompositeService> models;
        try {
            models = models(dir);
        } catch (RuntimeException e) {
            engine.undeploy(name);
            throw e;
        }
        try {
            for (CompositeService m : models) kb.putCompositeService(m);
        } catch (RuntimeException e) {
            engine.undeploy(name);
            models.forEach(m -> removeModelQuietly(m.name()));
            throw e;
        }
        models.forEach(m -> composites.put(m.name(), m));
        for (ProvidedService s : d.services()) {
            http.publish(engine, s, requestTimeout, authenticator, timers);
            services.add(s);
        }
        if (replan) replan("process " + name + " deployed");
        return d;
    }

    /**
     * Deploys a new version of unit {@code name} while requests run: running requests finish on
     * the old version, new ones start on the new one. Nothing changes if it is refused.
     */
    BpelEngine.Deployment redeployBundle(String name, byte[] zip, boolean replan) {
        synchronized (processes) {
            Path upload = uploadDir();
            try {
                return redeployUnpacked(name, Bundle.unpack(zip, upload, name), replan);
            } finally {
                deleteQuietly(upload); // the engine deployed its own copy, or nothing; or the bundle was refused half unpacked
            }
        }
    }

    private BpelEngine.Deployment redeployUnpacked(String name, Path dir, boolean replan) {
        List<CompositeService> models = models(dir);
        BpelEngine.Deployment d = engine.redeploy(name, dir);
        for (CompositeService m : models) {
            try {
                kb.putCompositeService(m);
            } catch (RuntimeException e) {
                log.warn("redeploy of {}: behavioral model of {} not stored ({}); the next start stores it", name, m.name(), e.getMessage());
            }
            composites.put(m.name(), m);
        }
        if (replan) replan("process " + name + " redeployed");
        return d;
    }

    /**
     * The unfinished durable instances of unit {@code name}, which could not continue once it is undeployed.
     *
     * @throws io.moses.core.engine.InstanceRefusal when the knowledge base does not answer
     */
    List<Long> unfinishedInstances(String name) {
        return engine.unfinishedInstances(name);
    }

    /** Terminates each of these instances that has not finished meanwhile; returns how many it terminated. */
    int terminate(List<Long> instances) {
        int n = 0;
        for (long id : instances) {
            try {
                engine.terminate(id);
                n++;
            } catch (io.moses.core.engine.InstanceRefusal e) {
                if (e.reason == io.moses.core.engine.InstanceRefusal.Reason.UNAVAILABLE) throw e;
                // it finished, or was purged, meanwhile: nothing to end
            }
        }
        return n;
    }

    /** Removes unit {@code name}: its services are no longer served, its composites no longer planned for. */
    void undeployUnit(String name, boolean replan) {
        synchronized (processes) {
            BpelEngine.Deployment d = engine.deployments().stream().filter(x -> x.name().equals(name)).findFirst()
                    .orElseThrow(() -> new io.moses.core.engine.DeploymentException("no deployed unit '" + name + "'"));
            for (ProvidedService s : engine.undeploy(name)) {
                http.unpublish(s);
                services.removeIf(x -> x.service().equals(s.service()));
            }
            for (javax.xml.namespace.QName process : d.processes().keySet()) {
                composites.remove(process.getLocalPart());
                removeModelQuietly(process.getLocalPart());
            }
            if (replan) replan("process " + name + " undeployed");
        }
    }

    /** The behavioral models of every process in an unpacked unit, built before anything is deployed. */
    private static List<CompositeService> models(Path dir) {
        try (var files = java.nio.file.Files.walk(dir)) {
            List<CompositeService> out = new ArrayList<>();
            for (Path bpel : files.filter(f -> f.toString().endsWith(".bpel")).sorted().toList()) out.add(BehavioralModelBuilder.build(bpel));
            return out;
        } catch (java.io.IOException e) {
            throw new io.moses.core.engine.DeploymentException("cannot read the unpacked bundle: " + e.getMessage());
        } catch (io.moses.core.engine.DeploymentException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new io.moses.core.engine.DeploymentException("the process cannot be modelled: " + e.getMessage());
        }
    }

    private Path uploadDir() {
        return workDir.resolve("uploads").resolve(Long.toString(System.nanoTime(), 36));
    }

    private void removeModelQuietly(String composite) {
        try {
            kb.removeCompositeService(composite);
        } catch (RuntimeException e) {
            log.warn("behavioral model of {} not removed: {}", composite, e.getMessage());
        }
    }

    private static void deleteQuietly(Path dir) {
        if (dir == null) return;
        try (var files = java.nio.file.Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (java.io.IOException | RuntimeException ignored) {
            // a leftover upload directory is harmless
        }
    }

    private void replan(String why) {
        try {
            solveNow.accept(why);
        } catch (RuntimeException e) {
            log.warn("re-plan after {} failed: {}", why, e.getMessage());
        }
    }
}
