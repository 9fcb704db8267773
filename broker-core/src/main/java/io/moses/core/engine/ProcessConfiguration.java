package io.moses.core.engine;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Date;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.wsdl.Definition;
import javax.xml.namespace.QName;
import org.apache.ode.bpel.dd.TDeployment;
import org.apache.ode.bpel.dd.TInvoke;
import org.apache.ode.bpel.dd.TProvide;
import org.apache.ode.bpel.evt.BpelEvent;
import org.apache.ode.bpel.iapi.Endpoint;
import org.apache.ode.bpel.iapi.EndpointReference;
import org.apache.ode.bpel.iapi.ProcessConf;
import org.apache.ode.bpel.iapi.ProcessState;
import org.apache.ode.bpel.o.OFailureHandling;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * ODE's view of one deployed process. Our own implementation (ODE's lives in its JPA-backed
 * process store, which we do not use).
 *
 * <p>deploy.xml decides where instances live, with ODE's rule: {@code <in-memory>true</in-memory>}
 * runs them in memory (no database call on the request path); absent or false keeps them in the
 * knowledge base, so that they outlive a restart.
 * A partner failure faults the invoke (ODE's default would park the instance waiting for an
 * operator), unless deploy.xml sets its own failure handling.
 */
final class ProcessConfiguration implements ProcessConf {
    private final DeploymentUnit unit;
    private final TDeployment.Process info;
    private final QName type;
    private final QName pid;
    private final Date deployed = new Date();
    private final Map<String, Endpoint> provides = new HashMap<>();
    private final Map<String, Endpoint> invokes = new HashMap<>();
    private final Map<String, PartnerRoleConfig> partnerConfig = new HashMap<>();
    private final Map<QName, Node> properties = new HashMap<>();
    /** Whether the process declares correlation sets: only then are the values it writes told (for other replicas). */
    private final boolean correlates;
    private final boolean inMemory;

    /** @param durableStore whether the engine keeps durable instances (without, every process runs in memory) */
    ProcessConfiguration(DeploymentUnit unit, TDeployment.Process info, boolean durableStore) {
        this.unit = unit;
        this.info = info;
        this.inMemory = !durableStore || !asksDurable(info);
        this.type = info.getType() != null ? info.getType() : info.getName();
        // a durable process's id outlives the broker: its instances, routes and jobs name it, and the
        // same unit deployed after a restart must find them (the version counter starts again at 1);
        // an int, as ODE reads the part after the last '-' as one when it redeploys (28 bits of the digest)
        this.pid = new QName(info.getName().getNamespaceURI(), info.getName().getLocalPart() + "-" + (inMemory ? unit.version : Integer.parseInt(unit.digest.substring(0, 7), 16)));
        for (TProvide p : info.getProvideArray()) {
            if (p.getService() == null)
                throw new DeploymentException("deploy.xml: <provide partnerLink=\"" + p.getPartnerLink() + "\"> names no service");
            provides.put(p.getPartnerLink(), new Endpoint(p.getService().getName(), p.getService().getPort()));
        }
        for (TInvoke i : info.getInvokeArray()) {
            if (i.getService() != null)
                invokes.put(i.getPartnerLink(), new Endpoint(i.getService().getName(), i.getService().getPort()));
            OFailureHandling handling = new OFailureHandling();
            handling.faultOnFailure = true;
            if (i.isSetFailureHandling()) {
                var f = i.getFailureHandling();
                if (f.isSetFaultOnFailure()) handling.faultOnFailure = f.getFaultOnFailure();
                if (f.isSetRetryFor()) handling.retryFor = f.getRetryFor();
                if (f.isSetRetryDelay()) handling.retryDelay = f.getRetryDelay();
            }
            partnerConfig.put(i.getPartnerLink(), new PartnerRoleConfig(handling, false));
        }
        for (TDeployment.Process.Property p : info.getPropertyArray())
            properties.put(p.getName(), p.getDomNode());
        Path source = unit.sources.get(type);
        this.correlates = source == null ? unit.sources.values().stream().anyMatch(ProcessConfiguration::declaresCorrelationSets)
                : declaresCorrelationSets(source);
    }

    /** ODE's rule: deploy.xml asks for durable instances unless it says {@code <in-memory>true</in-memory>}. */
    static boolean asksDurable(TDeployment.Process info) {
        return !(info.isSetInMemory() && info.getInMemory());
    }

    private static boolean declaresCorrelationSets(Path bpel) {
        try {
            return bpel != null && java.nio.file.Files.readString(bpel).contains("correlationSets");
        } catch (java.io.IOException | RuntimeException e) {
            return true; // unknown: tell them
        }
    }

    /** Whether the process declares correlation sets (its messages may belong to an existing instance). */
    boolean correlates() {
        return correlates;
    }

    TDeployment.Process info() {
        return info;
    }

    DeploymentUnit unit() {
        return unit;
    }

    @Override public QName getProcessId() { return pid; }
    @Override public QName getType() { return type; }
    @Override public long getVersion() { return unit.version; }
    /**
     * ODE's rule: in memory only when deploy.xml says {@code <in-memory>true</in-memory>}; absent or
     * false is durable, where the engine has a durable store (an engine without one, as in unit
     * tests, runs every process in memory).
     */
    @Override public boolean isTransient() { return inMemory; }

    @Override
    public InputStream getCBPInputStream() {
        try {
            return Files.newInputStream(unit.compiled.get(type));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public long getCBPFileSize() {
        return unit.compiled.get(type).toFile().length();
    }

    @Override
    public String getBpelDocument() {
        return unit.dir.relativize(unit.sources.get(type)).toString().replace(File.separatorChar, '/');
    }

    @Override public URI getBaseURI() { return unit.dir.toUri(); }
    @Override public Date getDeployDate() { return deployed; }
    @Override public String getDeployer() { return "moses"; }
    /**
     * The process id of the version of this process type that takes new requests, shared by
     * every version of the type; null while there is only one. One write switches a redeploy:
     * ODE reads the versions' states in deployment order, so a request never sees none active.
     */
    private volatile java.util.concurrent.atomic.AtomicReference<QName> activeVersion;

    @Override public ProcessState getState() {
        java.util.concurrent.atomic.AtomicReference<QName> a = activeVersion;
        return a == null || pid.equals(a.get()) ? ProcessState.ACTIVE : ProcessState.RETIRED;
    }

    /** Makes this configuration a version of {@code older}'s type; it takes requests after {@link #activate()}. */
    void succeed(ProcessConfiguration older) {
        if (older.activeVersion == null) older.activeVersion = new java.util.concurrent.atomic.AtomicReference<>(older.pid);
        activeVersion = older.activeVersion;
    }

    /** New requests of this process type start on this version from now on. */
    void activate() {
        if (activeVersion != null) activeVersion.set(pid);
    }

    /** The work directory of this version's unit. */
    Path unitDir() {
        return unit.dir;
    }

    QName type() {
        return type;
    }

    @Override
    public List<File> getFiles() {
        try (var files = Files.walk(unit.dir)) {
            return files.filter(Files::isRegularFile).map(Path::toFile).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override public Map<QName, Node> getProcessProperties() { return Map.copyOf(properties); }
    @Override public String getPackage() { return unit.name; }
    @Override public Definition getDefinitionForService(QName serviceName) { return unit.wsdls.getDefinition(serviceName); }
    @Override public Definition getDefinitionForPortType(QName portType) { return unit.wsdls.getDefinitionForPortType(portType); }
    @Override public Map<String, Endpoint> getProvideEndpoints() { return Map.copyOf(provides); }
    @Override public Map<String, Endpoint> getInvokeEndpoints() { return Map.copyOf(invokes); }
    @Override public Map<String, PartnerRoleConfig> getPartnerRoleConfig() { return Map.copyOf(partnerConfig); }
    @Override public boolean isSharedService(QName serviceName) { return false; }
    @Override public List<Element> getExtensionElement(QName qname) { return List.of(); }

    /** Only instance life-cycle events: the engine needs them to tell which request started which instance. */
    @Override
    public boolean isEventEnabled(List<String> scopeNames, BpelEvent.TYPE type) {
        // dataHandling carries the correlation values an instance initiates (CorrelationSetWriteEvent),
        // which other replicas need to route conversations; processes without correlation sets skip it
        return type == BpelEvent.TYPE.instanceLifecycle || (correlates && type == BpelEvent.TYPE.dataHandling);
    }

    @Override public Map<String, String> getEndpointProperties(EndpointReference epr) { return Map.of(); }

    /**
     * Finished in-memory instances leave nothing behind. A finished durable instance stays, with
     * its variables and messages, for the operator to look at until the engine purges it after
     * its retention: ODE's rule when deploy.xml sets no cleanup. Deleting it as it completes
     * also raced with the delivery of another instance's message: ODE's JPA store then read a
     * message route of the deleted instance and failed on it.
     */
    @Override
    public boolean isCleanupCategoryEnabled(boolean instanceSucceeded, CLEANUP_CATEGORY category) {
        return inMemory;
    }

    @Override
    public Set<CLEANUP_CATEGORY> getCleanupCategories(boolean instanceSucceeded) {
        return inMemory ? EnumSet.allOf(CLEANUP_CATEGORY.class) : EnumSet.noneOf(CLEANUP_CATEGORY.class);
    }

    @Override public List<CronJob> getCronJobs() { return List.of(); }
}
