package io.moses.core.frontend;

import io.moses.model.auth.LoginThrottle;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;

/**
 * Names each request's client for the login throttle, so that one client guessing at many names
 * is delayed: the address of its connection, or, when that is a trusted proxy (HAProxy in front),
 * the nearest address in {@code X-Forwarded-For} that is not one. Only proxies named trusted are
 * believed: anyone else could write the header to spread its guesses over made-up addresses.
 */
final class ClientAddressFilter implements Filter {
    private volatile LoginThrottle throttle;
    private volatile TrustedProxies trustedProxies = TrustedProxies.NONE;

    void throttle(LoginThrottle logins, TrustedProxies trusted) {
        this.trustedProxies = trusted;
        this.throttle = logins;
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
        LoginThrottle t = throttle;
        if (t == null || !(req instanceof HttpServletRequest http)) {
            chain.doFilter(req, res);
            return;
        }
        try (LoginThrottle.ClientScope scope = t.fromClient(clientOf(http.getRemoteAddr(), http.getHeader("X-Forwarded-For"), trustedProxies))) {
            chain.doFilter(req, res);
        }
    }

    /**
     * The client's address: {@code remote}, unless it is a trusted proxy; then the last address in
     * {@code forwardedFor} (each proxy appends the one it received from) that is not trusted, or
     * the first one when all are.
     */
    static String clientOf(String remote, String forwardedFor, TrustedProxies trusted) {
        if (forwardedFor == null || !trusted.contains(remote)) return remote;
        String[] hops = forwardedFor.split(",");
        String first = null;
        for (int i = hops.length - 1; i >= 0; i--) {
            String hop = hops[i].strip();
            if (hop.isEmpty()) continue;
            if (!trusted.contains(hop)) return hop;
            first = hop;
        }
        return first == null ? remote : first;
    }
}
