package io.moses.loadtest.stubs;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * How an asynchronous stub ({@link StubSpec.Async}) calls back, changeable while it runs like
 * {@link Settings}, with the same field names in the config file and the admin API's JSON.
 *
 * @param delayMillis     the mean time from a request's 202 to its callback, in ms; drawn from
 *                        the service's latency {@code distribution} (and {@code sigma})
 * @param never           true: no request is called back (each counted as skipped)
 * @param skipProbability probability in [0, 1] that one request is never called back
 * @param timeoutMillis   how long one callback may take until its answer's status line; later
 *                        it is failed (never retried)
 * @param user            sent with every callback as HTTP Basic credentials with {@code password},
 *                        or null: none. The broker takes a conversation's messages only from the
 *                        user who started it, so a provider calling back needs that user's
 * @param password        the user's password; never shown in the admin API
 * @param address         where to call back a request whose replyTo holds no address (an empty
 *                        wsa:Address is what a process in this broker sends as its own endpoint
 *                        reference today), or null: such a request is refused with a fault
 */
public record CallbackSettings(double delayMillis, boolean never, double skipProbability, double timeoutMillis, String user,
                               String password, URI address) {
    public static final CallbackSettings DEFAULT = new CallbackSettings(50, false, 0, 5_000, null, null, null);

    static final List<String> FIELDS = List.of("callbackDelayMillis", "callback", "callbackSkipProbability", "callbackTimeoutMillis",
            "callbackUser", "callbackPassword", "callbackAddress");

    public CallbackSettings {
        if (!(delayMillis >= 0) || delayMillis > 86_400_000)
            throw new IllegalArgumentException("callbackDelayMillis must be a number from 0 to 86400000, was " + delayMillis);
        if (!(skipProbability >= 0 && skipProbability <= 1))
            throw new IllegalArgumentException("callbackSkipProbability must be in [0, 1], was " + skipProbability);
        if (!(timeoutMillis >= 1) || timeoutMillis > 3_600_000)
            throw new IllegalArgumentException("callbackTimeoutMillis must be a number from 1 to 3600000, was " + timeoutMillis);
        if (user != null && (user.isEmpty() || user.contains(":")))
            throw new IllegalArgumentException("callbackUser must be a name without ':', was '" + user + "'");
        if ((user == null) != (password == null))
            throw new IllegalArgumentException("callbackUser and callbackPassword go together (null both to send no credentials)");
        if (address != null && !isHttp(address))
            throw new IllegalArgumentException("callbackAddress must be an http(s) URL, was '" + address + "'");
    }

    /** Whether the stubs can call {@code uri} back: an absolute http or https URL with a host. */
    static boolean isHttp(URI uri) {
        return uri.isAbsolute() && ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null;
    }

    /** One callback delay in milliseconds, drawn as {@code latency} draws a latency. */
    double sampleDelayMillis(Settings latency, Random random) {
        if (delayMillis == 0) return 0;
        return new Settings(latency.distribution(), delayMillis, latency.sigma(), 0, latency.failureKind(), true).sampleLatencyMs(random);
    }

    /** The Authorization header of a callback, or null. */
    String authorization() {
        if (user == null) return null;
        return "Basic " + java.util.Base64.getEncoder().encodeToString((user + ":" + password).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** Whether {@code field} is one of these settings' (else perhaps a {@link Settings} field). */
    static boolean isField(String field) {
        return FIELDS.contains(field);
    }

    /**
     * These settings with the fields of {@code patch} that are theirs changed; other fields are
     * left for {@link Settings#with}.
     *
     * @throws IllegalArgumentException naming the field and the reason
     */
    CallbackSettings with(JsonNode patch) {
        double delay = delayMillis, skip = skipProbability, timeout = timeoutMillis;
        boolean n = never;
        String u = user, p = password;
        URI a = address;
        for (Iterator<Map.Entry<String, JsonNode>> it = patch.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> f = it.next();
            JsonNode v = f.getValue();
            switch (f.getKey()) {
                case "callbackDelayMillis" -> delay = number(f.getKey(), v);
                case "callbackSkipProbability" -> skip = number(f.getKey(), v);
                case "callbackTimeoutMillis" -> timeout = number(f.getKey(), v);
                case "callback" -> {
                    if (!v.isTextual() || !(v.textValue().equalsIgnoreCase("always") || v.textValue().equalsIgnoreCase("never")))
                        throw new IllegalArgumentException("callback must be always or never, was " + v);
                    n = v.textValue().equalsIgnoreCase("never");
                }
                case "callbackUser" -> u = textOrNull(f.getKey(), v);
                case "callbackPassword" -> p = textOrNull(f.getKey(), v);
                case "callbackAddress" -> {
                    String text = textOrNull(f.getKey(), v);
                    try {
                        a = text == null ? null : URI.create(text);
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException("callbackAddress must be an http(s) URL, was '" + text + "'");
                    }
                }
                default -> { } // not a callback field
            }
        }
        return new CallbackSettings(delay, n, skip, timeout, u, p, a);
    }

    private static double number(String field, JsonNode v) {
        if (!v.isNumber()) throw new IllegalArgumentException(field + " must be a number, was " + v);
        return v.doubleValue();
    }

    private static String textOrNull(String field, JsonNode v) {
        if (v.isNull()) return null;
        if (!v.isTextual()) throw new IllegalArgumentException(field + " must be a string or null, was " + v);
        return v.textValue();
    }

    /** Into a service's admin JSON: every field but the password. */
    void addTo(Map<String, Object> json) {
        json.put("callback", never ? "never" : "always");
        json.put("callbackDelayMillis", delayMillis);
        json.put("callbackSkipProbability", skipProbability);
        json.put("callbackTimeoutMillis", timeoutMillis);
        json.put("callbackUser", user);
        json.put("callbackAddress", address == null ? null : address.toString());
    }

    @Override
    public String toString() { // the password stays out of the log
        return "CallbackSettings[delayMillis=" + delayMillis + ", never=" + never + ", skipProbability=" + skipProbability
                + ", timeoutMillis=" + timeoutMillis + ", user=" + user + ", address=" + address + "]";
    }
}
