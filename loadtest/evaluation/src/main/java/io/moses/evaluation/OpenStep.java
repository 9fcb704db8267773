package io.moses.evaluation;

/**
 * One rate of the open model: httperf starting {@code offeredRps} new requests per second, one
 * POST per connection, whatever the replies do.
 *
 * @param rate        the composite-request rate this step stands for (offered / scale)
 * @param offeredRps  the rate httperf was asked for
 * @param sessions    requests httperf was to send; {@code replies} came back with a 2xx
 * @param errors      client timeouts, refused or reset connections, non-2xx replies
 * @param achievedRps 2xx replies per second of the run
 * @param interrupted httperf did not finish in its time bound and was stopped with SIGINT
 * @param saturated   the rate is beyond what the target absorbs (see {@link HttperfOpenModel#saturated})
 */
public record OpenStep(String target, double rate, double offeredRps, long sessions, long replies, long errors, double seconds,
                       double achievedRps, double meanMs, double p50Ms, double p95Ms, double p99Ms, double maxMs,
                       double cpuMsPerRequest, boolean interrupted, boolean saturated) {
    static final String CSV_HEADER = "target,replicas,rate,offered_rps,sessions,replies,errors,seconds,achieved_rps,mean_ms,p50_ms,p95_ms,p99_ms,max_ms,cpu_ms_per_request,interrupted,saturated";

    String csv() {
        return String.join(",", target, Integer.toString(Target.replicas(target)), Report.num(rate), Report.num(offeredRps), Long.toString(sessions), Long.toString(replies),
                Long.toString(errors), Report.num(seconds), Report.num(achievedRps), Report.num(meanMs), Report.num(p50Ms),
                Report.num(p95Ms), Report.num(p99Ms), Report.num(maxMs), Report.num(cpuMsPerRequest),
                Boolean.toString(interrupted), Boolean.toString(saturated));
    }

    OpenStep withSaturated(boolean s) {
        return new OpenStep(target, rate, offeredRps, sessions, replies, errors, seconds, achievedRps, meanMs, p50Ms, p95Ms, p99Ms,
                maxMs, cpuMsPerRequest, interrupted, s);
    }
}
