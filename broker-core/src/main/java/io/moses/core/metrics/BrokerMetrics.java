package io.moses.core.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.moses.adaptation.InvokeHandler;
import io.moses.core.cluster.ConversationRouter;
import io.moses.core.frontend.RatePolicing;
import io.moses.core.frontend.RequestMetrics;
import io.moses.core.loop.LiveView;
import io.moses.model.ConcreteService;
import io.moses.model.Plan;
import io.moses.model.ServiceClass;
import jakarta.servlet.http.HttpServlet;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Everything /metrics serves, behind one door: the replica's Prometheus registry, the request
 * path's timers, the gauges a scrape brings up to date, and the servlet itself. Names:
 * docs/metrics.md.
 */
public final class BrokerMetrics implements AutoCloseable {
    private final PrometheusMeterRegistry registry;
    private final RequestTimers timers;
    private BrokerGauges gauges;

    public BrokerMetrics() {
        this(null);
    }

    /** @param exemplars the traces the latency histograms' exemplars name (null: none) */
    public BrokerMetrics(io.prometheus.metrics.tracer.common.SpanContext exemplars) {
        registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT, new io.prometheus.metrics.model.registry.PrometheusRegistry(),
                io.micrometer.core.instrument.Clock.SYSTEM, exemplars);
        timers = new RequestTimers(registry);
    }

    /** Where the other parts register their own meters (shedding, policing). */
    public MeterRegistry registry() {
        return registry;
    }

    /** The timers of composite requests, for the front-end. */
    public RequestMetrics requests() {
        return timers;
    }

    /** {@code handler} with every invoke timed per task, concrete service and outcome. */
    public InvokeHandler timed(InvokeHandler handler) {
        return new MeteredInvokeHandler(handler, timers);
    }

    /**
     * The JVM's meters, and the plan's (its age on the broker's wall clock), the classes' and the
     * services' gauges, {@code ejected} the services the binding took out of selection (once, at start).
     */
    public void gauges(Supplier<Plan> plan, Supplier<LiveView> live, Supplier<List<ServiceClass>> classes,
                       Supplier<List<ConcreteService>> services, Supplier<java.util.Set<String>> ejected, java.time.Clock wall) {
        gauges = new BrokerGauges(registry, plan, live, classes, services, ejected, wall);
    }

    public void policing(RatePolicing policing) {
        Gauge.builder("moses.policing.replicas", policing, RatePolicing::replicas)
                .description("live replicas that share each user's agreed rate (each polices rate / this)").register(registry);
    }

    public void conversations(ConversationRouter conversations) {
        FunctionCounter.builder("moses.conversation.forwarded", conversations,
                ConversationRouter::forwarded).description("conversation messages forwarded to the replica holding their instance").register(registry);
        FunctionCounter.builder("moses.conversation.owner.gone", conversations,
                ConversationRouter::ownerGone).description("conversation messages whose instance's replica was gone").register(registry);
        FunctionCounter.builder("moses.conversation.refused.foreign", conversations, ConversationRouter::refusedForeign)
                .description("conversation messages refused because another user started the conversation").register(registry);
        FunctionCounter.builder("moses.conversation.awaited.takeover", conversations, ConversationRouter::awaitedTakeover)
                .description("messages of durable conversations whose replica did not answer, held until a survivor took the instance over")
                .register(registry);
        FunctionCounter.builder("moses.conversation.no.instance", conversations, ConversationRouter::noInstance)
                .description("conversation messages refused because no instance held their correlation values").register(registry);
    }

    /** The proactive SLA rule's predictions: made, come true, missed (docs/model.md, "Forecasts"). */
    public void predictions(io.moses.core.loop.FeedbackLoop loop) {
        FunctionCounter.builder("moses.sla.predicted", loop, io.moses.core.loop.FeedbackLoop::predictedViolations)
                .description("class SLA violations predicted from the providers' forecasts").register(registry);
        FunctionCounter.builder("moses.sla.prediction.confirmed", loop, io.moses.core.loop.FeedbackLoop::predictionsConfirmed)
                .description("predictions that came true: the class broke its SLA, or its providers went where forecast").register(registry);
        FunctionCounter.builder("moses.sla.prediction.missed", loop, io.moses.core.loop.FeedbackLoop::predictionsMissed)
                .description("predictions that did not come true by their time").register(registry);
    }

    /**
     * The replica's own state, for alerts that need no scrape of /health: ready as /health says UP,
     * the knowledge base reachable, this replica the optimizer leader; and the plans its optimizer solved.
     */
    public void replica(BooleanSupplier ready, BooleanSupplier knowledgeBaseUp, BooleanSupplier optimizerLeader,
                        io.moses.core.loop.FeedbackLoop loop) {
        Gauge.builder("moses.replica.ready", ready, r -> r.getAsBoolean() ? 1 : 0)
                .description("1 when /health answers UP (the balancer sends this replica traffic), 0 when starting, draining, degraded or down")
                .strongReference(true).register(registry);
        Gauge.builder("moses.knowledge.base.up", knowledgeBaseUp, k -> k.getAsBoolean() ? 1 : 0)
                .description("1 when this replica's last read of the knowledge base succeeded, 0 when it could not reach it")
                .strongReference(true).register(registry);
        Gauge.builder("moses.optimizer.leader", optimizerLeader, l -> l.getAsBoolean() ? 1 : 0)
                .description("1 while this replica holds the optimizer lease (makes the plans), else 0")
                .strongReference(true).register(registry);
        // the loop, not a method reference of it: a function counter holds its object weakly
        FunctionCounter.builder("moses.plan.solves", loop, io.moses.core.loop.FeedbackLoop::solves)
                .description("plans this replica's optimizer solved").register(registry);
    }

    /** GET /metrics, the gauges brought up to date first. */
    public HttpServlet servlet() {
        BrokerGauges g = gauges;
        return g == null ? new MetricsServlet(registry) : new MetricsServlet(registry, g::refresh);
    }

    @Override
    public void close() {
        if (gauges != null) gauges.close();
        registry.close();
    }
}
