package io.moses.core.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.moses.core.loop.LiveView;
import io.moses.model.ConcreteService;
import io.moses.model.Plan;
import io.moses.model.ServiceClass;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * What /metrics says beyond the request timers: Micrometer's standard JVM and process binders
 * (so a scrape is useful before the first request), the SLA of every class against what its
 * requests see, every concrete service's observed QoS and state, and the plan in force. The
 * per-class and per-service rows are rebuilt at each scrape from the same live view the admin
 * API serves (classes and services come and go). Names: docs/metrics.md.
 */
final class BrokerGauges implements AutoCloseable {
    private final JvmGcMetrics gc = new JvmGcMetrics();
    private final Supplier<LiveView> live;
    private final Supplier<List<ServiceClass>> classes;
    private final Supplier<List<ConcreteService>> services;
    private final Supplier<java.util.Set<String>> ejected;
    private final MultiGauge classResponseTime;
    private final MultiGauge classMaxResponseTime;
    private final MultiGauge classAvailability;
    private final MultiGauge classMinAvailability;
    private final MultiGauge classSlaMet;
    private final MultiGauge serviceResponseTime;
    private final MultiGauge serviceAvailability;
    private final MultiGauge serviceUp;
    private final MultiGauge serviceEjected;

    BrokerGauges(MeterRegistry registry, Supplier<Plan> plan, Supplier<LiveView> live, Supplier<List<ServiceClass>> classes,
                 Supplier<List<ConcreteService>> services, Supplier<java.util.Set<String>> ejected, java.time.Clock wall) {
        this.live = live;
        this.classes = classes;
        this.services = services;
        this.ejected = ejected;
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);

        Gauge.builder("moses.plan.version", plan, p -> p.get() == null ? 0 : p.get().version())
                .description("version of the plan in force (0: none)").strongReference(true).register(registry);
        Gauge.builder("moses.plan.objective", plan, p -> p.get() == null ? Double.NaN : p.get().objective())
                .description("objective value of the plan in force").strongReference(true).register(registry);
        Gauge.builder("moses.plan.solve", plan, p -> p.get() == null ? Double.NaN : p.get().solveMillis() / 1000)
                .baseUnit("seconds").description("time the solver took for the plan in force").strongReference(true).register(registry);
        Gauge.builder("moses.plan.age", plan, p -> p.get() == null ? Double.NaN
                        : Duration.between(p.get().created(), wall.instant()).toMillis() / 1000.0)
                .baseUnit("seconds").description("time since the plan in force was made").strongReference(true).register(registry);

        classResponseTime = MultiGauge.builder("moses.class.response.time").baseUnit("seconds")
                .description("mean response time of the class's recent composite requests").register(registry);
        classMaxResponseTime = MultiGauge.builder("moses.class.max.response.time").baseUnit("seconds")
                .description("R_max: the response time the class's SLA promises").register(registry);
        classAvailability = MultiGauge.builder("moses.class.availability")
                .description("share of the class's recent composite requests that succeeded").register(registry);
        classMinAvailability = MultiGauge.builder("moses.class.min.availability")
                .description("A_min: the availability the class's SLA promises").register(registry);
        classSlaMet = MultiGauge.builder("moses.class.sla.met")
                .description("1 when the class's recent requests meet R_max and A_min, 0 when not").register(registry);
        serviceResponseTime = MultiGauge.builder("moses.concrete.response.time").baseUnit("seconds")
                .description("mean response time of a concrete service's recent successful calls").register(registry);
        serviceAvailability = MultiGauge.builder("moses.concrete.availability")
                .description("share of a concrete service's recent calls that succeeded").register(registry);
        serviceUp = MultiGauge.builder("moses.concrete.up")
                .description("1 when a concrete service may be planned, 0 when down (WS Monitor) or taken out by an operator")
                .register(registry);
        serviceEjected = MultiGauge.builder("moses.concrete.ejected")
                .description("1 while the binding keeps a concrete service out of selection (failed calls in a row, or down for the WS Monitor)"
                        + " until a trial call or a probe is answered")
                .register(registry);
    }

    /** Rebuilds the per-class and per-service rows from the live view; called before each scrape. */
    void refresh() {
        LiveView v = live.get();
        List<MultiGauge.Row<?>> rt = new ArrayList<>(), maxRt = new ArrayList<>(), a = new ArrayList<>(),
                minA = new ArrayList<>(), met = new ArrayList<>();
        for (ServiceClass k : classes.get()) {
            Tags tags = Tags.of("class", k.name());
            maxRt.add(MultiGauge.Row.of(tags, k.maxResponseTime()));
            minA.add(MultiGauge.Row.of(tags, k.minAvailability()));
            LiveView.ServiceClass o = v.classes().get(k.name());
            if (o == null || o.requests() == 0) continue;
            rt.add(MultiGauge.Row.of(tags, o.responseTime()));
            a.add(MultiGauge.Row.of(tags, o.availability()));
            met.add(MultiGauge.Row.of(tags, o.responseTime() <= k.maxResponseTime() && o.availability() >= k.minAvailability() ? 1 : 0));
        }
        classResponseTime.register(rt, true);
        classMaxResponseTime.register(maxRt, true);
        classAvailability.register(a, true);
        classMinAvailability.register(minA, true);
        classSlaMet.register(met, true);
        List<MultiGauge.Row<?>> srt = new ArrayList<>(), sa = new ArrayList<>(), up = new ArrayList<>(), out = new ArrayList<>();
        java.util.Set<String> outOfSelection = ejected.get();
        for (ConcreteService s : services.get()) {
            Tags tags = Tags.of("composite", s.task().composite(), "task", s.task().name(), "service", s.name());
            up.add(MultiGauge.Row.of(tags, v.down().contains(s.name()) || v.heldOut().contains(s.name()) ? 0 : 1));
            out.add(MultiGauge.Row.of(tags, outOfSelection.contains(s.name()) ? 1 : 0));
            LiveView.Service o = v.services().get(s.name());
            if (o == null || o.samples() == 0) continue;
            if (!Double.isNaN(o.responseTime())) srt.add(MultiGauge.Row.of(tags, o.responseTime()));
            sa.add(MultiGauge.Row.of(tags, o.availability()));
        }
        serviceResponseTime.register(srt, true);
        serviceAvailability.register(sa, true);
        serviceUp.register(up, true);
        serviceEjected.register(out, true);
    }

    @Override
    public void close() {
        gc.close();
    }
}
