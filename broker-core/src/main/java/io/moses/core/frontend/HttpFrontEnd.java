package io.moses.core.frontend;

import io.moses.core.engine.CompositeInvoker;
import io.moses.core.engine.ProvidedService;
import jakarta.servlet.http.HttpServlet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.xml.namespace.QName;
import org.apache.cxf.Bus;
import org.apache.cxf.BusFactory;
import org.apache.cxf.jaxws.EndpointImpl;
import org.apache.cxf.transport.servlet.CXFNonSpringServlet;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's HTTP side on one port, plain HTTP or HTTPS ({@link TlsIdentity}): composite
 * services under {@code /services/} (CXF), plus whatever plain servlets the broker mounts
 * ({@code /health}, {@code /metrics}, admin).
 */
public final class HttpFrontEnd implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HttpFrontEnd.class);

    private final Server jetty;
    private final ServletContextHandler context;
    private final Bus bus;
    /** The management services (/manage/...) on their own bus: their paths never mix with composites'. */
    private final Bus managementBus;
    private final List<EndpointImpl> endpoints = new ArrayList<>();
    private final PolicingFilter policing;
    private final OverloadFilter overload;
    private final int maxInFlight;
    private final HeaderDeadline headerDeadline;
    private final ClientAddressFilter clients = new ClientAddressFilter();
    private final boolean tls;

    /**
     * @param host         address to bind
     * @param port         port (0 for any free one)
     * @param maxThreads   request threads (each composite request holds one while the process runs);
     *                     at least what {@code overload} needs
     * @param maxBodyBytes larger request bodies are refused with 413
     * @param overload     the overload bound: how many composite requests run at once and wait, beyond which they get 503
     * @param wall         the broker's wall clock (a forwarded message's {@link HopSeal} must be recent on it)
     */
    public HttpFrontEnd(String host, int port, int maxThreads, long maxBodyBytes, OverloadBound overload, java.time.Clock wall) {
        this(host, port, maxThreads, maxBodyBytes, DEFAULT_READ_DEADLINE, overload, wall);
    }

    /** How long a client may take to send a request, headers and body, by default. */
    public static final Duration DEFAULT_READ_DEADLINE = Duration.ofSeconds(10);

    /**
     * @param readDeadline how long a request may take to arrive, from its first byte to its body's
     *                     last: later, 408 and the connection closed ({@link WholeBodies}, {@link HeaderDeadline})
     */
    public HttpFrontEnd(String host, int port, int maxThreads, long maxBodyBytes, Duration readDeadline, OverloadBound overload,
                        java.time.Clock wall) {
        this(host, port, maxThreads, maxBodyBytes, readDeadline, overload, wall, null);
    }

    /** TLS versions served: older ones have known weaknesses (RFC 8996). */
    static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    /**
     * @param tls the certificate and key to serve HTTPS with on the port, or null for plain HTTP
     */
    public HttpFrontEnd(String host, int port, int maxThreads, long maxBodyBytes, Duration readDeadline, OverloadBound overload,
                        java.time.Clock wall, TlsIdentity tls) {
        // Threads are started on demand and idle ones end after a minute: on two cores a few
        // busy threads do the work, the rest only wait for partners (or a turn).
        int max = Math.max(maxThreads, overload.threads());
        QueuedThreadPool threads = new QueuedThreadPool(max, Math.min(4 * Runtime.getRuntime().availableProcessors(), max), 60_000);
        threads.setName("http");
        jetty = new Server(threads);
        this.tls = tls != null;
        ServerConnector connector = tls == null ? new ServerConnector(jetty) : tlsConnector(jetty, tls);
        connector.setHost(host);
        connector.setPort(port);
        connector.setIdleTimeout(30_000);
        jetty.addConnector(connector);
        this.headerDeadline = new HeaderDeadline(connector, readDeadline);
        context = new ServletContextHandler("/");
        bus = BusFactory.newInstance().createBus();
        // Callers see reasons, never stack traces.
        bus.setProperty("faultStackTraceEnabled", "false");
        bus.setProperty("exceptionMessageCauseEnabled", "false");
        knowsItsClassLoader(bus);
        // Composite services are plain SOAP over the deployment's WSDL: no WS-Policy assertions
        // to enforce, so the policy interceptors that would otherwise run on every request are off.
        org.apache.cxf.ws.policy.PolicyEngine policies = bus.getExtension(org.apache.cxf.ws.policy.PolicyEngine.class);
        if (policies != null) policies.setEnabled(false);
        CXFNonSpringServlet cxf = new CXFNonSpringServlet();
        cxf.setBus(bus);
        ServletHolder holder = new ServletHolder("cxf", cxf);
        holder.setInitParameter("hide-service-list-page", "true");
        holder.setInitOrder(1);
        context.addServlet(holder, "/services/*");
        // first: every check of credentials below knows the client it is for
        context.addFilter(new FilterHolder(clients), "/*", null);
        // before the overload bound: a request over its user's rate takes no place and waits in no queue
        this.policing = new PolicingFilter(wall);
        context.addFilter(new FilterHolder(policing), "/services/*", null);
        this.overload = new OverloadFilter(overload);
        this.maxInFlight = overload.maxInFlight();
        context.addFilter(new FilterHolder(this.overload), "/services/*", null);
        managementBus = BusFactory.newInstance().createBus();
        managementBus.setProperty("faultStackTraceEnabled", "false");
        managementBus.setProperty("exceptionMessageCauseEnabled", "false");
        knowsItsClassLoader(managementBus);
        CXFNonSpringServlet manage = new CXFNonSpringServlet();
        manage.setBus(managementBus);
        ServletHolder manageHolder = new ServletHolder("manage", manage);
        manageHolder.setInitParameter("hide-service-list-page", "true");
        manageHolder.setInitOrder(1);
        context.addServlet(manageHolder, "/manage/*");
        context.addServlet(new ServletHolder(new NotFoundServlet()), "/");
        // Every body is read whole, within the read deadline and the size limit, before any filter
        // or servlet sees it: a slow or oversized one holds no thread, no engine place and no parser.
        // All bodies in memory together: a quarter of the heap, at most 64 of the largest (the
        // engine's places and line hold 128 by default, and most bodies are far below the limit).
        WholeBodies bodies = new WholeBodies(maxBodyBytes, readDeadline, Math.min(Runtime.getRuntime().maxMemory() / 4, 64 * maxBodyBytes));
        bodies.setHandler(context);
        // stop() closes the port at once, then waits up to the stop timeout for requests in flight
        jetty.setHandler(new GracefulHandler(new TransportSecurity(bodies)));
        jetty.setStopTimeout(10_000);
    }

    private static ServerConnector tlsConnector(Server jetty, TlsIdentity tls) {
        SslContextFactory.Server ssl = new SslContextFactory.Server();
        ssl.setKeyStore(tls.keyStore());
        ssl.setKeyStorePassword(TlsIdentity.PASSWORD);
        ssl.setKeyManagerPassword(TlsIdentity.PASSWORD);
        ssl.setIncludeProtocols(PROTOCOLS);
        HttpConfiguration http = new HttpConfiguration();
        http.addCustomizer(new SecureRequestCustomizer()); // the request's scheme is https and isSecure() true
        return new ServerConnector(jetty, ssl, new HttpConnectionFactory(http));
    }

    /** Whether the port serves HTTPS. */
    public boolean tls() {
        return tls;
    }

    /**
     * CXF asks a bus without a class loader of its own for one on every request, through its
     * resource manager: a search of the whole class path, jar by jar, for the resource "" (~2.5 %
     * of the broker's CPU at full load). The request threads run with the broker's
     * loader anyway; naming it makes the answer a lookup.
     */
    private static void knowsItsClassLoader(Bus bus) {
        bus.setExtension(HttpFrontEnd.class.getClassLoader(), ClassLoader.class);
    }

    /**
     * Enforces each user's agreed rate on composite requests (HTTP 429 above it, or served
     * best-effort with spare capacity, by its class's policy); not policed until called.
     */
    public void police(RatePolicing rates, Authenticator authenticator) {
        overload.bestEffortPlaces(rates.policy().bestEffortPlaces(maxInFlight));
        policing.police(rates, authenticator);
    }

    /**
     * Logins are throttled per client too: by the address of the connection, or the one a
     * trusted proxy says it forwards for.
     */
    public void throttleLogins(io.moses.model.auth.LoginThrottle logins, TrustedProxies trustedProxies) {
        clients.throttle(logins, trustedProxies);
    }

    /** Conversation messages another replica forwarded with a valid seal are not policed a second time. */
    public void trustHops(HopSeal hops) {
        policing.trustHops(hops);
    }

    /**
     * Under overload, refuses the class worth least first and serves waiting requests highest
     * class first (by {@code worth}), counting refusals per class in {@code registry}; until
     * called every caller is worth the same (first come first served).
     */
    public void shedByClass(ClassWorth worth, Authenticator authenticator, io.micrometer.core.instrument.MeterRegistry registry) {
        overload.shedByClass(worth, authenticator, registry);
    }

    public void mount(String path, HttpServlet servlet) {
        context.addServlet(new ServletHolder(servlet), path);
    }

    /**
     * Puts {@code filter} before every other on the composite services' path (before {@link #start}):
     * it sees each request from its arrival, the wait for an engine place included.
     */
    public void first(jakarta.servlet.Filter filter) {
        FilterHolder holder = new FilterHolder(filter);
        holder.setName("first-" + filter.getClass().getSimpleName());
        context.getServletHandler().prependFilter(holder);
        org.eclipse.jetty.ee10.servlet.FilterMapping mapping = new org.eclipse.jetty.ee10.servlet.FilterMapping();
        mapping.setFilterName(holder.getName());
        mapping.setPathSpec("/services/*");
        context.getServletHandler().prependFilterMapping(mapping);
    }

    /** Puts a filter in front of every request under {@code path} (for example an operator check). */
    public void filter(String path, jakarta.servlet.Filter filter) {
        context.addFilter(new FilterHolder(filter), path, null);
    }

    public void start() throws Exception {
        jetty.start();
        headerDeadline.start();
    }

    public int port() {
        return ((ServerConnector) jetty.getConnectors()[0]).getLocalPort();
    }

    /**
     * Has CXF collect the namespace declarations in scope at the SOAP body, which its copy of
     * the payload leaves out ({@link CompositeEndpoint} declares them on it).
     */
    static final String BODY_NAMESPACES = "org.apache.cxf.binding.soap.addNamespaceContext";
    private volatile ConversationForwarding conversations = ConversationForwarding.NONE;

    /** Where messages of conversations owned by other replicas go; set before services are published. */
    public void forwardConversations(ConversationForwarding conversations) {
        this.conversations = conversations;
    }

    /** Serves a composite's provided service at {@code /services/<local name>}, with its WSDL at {@code ?wsdl}. */
    public void publish(CompositeInvoker engine, ProvidedService service, Duration timeout, Authenticator auth, RequestMetrics metrics) {
        EndpointImpl ep = new EndpointImpl(bus, new CompositeEndpoint(engine, service, timeout, auth, metrics, conversations));
        ep.setWsdlLocation(service.wsdl().toString());
        ep.setServiceName(service.service());
        ep.setEndpointName(new QName(service.service().getNamespaceURI(), service.port()));
        ep.setProperties(new java.util.HashMap<>(java.util.Map.of(BODY_NAMESPACES, Boolean.TRUE)));
        ep.publish(service.path());
        endpoints.add(ep);
        log.info("serving {} at /services{}", service.service().getLocalPart(), service.path());
    }

    /** Stops serving a composite's provided service (its unit was undeployed). */
    public void unpublish(ProvidedService service) {
        for (EndpointImpl ep : List.copyOf(endpoints)) {
            if (service.path().equals(ep.getAddress()) && ep.getBus() == bus) {
                ep.stop();
                endpoints.remove(ep);
                log.info("no longer serving {} at /services{}", service.service().getLocalPart(), service.path());
            }
        }
    }

    /**
     * Serves a WSDL-first management service at {@code /manage<path>}, its WSDL (the one given,
     * with this address) at {@code ?wsdl}. Requests are validated against the WSDL's schema, so
     * a missing or mistyped element is a fault before the implementation runs.
     */
    public void publishManagement(String path, Object implementor, String wsdlLocation, QName service, QName port) {
        EndpointImpl ep = new EndpointImpl(managementBus, implementor);
        ep.setWsdlLocation(wsdlLocation);
        ep.setServiceName(service);
        ep.setEndpointName(port);
        ep.getProperties().put("schema-validation-enabled", "true");
        ep.publish(path);
        endpoints.add(ep);
        log.info("serving {} at /manage{}", service.getLocalPart(), path);
    }

    @Override
    public void close() {
        // Jetty first: requests in flight finish on live endpoints (graceful stop)
        headerDeadline.stop();
        try {
            jetty.stop();
        } catch (Exception e) {
            log.warn("HTTP stop: {}", e.toString());
        }
        for (EndpointImpl ep : endpoints) {
            try {
                ep.stop();
            } catch (RuntimeException ignored) {
                // shutting down anyway
            }
        }
        bus.shutdown(false);
        managementBus.shutdown(false);
    }
}
