package io.moses.core.frontend;

import jakarta.servlet.http.HttpServletRequest;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Whether a request came over TLS: to this broker's own TLS port, or to a proxy in front that
 * says so ({@code X-Forwarded-Proto: https}, as HAProxy does on its TLS front). Every answer to
 * such a request carries {@code Strict-Transport-Security}, errors included; over plain HTTP none
 * does (a browser ignores it there anyway). The proxy's header is believed from anyone: a plain
 * client that claims https only gets a Secure cookie its browser will not send over plain HTTP
 * and an HSTS header its browser ignores, nothing it could not have without the claim.
 */
public final class TransportSecurity extends Handler.Wrapper {
    static final String HSTS = "max-age=31536000";
    static final String FORWARDED_PROTO = "X-Forwarded-Proto";

    TransportSecurity(Handler next) {
        super(next);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        if (request.isSecure() || https(request.getHeaders().get(FORWARDED_PROTO)))
            response.getHeaders().put("Strict-Transport-Security", HSTS);
        return super.handle(request, response, callback);
    }

    /** Whether the servlet request came over TLS, here or at the proxy in front (a Secure cookie then). */
    public static boolean secure(HttpServletRequest req) {
        return req.isSecure() || https(req.getHeader(FORWARDED_PROTO));
    }

    /** The first proxy's word (the client's side of the first hop), of a list "https, http". */
    static boolean https(String forwardedProto) {
        if (forwardedProto == null) return false;
        int comma = forwardedProto.indexOf(',');
        return (comma < 0 ? forwardedProto : forwardedProto.substring(0, comma)).trim().equalsIgnoreCase("https");
    }
}
