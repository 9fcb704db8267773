package io.moses.adaptation;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Objects;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The reply address of one call of an asynchronous task (docs/model.md, "Asynchronous tasks"):
 * where the request carries the process's own endpoint reference (a WS-Addressing
 * {@code Address} at the broker's {@code base}), the call's {@code moses-call} number is added to
 * it. The provider calls back there, so the broker knows which call a callback answers: it times
 * that call, and it can discard the late callback of a call it has sent to another provider.
 *
 * @param base where the broker's services are, as a process's references give them ({@code http://host:port/services/})
 * @param call this call's number: random, so that nobody else can answer or discard it
 */
public record ReplyTo(String base, String call) {
    /** The query parameter of a callback's address that names its call. */
    public static final String PARAMETER = "moses-call";
    private static final String WSA = "http://www.w3.org/2005/08/addressing";
    private static final SecureRandom RANDOM = new SecureRandom();

    public ReplyTo {
        Objects.requireNonNull(base, "base");
        Objects.requireNonNull(call, "call");
    }

    /** A new call's reply address at {@code base}. */
    public static ReplyTo at(String base) {
        byte[] b = new byte[15];
        RANDOM.nextBytes(b);
        return new ReplyTo(base, Base64.getUrlEncoder().withoutPadding().encodeToString(b));
    }

    /** The same base, a new call. */
    ReplyTo next() {
        return at(base);
    }

    /**
     * Puts this call's number on every broker address in {@code body}, replacing another call's;
     * true if there was one. The body is changed in place.
     */
    boolean tag(Element body) {
        if (body == null) return false;
        NodeList addresses = body.getElementsByTagNameNS(WSA, "Address");
        boolean tagged = false;
        for (int i = 0; i < addresses.getLength(); i++) {
            Node a = addresses.item(i);
            String text = a.getTextContent().strip();
            if (!text.startsWith(base)) continue;
            int q = text.indexOf('?');
            if (q >= 0 && !text.startsWith(PARAMETER + "=", q + 1)) continue; // an address of its own making: left alone
            a.setTextContent((q < 0 ? text : text.substring(0, q)) + "?" + PARAMETER + "=" + call);
            tagged = true;
        }
        return tagged;
    }

    /** The call a callback's query string names, or null. */
    public static String callIn(String query) {
        if (query == null) return null;
        for (String p : query.split("&"))
            if (p.startsWith(PARAMETER + "=") && p.length() > PARAMETER.length() + 1) {
                String v = p.substring(PARAMETER.length() + 1);
                // a call number is base64url: anything else names no call
                return v.length() <= 64 && v.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '-' || c == '_') ? v : null;
            }
        return null;
    }
}
