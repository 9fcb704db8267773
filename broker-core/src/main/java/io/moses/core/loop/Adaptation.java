package io.moses.core.loop;

/**
 * How the broker adapts by itself: which monitors run, how often, and the conditions of the
 * event-condition-action rules (docs/model.md, "What triggers a new plan"). Every monitor can be switched off; the
 * broker then serves with the last plan.
 *
 * @param qosMonitor          observe concrete services' response time and availability
 * @param wsMonitor           probe concrete services (GET of their WSDL)
 * @param pathAnalyzer        measure visits per class from executed requests
 * @param optimizer           solve new plans on this replica
 * @param solver              auto, clp, lp_solve or ojalgo
 * @param monitorMillis       period of the QoS rules and observation writes
 * @param probeMillis         period of the WS Monitor's probes
 * @param holdMillis          how long a drift must last before it triggers a new plan
 * @param responseTimeDrift   relative change of a service's response time that counts as drift
 * @param availabilityDrift   relative change of a service's availability that counts as drift
 * @param visitsDrift         relative change of visits that counts as drift
 * @param minSamples          observations needed before they replace a provider's agreed values
 * @param unknownFailureMillis failure-detection time f_j of a service none of whose failures has
 *                            been seen yet: the invoke timeout (a failure may be a hang)
 * @param forecast            predict a class's violation from its providers' response-time trends
 *                            and re-plan ahead (docs/model.md, "Forecasts"); on by default
 */
public record Adaptation(boolean qosMonitor, boolean wsMonitor, boolean pathAnalyzer, boolean optimizer, String solver,
                         long monitorMillis, long probeMillis, long holdMillis, double responseTimeDrift,
                         double availabilityDrift, double visitsDrift, int minSamples, long unknownFailureMillis,
                         boolean forecast) {

    public static Adaptation defaults() {
        return new Adaptation(true, true, true, true, "auto", 1000, 1000, 2000, 0.5, 0.02, 0.25, 20, 10_000, true);
    }

    public static Adaptation off() {
        return new Adaptation(false, false, false, false, "auto", 1000, 1000, 2000, 0.5, 0.02, 0.25, 20, 10_000, false);
    }

    public Adaptation withMonitors(boolean qos, boolean ws, boolean paths) {
        return new Adaptation(qos, ws, paths, optimizer, solver, monitorMillis, probeMillis, holdMillis, responseTimeDrift,
                availabilityDrift, visitsDrift, minSamples, unknownFailureMillis, forecast);
    }

    public Adaptation withOptimizer(boolean on, String solverName) {
        return new Adaptation(qosMonitor, wsMonitor, pathAnalyzer, on, solverName, monitorMillis, probeMillis, holdMillis,
                responseTimeDrift, availabilityDrift, visitsDrift, minSamples, unknownFailureMillis, forecast);
    }

    public Adaptation withPeriods(long monitor, long probe, long hold) {
        return new Adaptation(qosMonitor, wsMonitor, pathAnalyzer, optimizer, solver, monitor, probe, hold, responseTimeDrift,
                availabilityDrift, visitsDrift, minSamples, unknownFailureMillis, forecast);
    }

    /** @param invokeTimeout how long a concrete-service call may take: f_j before any failure is seen */
    public Adaptation withInvokeTimeout(java.time.Duration invokeTimeout) {
        return new Adaptation(qosMonitor, wsMonitor, pathAnalyzer, optimizer, solver, monitorMillis, probeMillis, holdMillis,
                responseTimeDrift, availabilityDrift, visitsDrift, minSamples, invokeTimeout.toMillis(), forecast);
    }

    /** With the proactive rule on or off. */
    public Adaptation withForecast(boolean on) {
        return new Adaptation(qosMonitor, wsMonitor, pathAnalyzer, optimizer, solver, monitorMillis, probeMillis, holdMillis,
                responseTimeDrift, availabilityDrift, visitsDrift, minSamples, unknownFailureMillis, on);
    }
}
