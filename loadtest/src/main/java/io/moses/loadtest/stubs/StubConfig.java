package io.moses.loadtest.stubs;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.xml.XMLConstants;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * The stub services one {@link StubServer} serves, read from YAML or JSON (by the file's
 * extension: {@code .json} is JSON, anything else YAML). Format:
 * <pre>
 * defaults:                    # optional; any settings field, applied to every service
 *   latencyMs: 20
 * services:
 *   - name: flight-a           # served at /stubs/flight-a
 *     namespace: urn:moses:task:flight
 *     request: findFlightRequest
 *     operation: findFlight    # optional, default: request minus a trailing "Request"
 *     style: document          # optional, document | rpc
 *     echo: customer           # optional
 *     reply: '&lt;t:findFlightResponse xmlns:t="urn:moses:task:flight"&gt;&lt;t:result&gt;... ${echo} by ${service}&lt;/t:result&gt;&lt;/t:findFlightResponse&gt;'
 *     latencyMs: 40            # settings fields: see {@link Settings}
 *     distribution: lognormal
 *     sigma: 0.5
 *     failureProbability: 0
 *     failureKind: fault       # fault | drop
 *     up: true
 *   - name: hotel-room-a       # a stateful provider: see {@link StubSpec.Reservations}
 *     kind: reservation        # optional, reply (the default: answers its reply) | reservation | async
 *     namespace: urn:moses:task:room
 *     maxOpen: 100000          # optional; its operations are fixed, so no request, reply, echo
 *   - name: supplier-a         # a long-running provider that calls back: see {@link StubSpec.Async}
 *     kind: async
 *     namespace: urn:moses:task:supplier
 *     maxPending: 10000        # optional
 *     price: 100.00            # optional, the base of its quotes' prices
 *     callbackDelayMillis: 50  # callback settings: see {@link CallbackSettings}
 * </pre>
 */
public record StubConfig(List<StubSpec> services) {
    /** The default config: the partners of the processes in bpel-processes/. */
    public static final String DEFAULT_RESOURCE = "default-stubs.yaml";
    private static final Set<String> SPEC_FIELDS = Set.of("name", "namespace", "request", "operation", "style", "echo", "reply",
            "kind", "maxOpen", "maxPending", "price");
    /** The fields that shape a reply stub's one operation: a reservation or asynchronous service's operations are fixed. */
    private static final List<String> REPLY_FIELDS = List.of("request", "operation", "style", "echo", "reply");

    public StubConfig {
        services = List.copyOf(services);
        Set<String> names = new HashSet<>();
        for (StubSpec s : services)
            if (!names.add(s.name())) throw new IllegalArgumentException("service name '" + s.name() + "' appears twice");
        if (services.isEmpty()) throw new IllegalArgumentException("no services configured");
    }

    /** Reads a config file; the exception message names the file, the service and the field. */
    public static StubConfig load(Path file) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        try {
            return parse(text, !file.getFileName().toString().toLowerCase().endsWith(".json"));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("stub config " + file + ": " + e.getMessage(), e);
        }
    }

    /** The config shipped with this module ({@value #DEFAULT_RESOURCE}). */
    public static StubConfig defaults() {
        try (InputStream in = StubConfig.class.getResourceAsStream(DEFAULT_RESOURCE)) {
            if (in == null) throw new IllegalStateException("resource " + DEFAULT_RESOURCE + " is missing from the class path");
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), true);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + DEFAULT_RESOURCE, e);
        }
    }

    /** Parses YAML ({@code yaml}) or JSON text. */
    public static StubConfig parse(String text, boolean yaml) {
        ObjectMapper mapper = yaml ? new ObjectMapper(new YAMLFactory()) : new ObjectMapper();
        JsonNode root;
        try {
            root = mapper.readTree(text);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("not valid " + (yaml ? "YAML" : "JSON") + ": " + e.getOriginalMessage()
                    + (e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr()));
        }
        if (root == null || !root.isObject()) throw new IllegalArgumentException("expected an object with 'services'");
        for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!f.equals("services") && !f.equals("defaults"))
                throw new IllegalArgumentException("unknown top-level field '" + f + "' (known: services, defaults)");
        }
        Settings defaults = Settings.DEFAULT;
        if (root.has("defaults")) {
            try {
                defaults = defaults.with(root.get("defaults"));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("defaults: " + e.getMessage());
            }
        }
        JsonNode list = root.get("services");
        if (list == null || !list.isArray()) throw new IllegalArgumentException("'services' must be a list");
        List<StubSpec> specs = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            JsonNode s = list.get(i);
            String label = s.hasNonNull("name") ? "service '" + s.get("name").asText() + "'" : "service #" + (i + 1);
            try {
                specs.add(spec(s, defaults));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(label + ": " + e.getMessage());
            }
        }
        return new StubConfig(specs);
    }

    private static StubSpec spec(JsonNode s, Settings defaults) {
        if (!s.isObject()) throw new IllegalArgumentException("expected an object");
        ObjectNode settings = ((ObjectNode) s).objectNode();
        for (Iterator<Map.Entry<String, JsonNode>> it = s.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> f = it.next();
            if (Settings.FIELDS.contains(f.getKey())) settings.set(f.getKey(), f.getValue());
            else if (!SPEC_FIELDS.contains(f.getKey()) && !CallbackSettings.isField(f.getKey()))
                throw new IllegalArgumentException("unknown field '" + f.getKey() + "' (known: " + SPEC_FIELDS + ", " + Settings.FIELDS
                        + " and, for kind async, " + CallbackSettings.FIELDS + ")");
        }
        String kind = text(s, "kind", "reply");
        if (!kind.equals("async"))
            for (String f : CallbackSettings.FIELDS)
                if (s.has(f)) throw new IllegalArgumentException(f + " is for kind async only");
        if (!kind.equals("async") && (s.has("maxPending") || s.has("price")))
            throw new IllegalArgumentException((s.has("price") ? "price" : "maxPending") + " is for kind async only");
        if (kind.equals("async")) return async(s, defaults.with(settings));
        if (kind.equals("reservation")) return reservations(s, defaults.with(settings));
        if (!kind.equals("reply")) throw new IllegalArgumentException("kind must be reply, reservation or async, was '" + kind + "'");
        if (s.has("maxOpen")) throw new IllegalArgumentException("maxOpen is for kind reservation only");
        String request = text(s, "request", null);
        if (request == null) throw new IllegalArgumentException("request is missing (the local name of the request element)");
        String operation = text(s, "operation", request.endsWith("Request") && request.length() > 7
                ? request.substring(0, request.length() - 7) : request);
        String reply = text(s, "reply", null);
        if (reply == null) throw new IllegalArgumentException("reply is missing (the XML the stub answers with)");
        String[] root = replyRoot(reply);
        return new StubSpec(text(s, "name", null), text(s, "namespace", ""), request, operation, text(s, "style", "document"),
                text(s, "echo", null), reply.strip(), root[0], root[1], defaults.with(settings), null, null);
    }

    private static StubSpec reservations(JsonNode s, Settings initial) {
        for (String f : REPLY_FIELDS)
            if (s.has(f))
                throw new IllegalArgumentException("field '" + f + "' does not apply to kind reservation (its operations are fixed: "
                        + StubSpec.Reservations.RESERVE_REQUEST + " and " + StubSpec.Reservations.CONFIRM_REQUEST + ")");
        int maxOpen = whole(s, "maxOpen", StubSpec.Reservations.DEFAULT_MAX_OPEN);
        return StubSpec.reservationService(text(s, "name", null), text(s, "namespace", ""), initial, maxOpen);
    }

    private static StubSpec async(JsonNode s, Settings initial) {
        for (String f : REPLY_FIELDS)
            if (s.has(f))
                throw new IllegalArgumentException("field '" + f + "' does not apply to kind async (its messages are fixed: "
                        + StubSpec.Async.REQUEST + " and its callback " + StubSpec.Async.CALLBACK + ")");
        if (s.has("maxOpen")) throw new IllegalArgumentException("maxOpen is for kind reservation only");
        long priceCents = StubSpec.Async.DEFAULT_PRICE_CENTS;
        JsonNode p = s.get("price");
        if (p != null && !p.isNull()) {
            if (!p.isNumber()) throw new IllegalArgumentException("price must be a number, was " + p);
            try {
                priceCents = p.decimalValue().movePointRight(2).longValueExact();
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException("price must have at most two decimals, was " + p);
            }
        }
        CallbackSettings callbacks = CallbackSettings.DEFAULT.with(s);
        return StubSpec.asyncService(text(s, "name", null), text(s, "namespace", ""), initial,
                new StubSpec.Async(whole(s, "maxPending", StubSpec.Async.DEFAULT_MAX_PENDING), priceCents, callbacks));
    }

    private static int whole(JsonNode s, String field, int otherwise) {
        JsonNode v = s.get(field);
        if (v == null || v.isNull()) return otherwise;
        if (!v.canConvertToInt() || !v.isIntegralNumber()) throw new IllegalArgumentException(field + " must be a whole number, was " + v);
        return v.intValue();
    }

    private static String text(JsonNode s, String field, String otherwise) {
        JsonNode v = s.get(field);
        if (v == null || v.isNull()) return otherwise;
        if (!v.isTextual()) throw new IllegalArgumentException(field + " must be a string, was " + v);
        return v.textValue();
    }

    /** Checks the template is one well-formed element (placeholders filled in) and returns its {namespace, local name}. */
    private static String[] replyRoot(String template) {
        String sample = template.replace("${service}", "s").replace("${echo}", "e").replace("${count}", "1");
        try {
            XMLInputFactory f = XMLInputFactory.newFactory();
            f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
            f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
            XMLStreamReader r = f.createXMLStreamReader(new StringReader(sample));
            String[] root = null;
            while (r.hasNext()) {
                int e = r.next();
                if (e == XMLStreamConstants.START_ELEMENT && root == null)
                    root = new String[] {r.getNamespaceURI() == null ? XMLConstants.NULL_NS_URI : r.getNamespaceURI(), r.getLocalName()};
            }
            if (root == null) throw new IllegalArgumentException("reply has no element");
            return root;
        } catch (XMLStreamException e) {
            throw new IllegalArgumentException("reply is not well-formed XML: " + e.getMessage());
        }
    }
}
