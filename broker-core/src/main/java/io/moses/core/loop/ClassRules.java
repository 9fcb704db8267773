package io.moses.core.loop;

import io.moses.model.ServiceClass;
import io.moses.monitor.ClassMonitor;
import io.moses.monitor.DriftDetector;
import io.moses.monitor.PathAnalyzer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The rules on service classes (docs/model.md, "What triggers a new plan"): a class's visits per
 * task drifted from what the plan in force assumed (the request mix changed), or what its
 * requests observe breaks its SLA. A class counts once it has the minimum requests.
 */
final class ClassRules {
    /** A class whose observed response time or availability breaks its SLA, with the figures. */
    record SlaBreak(String serviceClass, String detail) {}

    private final Adaptation settings;
    private final LongSupplier nanos;
    private final DriftDetector<String> visitsDrift;
    private final DriftDetector<String> slaBreaks;
    /** What the plan in force assumed: visits per "class task". */
    private final Map<String, Double> assumedVisits = new ConcurrentHashMap<>();

    ClassRules(Adaptation settings, LongSupplier nanos) {
        this.settings = settings;
        this.nanos = nanos;
        this.visitsDrift = new DriftDetector<>(settings.visitsDrift(), 0.1, settings.holdMillis());
        // an SLA break (observed R above R_max, or A below A_min) is a drift of 0 from 0
        this.slaBreaks = new DriftDetector<>(0, 1, settings.holdMillis());
    }

    /** The visits rule on the Path Analyzer's figures; the reasons for a re-plan. */
    List<String> checkVisits(Map<String, PathAnalyzer.ClassVisits> visits) {
        Map<String, Double> v = new HashMap<>();
        visits.forEach((cls, cv) -> {
            if (cv.requests() >= settings.minSamples())
                cv.perTask().forEach((task, n) -> v.put(cls + " " + task, n));
        });
        List<String> why = new ArrayList<>();
        for (var d : visitsDrift.check(v, assumedVisits, nanos.getAsLong()))
            why.add(String.format("visits of %s: %.2f per request, plan assumed %.2f", d.key(), d.observed(), d.baseline()));
        return why;
    }

    /** The SLA rule on the Class Monitor's figures: the classes whose break has lasted the hold, once per episode. */
    List<SlaBreak> checkSlas(List<ServiceClass> classes, Map<String, ClassMonitor.ClassStats> observed) {
        Map<String, Double> broken = new HashMap<>();
        Map<String, String> why = new HashMap<>();
        for (ServiceClass k : classes) {
            ClassMonitor.ClassStats s = observed.get(k.name());
            if (s == null || s.requests() < settings.minSamples()) continue;
            boolean breaks = s.responseTime() > k.maxResponseTime() || s.availability() < k.minAvailability();
            broken.put(k.name(), breaks ? 1.0 : 0.0);
            // only a break can fire (a drift from 0): the others need no words, every period
            if (breaks) why.put(k.name(), String.format("observed R %.3f s (max %.3f), A %.4f (min %.4f)", s.responseTime(),
                    k.maxResponseTime(), s.availability(), k.minAvailability()));
        }
        Map<String, Double> zero = new HashMap<>();
        broken.keySet().forEach(k -> zero.put(k, 0.0));
        List<SlaBreak> out = new ArrayList<>();
        for (var d : slaBreaks.check(broken, zero, nanos.getAsLong())) out.add(new SlaBreak(d.key(), why.get(d.key())));
        return out;
    }

    /** After a new plan, the visits it assumed become the baseline; a visits drift in progress is forgotten. */
    void assume(Map<String, PathAnalyzer.ClassVisits> visits) {
        visits.forEach((cls, v) -> v.perTask().forEach((task, n) -> assumedVisits.put(cls + " " + task, n)));
        visitsDrift.reset();
    }
}
