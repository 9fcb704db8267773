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
 *                         and {@code ${count}} (this service's request number) are replaced
 * @param replyNamespace   namespace of the reply template's root element
 * @param replyElement     local name of the reply template's root element
 * @param initial          settings at start and after a reset
 */
public record StubSpec(String name, String namespace, String requestElement, String operation, String style,
                       String echo, String replyTemplate, String replyNamespace, String replyElement, Settings initial) {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]+");

    public StubSpec {
        if (name == null || !NAME.matcher(name).matches())
            throw new IllegalArgumentException("name must match " + NAME + ", was " + name);
        if (namespace == null) namespace = "";
        if (requestElement == null || requestElement.isBlank()) throw new IllegalArgumentException("request is missing");
        if (!"document".equals(style) && !"rpc".equals(style))
            throw new IllegalArgumentException("style must be document or rpc, was " + style);
        if (replyTemplate == null || replyTemplate.isBlank()) throw new IllegalArgumentException("reply is missing");
        if (initial == null) throw new IllegalArgumentException("settings are missing");
    }

    /** The request element in Clark notation, {namespace}local. */
    String requestName() {
        return "{" + namespace + "}" + requestElement;
    }
}
