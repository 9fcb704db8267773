package io.moses.adaptation;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Objects;
import java.util.function.Supplier;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The reply address of one call of an asynchronous task (docs/model.md, "Asynchronous tasks"):
 * where the request carries the process's own endpoint reference (a WS-Addressing
 * {@code Address} at the broker's {@code base}), the call's {@code moses-call} number is added to
 * it. The provider calls back there, so the broker knows which call a callback answers: it times
 * that call, and it can discard the late callback of a call it has sent to another provider.
 * Numbers are unguessable (so that nobody else can answer or discard a call) and base64url; the
 * engine may make them credentials too.
 */
public final class ReplyTo {
    /** The query parameter of a callback's address that names its call. */
    public static final String PARAMETER = "moses-call";
    private static final String WSA = "http://www.w3.org/2005/08/addressing";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String base;
    private final String call;
    private final Supplier<String> numbers;

    /**
     * @param base    where the broker's services are, as a process's references give them ({@code http://host:port/services/})
     * @param numbers makes call numbers for the conversation: this call's, and another's if the call is sent again
     */
    public ReplyTo(String base, Supplier<String> numbers) {
        this(Objects.requireNonNull(base, "base"), numbers.get(), numbers);
    }

    private ReplyTo(String base, String call, Supplier<String> numbers) {
        this.base = base;
        this.call = Objects.requireNonNull(call, "call");
        this.numbers = numbers;
    }

    /** A new call's reply address at {@code base}, with random numbers. */
    public static ReplyTo at(String base) {
        return new ReplyTo(base, ReplyTo::randomNumber);
    }

    private static String randomNumber() {
        byte[] b = new byte[15];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    public String base() {
        return base;
    }

    /** This call's number. */
    public String call() {
        return call;
    }

    /** The same conversation's reply address for a new call (the same request, sent again). */
    ReplyTo next() {
        return new ReplyTo(base, numbers);
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
                return v.length() <= 256 && v.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '-' || c == '_') ? v : null;
            }
        return null;
    }
}
