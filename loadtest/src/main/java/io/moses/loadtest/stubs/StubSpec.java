package io.moses.loadtest.stubs;

import java.util.regex.Pattern;

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
 *                         null for a reservation service, whose answers are its own
 * @param replyNamespace   namespace of the reply template's root element
 * @param replyElement     local name of the reply template's root element
 * @param initial          settings at start and after a reset
 * @param reservations     null for a stub that answers its reply template; else a reservation
 *                         service, and the request and reply fields above name its reserve operation
 */
public record StubSpec(String name, String namespace, String requestElement, String operation, String style,
                       String echo, String replyTemplate, String replyNamespace, String replyElement, Settings initial,
                       Reservations reservations) {
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

    public StubSpec {
        if (name == null || !NAME.matcher(name).matches())
            throw new IllegalArgumentException("name must match " + NAME + ", was " + name);
        if (namespace == null) namespace = "";
        if (requestElement == null || requestElement.isBlank()) throw new IllegalArgumentException("request is missing");
        if (!"document".equals(style) && !"rpc".equals(style))
            throw new IllegalArgumentException("style must be document or rpc, was " + style);
        if (reservations == null && (replyTemplate == null || replyTemplate.isBlank())) throw new IllegalArgumentException("reply is missing");
        if (initial == null) throw new IllegalArgumentException("settings are missing");
    }

    /** A reservation service named {@code name} in {@code namespace}. */
    public static StubSpec reservationService(String name, String namespace, Settings initial, int maxOpen) {
        return new StubSpec(name, namespace, Reservations.RESERVE_REQUEST, "reserve", "document", null, null, namespace,
                Reservations.RESERVE_RESPONSE, initial, new Reservations(maxOpen));
    }

    /** The request element in Clark notation, {namespace}local. */
    String requestName() {
        return "{" + namespace + "}" + requestElement;
    }
}
