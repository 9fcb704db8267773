package io.moses.loadtest.driver;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * What a closed-loop run does: {@code clients} users each sending one SOAP request, waiting for
 * its reply and sending the next, until {@code maxRequests} measured requests were sent or
 * {@code maxDuration} of measurement passed, whichever comes first.
 *
 * @param target           the endpoint (absolute http/https URI)
 * @param soapAction       the SOAPAction (SOAP 1.1 header; {@code action} parameter for SOAP 1.2); null or empty for none
 * @param bodies           the request envelopes
 * @param credentials      Basic credentials assigned to clients in turn (client i gets {@code i % size}); empty for none
 * @param clients          concurrent clients, one platform thread each
 * @param maxRequests      measured requests to send; 0 for no count bound
 * @param maxDuration      length of the measured phase; null for no time bound (at least one bound is required)
 * @param warmupRequests   requests sent before measuring; excluded from all statistics and from the bounds
 * @param requestTimeout   per request, from sending to the complete reply (also the connect timeout)
 * @param tally            optional: capture group 1 of each match in a successful reply is counted
 * @param progress         optional callback, called every {@code progressInterval} from the thread that called run
 * @param progressInterval how often to call {@code progress}
 */
public record LoadSpec(URI target, String soapAction, BodySource bodies, List<UserCredentials> credentials, int clients,
                       long maxRequests, Duration maxDuration, long warmupRequests, Duration requestTimeout,
                       Pattern tally, Consumer<Progress> progress, Duration progressInterval) {

    public LoadSpec {
        if (target == null) throw new IllegalArgumentException("target: URI is required");
        if (!target.isAbsolute() || target.getHost() == null
                || !("http".equalsIgnoreCase(target.getScheme()) || "https".equalsIgnoreCase(target.getScheme())))
            throw new IllegalArgumentException("target: expected an absolute http(s) URI, got '" + target + "'");
        if (soapAction == null) soapAction = "";
        if (bodies == null) throw new IllegalArgumentException("bodies: a request body source is required");
        credentials = credentials == null ? List.of() : List.copyOf(credentials);
        if (clients < 1) throw new IllegalArgumentException("clients: must be at least 1, got " + clients);
        if (maxRequests < 0) throw new IllegalArgumentException("maxRequests: must be >= 0 (0 = no bound), got " + maxRequests);
        if (maxDuration != null && (maxDuration.isNegative() || maxDuration.isZero()))
            throw new IllegalArgumentException("maxDuration: must be positive (null = no bound), got " + maxDuration);
        if (maxRequests == 0 && maxDuration == null)
            throw new IllegalArgumentException("bounds: give maxRequests or maxDuration (or both), otherwise the run never ends");
        if (warmupRequests < 0) throw new IllegalArgumentException("warmupRequests: must be >= 0, got " + warmupRequests);
        if (requestTimeout == null) requestTimeout = Duration.ofSeconds(30);
        if (requestTimeout.isNegative() || requestTimeout.isZero())
            throw new IllegalArgumentException("requestTimeout: must be positive, got " + requestTimeout);
        if (tally != null && tally.matcher("").groupCount() < 1)
            throw new IllegalArgumentException("tally: the regex needs a capture group, e.g. 'by ([a-z]+-[ab])', got '" + tally + "'");
        if (progressInterval == null) progressInterval = Duration.ofSeconds(2);
        if (progressInterval.isNegative() || progressInterval.isZero())
            throw new IllegalArgumentException("progressInterval: must be positive, got " + progressInterval);
    }

    public static Builder builder(URI target, BodySource bodies) {
        return new Builder(target, bodies);
    }

    /** Defaults: 1 client, no credentials, no warm-up, 30 s timeout, no tally, no progress, 2 s interval. */
    public static final class Builder {
        private final URI target;
        private final BodySource bodies;
        private String soapAction = "";
        private List<UserCredentials> credentials = List.of();
        private int clients = 1;
        private long maxRequests;
        private Duration maxDuration;
        private long warmupRequests;
        private Duration requestTimeout = Duration.ofSeconds(30);
        private Pattern tally;
        private Consumer<Progress> progress;
        private Duration progressInterval = Duration.ofSeconds(2);

        private Builder(URI target, BodySource bodies) {
            this.target = target;
            this.bodies = bodies;
        }

        public Builder soapAction(String v) { soapAction = v; return this; }
        public Builder credentials(List<UserCredentials> v) { credentials = v; return this; }
        public Builder clients(int v) { clients = v; return this; }
        public Builder maxRequests(long v) { maxRequests = v; return this; }
        public Builder maxDuration(Duration v) { maxDuration = v; return this; }
        public Builder warmupRequests(long v) { warmupRequests = v; return this; }
        public Builder requestTimeout(Duration v) { requestTimeout = v; return this; }
        public Builder tally(Pattern v) { tally = v; return this; }
        public Builder tally(String regex) { tally = regex == null ? null : Pattern.compile(regex); return this; }
        public Builder progress(Consumer<Progress> v) { progress = v; return this; }
        public Builder progressInterval(Duration v) { progressInterval = v; return this; }

        public LoadSpec build() {
            return new LoadSpec(target, soapAction, bodies, credentials, clients, maxRequests, maxDuration, warmupRequests,
                    requestTimeout, tally, progress, progressInterval);
        }
    }
}
