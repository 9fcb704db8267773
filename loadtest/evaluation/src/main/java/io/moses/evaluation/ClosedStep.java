package io.moses.evaluation;

/**
 * One step of the closed model: {@code workers} clients posting back to back for the step's
 * measured window (its first second, the ramp, left out).
 *
 * @param throughput     completed requests per second, as sent (stub calls for the direct target)
 * @param composite      throughput in composite requests per second (throughput / scale)
 * @param cpuMsPerRequest CPU time of the target's process per request, ms (NaN if unknown)
 */
public record ClosedStep(String target, int workers, double seconds, long requests, long errors, double throughput,
                         double composite, double meanMs, double p50Ms, double p95Ms, double cpuMsPerRequest) {
    static final String CSV_HEADER = "target,replicas,workers,seconds,requests,errors,throughput_rps,composite_rps,mean_ms,p50_ms,p95_ms,cpu_ms_per_request";

    String csv() {
        return String.join(",", target, Integer.toString(Target.replicas(target)), Integer.toString(workers), Report.num(seconds), Long.toString(requests),
                Long.toString(errors), Report.num(throughput), Report.num(composite), Report.num(meanMs), Report.num(p50Ms),
                Report.num(p95Ms), Report.num(cpuMsPerRequest));
    }
}
