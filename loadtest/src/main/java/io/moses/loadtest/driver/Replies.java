package io.moses.loadtest.driver;

import java.io.IOException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Classifies a reply or a failure to get one; regexes, not a parser: the driver must stay cheap per request. */
final class Replies {
    /**
     * A request to the broker (or the direct target) that did not succeed, as the load driver saw
     * it: the kind of error and its message; null from {@link #classify(int, String)} means success.
     */
    record RequestError(ErrorKind kind, String message) {}

    private static final int MAX_MESSAGE = 200;
    private static final Pattern FAULT = Pattern.compile("<(?:[\\w.-]+:)?Fault[\\s>/]");
    private static final Pattern FAULT11 = Pattern.compile("<(?:[\\w.-]+:)?faultstring[^>]*>(.*?)</", Pattern.DOTALL);
    private static final Pattern FAULT12 = Pattern.compile(
            "<(?:[\\w.-]+:)?Reason[^>]*>\\s*<(?:[\\w.-]+:)?Text[^>]*>(.*?)</", Pattern.DOTALL);
    private static final Pattern TAGS = Pattern.compile("<[^>]*>");
    private static final Pattern SPACE = Pattern.compile("\\s+");

    private Replies() {}

    /** A SOAP fault is an error whatever the status (SOAP 1.1 faults come with 500, some servers send 200). */
    static RequestError classify(int status, String body) {
        if (body != null && FAULT.matcher(body).find()) {
            return new RequestError(ErrorKind.SOAP_FAULT, "HTTP " + status + ": " + faultString(body));
        }
        if (status < 200 || status > 299) {
            String text = body == null ? "" : clip(SPACE.matcher(TAGS.matcher(body).replaceAll(" ")).replaceAll(" ").trim());
            return new RequestError(ErrorKind.HTTP_STATUS, "HTTP " + status + (text.isEmpty() ? "" : ": " + text));
        }
        return null;
    }

    static RequestError classify(IOException e, long timeoutMs) {
        if (e instanceof HttpConnectTimeoutException) {
            return new RequestError(ErrorKind.CONNECTION, "connect timeout after " + timeoutMs + " ms");
        }
        if (e instanceof HttpTimeoutException) {
            return new RequestError(ErrorKind.TIMEOUT, "no reply within " + timeoutMs + " ms");
        }
        // HttpClient often wraps the informative exception (ConnectException with a null message, ...)
        String message = null;
        for (Throwable t = e; t != null && message == null; t = t.getCause()) message = t.getMessage();
        return new RequestError(ErrorKind.CONNECTION, clip(e.getClass().getSimpleName() + (message == null ? "" : ": " + message)));
    }

    static String faultString(String body) {
        Matcher m = FAULT11.matcher(body);
        if (!m.find()) {
            m = FAULT12.matcher(body);
            if (!m.find()) return "(fault without faultstring)";
        }
        return clip(unescape(SPACE.matcher(m.group(1)).replaceAll(" ").trim()));
    }

    private static String unescape(String s) {
        if (s.indexOf('&') < 0) return s;
        return s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&apos;", "'").replace("&amp;", "&");
    }

    private static String clip(String s) {
        return s.length() <= MAX_MESSAGE ? s : s.substring(0, MAX_MESSAGE) + "...";
    }
}
