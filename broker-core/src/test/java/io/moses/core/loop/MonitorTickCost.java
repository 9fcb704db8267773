package io.moses.core.loop;

import io.moses.adaptation.AdaptiveBinding;
import io.moses.adaptation.CallEnd;
import io.moses.adaptation.ServiceCall;
import io.moses.adaptation.ServiceCallLog;
import io.moses.core.composition.BehavioralModelBuilder;
import io.moses.core.engine.CompletedRequest;
import io.moses.mdal.Credentials;
import io.moses.mdal.KnowledgeBase;
import io.moses.mdal.Mdal;
import io.moses.mdal.Seed;
import io.moses.model.ConcreteService;
import io.moses.model.TaskRef;
import io.moses.monitor.ClassMonitor;
import io.moses.monitor.PathAnalyzer;
import io.moses.monitor.QosMonitor;
import io.moses.monitor.Replanner;
import io.moses.monitor.WsMonitor;
import io.moses.optimizer.OptimizationEngine;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A benchmark, not a test: the feedback loop's monitor tick and its per-request recording, with
 * the trip planner's seed (3 classes, 6 tasks, 12 concrete services) on an in-memory knowledge
 * base, wired as the broker wires it (LoopWiring's windows, the optimizer on), fed as a broker at
 * ~1,200 composite requests/s is: every simulated second, that many completed requests of 6
 * invokes each (3 classes in turn) and their 7,200 service calls, then one tick. Prints the
 * median tick, and the time and bytes allocated per recorded request. No network, no timer: the
 * broker's clocks are the simulation's.
 *
 * <p>From the repository root, after {@code ./moses build} (results in docs/benchmarks/2026-11-23-monitors.md, "The
 * monitor tick and the per-request recording"); {@code -Ddigest=true} also prints what the
 * monitors concluded, to compare two builds' behaviour:
 * <pre>java -cp broker-core/target/test-classes:broker-core/target/classes:$(cat broker-core/target/classpath.txt) \
 *     io.moses.core.loop.MonitorTickCost [seconds] [requests per second] [seed]</pre>
 */
public final class MonitorTickCost {
    private MonitorTickCost() {}

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 300;
        int perSecond = args.length > 1 ? Integer.parseInt(args[1]) : 1200;
        Path seedFile = Path.of(args.length > 2 ? args[2] : "bpel-processes/trip-planner/seed.yaml");
        if (!seedFile.toFile().exists()) seedFile = Path.of("..").resolve(seedFile);
        AtomicLong nanos = new AtomicLong(1_000_000_000L);
        Instant epoch = Instant.parse("2026-01-01T00:00:00Z");
        Clock wall = new Clock() {
            @Override public ZoneId getZone() { return ZoneOffset.UTC; }
            @Override public Clock withZone(ZoneId zone) { return this; }
            @Override public Instant instant() { return epoch.plusNanos(nanos.get()); }
        };
        Adaptation settings = Adaptation.defaults();
        try (KnowledgeBase kb = Mdal.open("mem:tick" + System.nanoTime(), Credentials.NONE)) {
            kb.putCompositeService(BehavioralModelBuilder.build(seedFile.resolveSibling("TripPlanner.bpel")));
            Seed.load(seedFile, Map.of("STUBS", "http://127.0.0.1:1")).applyTo(kb);
            ServiceCallLog outcomes = new ServiceCallLog(1 << 16);
            AdaptiveBinding binding = new AdaptiveBinding(List.of(), null, null, outcomes, Duration.ofSeconds(2), Map.of(),
                    AdaptiveBinding.Options.defaults().withClocks(nanos::get, wall));
            KnowledgeCache knowledge = new KnowledgeCache(kb, binding);
            knowledge.load();
            Monitors monitors = new Monitors(new QosMonitor(500, 5_000, settings.minSamples(), nanos::get), new ClassMonitor(500),
                    new PathAnalyzer(500), new WsMonitor(Duration.ofSeconds(2), 2, 2));
            OptimizationEngine engine = new OptimizationEngine(OptimizationEngine.SolverChoice.OJALGO, wall);
            Map<TaskRef, List<ConcreteService>> byTask = new LinkedHashMap<>();
            for (ConcreteService s : kb.concreteServices()) byTask.computeIfAbsent(s.task(), t -> new ArrayList<>()).add(s);
            List<TaskRef> tasks = List.copyOf(byTask.keySet());
            String composite = tasks.get(0).composite();
            List<String> classes = kb.serviceClasses().stream().map(io.moses.model.ServiceClass::name).toList();
            Random random = new Random(26);
            try (FeedbackLoop loop = new FeedbackLoop(kb, knowledge, outcomes, settings, Replicas.ALONE, null, engine,
                    () -> new OptimizationEngine(OptimizationEngine.SolverChoice.OJALGO, wall), monitors, new Replanner(), wall, nanos::get)) {
                loop.start();
                long[] tickNanos = new long[seconds];
                long[] tickBytes = new long[seconds];
                long recordNanos = 0, recordBytes = 0, recorded = 0;
                int warm = Math.min(seconds / 3, 30);
                for (int second = 0; second < seconds; second++) {
                    long start = nanos.get();
                    List<CompletedRequest> requests = new ArrayList<>(perSecond);
                    for (int i = 0; i < perSecond; i++) {
                        long at = start + (long) i * 1_000_000_000L / perSecond;
                        Map<TaskRef, Integer> invokes = new ConcurrentHashMap<>(); // as the engine's Callers counts them
                        long total = 0;
                        for (TaskRef t : tasks) {
                            List<ConcreteService> candidates = byTask.get(t);
                            ConcreteService s = candidates.get(random.nextInt(candidates.size()));
                            long took = (long) (s.sla().responseTime() * (0.9 + 0.2 * random.nextDouble()) * 1e9);
                            total += took;
                            outcomes.add(new ServiceCall(s.name(), t, classes.get(i % classes.size()), took, CallEnd.REPLY, true, at));
                            invokes.merge(t, 1, Integer::sum);
                        }
                        requests.add(new CompletedRequest(composite, classes.get(i % classes.size()), true, total, invokes, false));
                    }
                    long a0 = allocated(), t0 = System.nanoTime();
                    for (CompletedRequest r : requests) loop.completed(r);
                    long t1 = System.nanoTime(), a1 = allocated();
                    if (second >= warm) {
                        recordNanos += t1 - t0;
                        recordBytes += a1 - a0;
                        recorded += requests.size();
                    }
                    nanos.addAndGet(1_000_000_000L);
                    if (second == 2) loop.solveNow("the benchmark's baseline", Set.of()); // the assumptions the rules compare with
                    long b0 = allocated(), u0 = System.nanoTime();
                    loop.monitorTick();
                    tickNanos[second] = System.nanoTime() - u0;
                    tickBytes[second] = allocated() - b0;
                }
                long[] ticks = Arrays.copyOfRange(tickNanos, warm, seconds);
                long[] bytes = Arrays.copyOfRange(tickBytes, warm, seconds);
                Arrays.sort(ticks);
                Arrays.sort(bytes);
                System.out.printf("monitor tick (%d ticks after %d warm-up, %d requests/s): median %.3f ms, p90 %.3f ms, min %.3f ms; "
                                + "median %.0f KB allocated%n", ticks.length, warm, perSecond, ticks[ticks.length / 2] / 1e6,
                        ticks[ticks.length * 9 / 10] / 1e6, ticks[0] / 1e6, bytes[bytes.length / 2] / 1024.0);
                System.out.printf("per request recorded (FeedbackLoop.completed): %.0f ns, %.0f bytes allocated%n",
                        recordNanos / (double) recorded, recordBytes / (double) recorded);
                System.out.printf("solves by the Replanner: %d%n", loop.solves());
                if (Boolean.getBoolean("digest")) { // what the monitors concluded, to compare two builds' behaviour
                    System.out.println("observations: " + kb.serviceQos());
                    System.out.println("live: " + loop.live());
                    new java.util.TreeMap<>(loop.planningInput().visits()).forEach((k, v) -> System.out.println("visits of " + k + ": " + new java.util.TreeMap<>(v)));
                    System.out.println("status: " + new java.util.TreeMap<>(loop.status()));
                }
            }
        }
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }
}
