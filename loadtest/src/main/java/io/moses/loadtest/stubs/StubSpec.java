package io.moses.loadtest.stubs;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

/**
 * The configured shape of one stub service, served at {@code /stubs/<name>}.
 *
 * @param name             the path segment; letters, digits, '-', '_' and '.'
 * @param namespace        namespace of the request element it accepts
 * @param requestElement   local name of the request element (first child of the SOAP Body)
 * @param operation        operation name in its ?wsdl document
 * @param style            "document" or "rpc": only the ?wsdl document differs
 * @param echo             local name of a child of the request element whose text replaces
 *                         {@code ${echo}} in the reply, or null; the child must be in the request
 *                         element's namespace or in none, and a request without it gets a fault
 * @param replyTemplate    the SOAP Body content of the reply; {@code ${service}}, {@code ${echo}}
 *                         and {@code ${count}} (this service's request number) are replaced;
 *                         null for a reservation or an asynchronous service, whose answers are its own
 * @param replyNamespace   namespace of the reply template's root element
 * @param replyElement     local name of the reply template's root element (an asynchronous
 *                         service: of its callback message)
 * @param initial          settings at start and after a reset
 * @param reservations     null for a stub that answers its reply template; else a reservation
 *                         service, and the request and reply fields above name its reserve operation
 * @param async            null unless an asynchronous service, whose request and reply fields
 *                         above name its one-way request and its callback
 */
public record StubSpec(String name, String namespace, String requestElement, String operation, String style,
                       String echo, String replyTemplate, String replyNamespace, String replyElement, Settings initial,
                       Reservations reservations, Async async) {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]+");

    /**
     * A stateful provider: {@code reserve(guest, nights)} answers a reservation id of its own,
     * {@code confirm(reservationId)} confirms only an id this service issued and has not
     * confirmed yet, and answers any other id with a SOAP fault, as a real provider that never
     * saw the reservation would. Document/literal, both operations at the one path, in the
     * service's namespace.
     *
     * @param maxOpen reservations held unconfirmed at most (they live in memory); a reserve
     *                beyond them gets a SOAP fault
     */
    public record Reservations(int maxOpen) {
        public static final int DEFAULT_MAX_OPEN = 100_000;
        public static final String RESERVE_REQUEST = "reserveRequest";
        public static final String RESERVE_RESPONSE = "reserveResponse";
        public static final String CONFIRM_REQUEST = "confirmRequest";
        public static final String CONFIRM_RESPONSE = "confirmResponse";

        public Reservations {
            if (maxOpen < 1) throw new IllegalArgumentException("maxOpen must be at least 1, was " + maxOpen);
        }
    }

    /**
     * A long-running provider: {@code requestQuote(requestId, replyTo, item)} is one-way, answered
     * with HTTP 202 and no body once its latency has passed; after its callback delay the
     * service POSTs {@code quoteReady(requestId, price)} to the address in {@code replyTo}.
     * Document/literal, in the service's namespace; the callback's settings are
     * {@link CallbackSettings}.
     *
     * @param maxPending callbacks waiting for their delay or being sent at most; a request beyond
     *                   them is answered 503
     * @param priceCents the base of its prices, in cents: a quote's price is this plus the
     *                   CRC-32 of its request id modulo 1000, in cents (see {@link #price})
     * @param callbacks  the callback settings at start and after a reset
     */
    public record Async(int maxPending, long priceCents, CallbackSettings callbacks) {
        public static final int DEFAULT_MAX_PENDING = 10_000;
        public static final long DEFAULT_PRICE_CENTS = 10_000;
        public static final String REQUEST = "quoteRequest";
        public static final String CALLBACK = "quoteReady";

        public Async {
            if (maxPending < 1) throw new IllegalArgumentException("maxPending must be at least 1, was " + maxPending);
            if (priceCents < 0 || priceCents > 1_000_000_000_000L)
                throw new IllegalArgumentException("price must be from 0 to 10000000000, was " + priceCents / 100.0);
            if (callbacks == null) throw new IllegalArgumentException("callback settings are missing");
        }

        /**
         * The price a service quotes for {@code requestId}: its base plus a few cents that differ
         * from request to request, so that a test can tell which provider quoted which request
         * from the price alone.
         */
        public String price(String requestId) {
            CRC32 crc = new CRC32();
            crc.update(requestId.getBytes(StandardCharsets.UTF_8));
            long cents = priceCents + crc.getValue() % 1000;
            return cents / 100 + "." + (cents % 100 < 10 ? "0" : "") + cents % 100;
        }
    }

    public StubSpec {
        if (name == null || !NAME.matcher(name).matches())
            throw new IllegalArgumentException("name must match " + NAME + ", was " + name);
        if (namespace == null) namespace = "";
        if (requestElement == null || requestElement.isBlank()) throw new IllegalArgumentException("request is missing");
        if (!"document".equals(style) && !"rpc".equals(style))
            throw new IllegalArgumentException("style must be document or rpc, was " + style);
        if (reservations != null && async != null) throw new IllegalArgumentException("a service is a reservation or an asynchronous one, not both");
        if (reservations == null && async == null && (replyTemplate == null || replyTemplate.isBlank()))
            throw new IllegalArgumentException("reply is missing");
        if (initial == null) throw new IllegalArgumentException("settings are missing");
    }

    /** A reservation service named {@code name} in {@code namespace}. */
    public static StubSpec reservationService(String name, String namespace, Settings initial, int maxOpen) {
        return new StubSpec(name, namespace, Reservations.RESERVE_REQUEST, "reserve", "document", null, null, namespace,
                Reservations.RESERVE_RESPONSE, initial, new Reservations(maxOpen), null);
    }

    /** An asynchronous service named {@code name} in {@code namespace}. */
    public static StubSpec asyncService(String name, String namespace, Settings initial, Async async) {
        return new StubSpec(name, namespace, Async.REQUEST, "requestQuote", "document", null, null, namespace, Async.CALLBACK,
                initial, null, async);
    }

    /** The request element in Clark notation, {namespace}local. */
    String requestName() {
        return "{" + namespace + "}" + requestElement;
    }
}
