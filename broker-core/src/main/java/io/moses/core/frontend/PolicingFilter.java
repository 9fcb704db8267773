package io.moses.core.frontend;

import io.moses.model.User;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Clock;

/**
 * In front of the overload bound ({@link OverloadFilter}): a composite request (POST) of an authenticated user above
 * the user's agreed rate ({@link RatePolicing}) is, by its class's policy, refused with HTTP 429,
 * a SOAP fault that names the agreed rate, and {@code Retry-After}, before its body is read (it
 * takes no place in the engine, starts no process and counts in none of the class's SLA
 * figures); or passed on marked best-effort ({@link #BEST_EFFORT}), for the overload bound to
 * give a place only with spare capacity and the engine to leave out of the class's figures. Requests
 * that fail authentication pass on, for the endpoint to answer with its fault. A conversation
 * message another replica forwarded here with a valid {@link HopSeal} passes on unpoliced: the
 * replica the caller reached has policed it; a forwarding header without a valid seal counts
 * for nothing.
 */
final class PolicingFilter implements Filter {
    static final int TOO_MANY_REQUESTS = 429;
    /**
     * Request attribute: who the filters in front found the caller to be, a {@link User} or the
     * {@link AuthenticationException} that refused its credentials, so that the endpoint does not
     * check the same password again (a wrong one would count twice against its name).
     */
    static final String CALLER = "io.moses.frontend.caller";
    /** Request attribute: the {@link BestEffort} of a request above its user's rate to be served best-effort. */
    static final String BEST_EFFORT = "io.moses.frontend.bestEffort";

    /** A request above its user's rate to be served best-effort; the overload bound gives its verdict, counted before any reply. */
    record BestEffort(RatePolicing policing, RatePolicing.Excess excess) {
        void placed(boolean placed) {
            policing.bestEffort(excess, placed);
        }
    }

    /** The broker's wall clock, which a hop's seal must be recent on. */
    private final Clock wall;
    private volatile RatePolicing policing;
    private volatile Authenticator authenticator = Authenticator.ANONYMOUS;

    PolicingFilter(Clock wall) {
        this.wall = wall;
    }

    void police(RatePolicing policing, Authenticator authenticator) {
        this.authenticator = authenticator;
        this.policing = policing;
    }

    /** Conversation messages sealed by another replica of the cluster are not policed again (null: every request is). */
    void trustHops(HopSeal hops) {
        this.hops = hops;
    }

    private volatile HopSeal hops;

    private boolean sealedHop(HttpServletRequest http) {
        HopSeal h = hops;
        String by = http.getHeader(ConversationForwarding.HOP_HEADER);
        return h != null && by != null && h.verifies(by, http.getMethod(), http.getRequestURI(), WholeBodies.bodyOf(http),
                http.getHeader("Authorization"), http.getHeader(HopSeal.HEADER), wall.millis());
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
        RatePolicing p = policing;
        HttpServletRequest http = (HttpServletRequest) req;
        if (!"POST".equals(http.getMethod())) {
            chain.doFilter(req, res);
            return;
        }
        // a callback without credentials: its call's number is its credential, checked by the
        // endpoint; it answers the broker's own call, so it is not policed against the user's rate
        if (http.getHeader("Authorization") == null && (io.moses.adaptation.ReplyTo.callIn(http.getQueryString()) != null
                || http.getHeader(ConversationForwarding.CALL_HEADER) != null)) {
            chain.doFilter(req, res);
            return;
        }
        // the caller is known before the overload bound: a request whose credentials are refused
        // takes no engine place, and a wrong password counts once (the endpoint reuses the answer)
        User user;
        try {
            user = authenticator.userOf(http.getHeader("Authorization"));
            if (user != null) http.setAttribute(CALLER, user);
        } catch (AuthenticationException e) {
            user = null; // the endpoint answers with the reason
            http.setAttribute(CALLER, e);
        }
        http.setAttribute(OverloadFilter.SERVICE_CLASS, user == null ? "" : user.serviceClass()); // reused under overload
        if (user == null || p == null || !p.polices() || sealedHop(http)) {
            chain.doFilter(req, res);
            return;
        }
        RatePolicing.Excess excess = p.take(user);
        if (excess == null) { // one log line when a user's episode above its rate begins and one when it ends: RatePolicing
            chain.doFilter(req, res);
            return;
        }
        if (excess.bestEffort()) {
            http.setAttribute(BEST_EFFORT, new BestEffort(p, excess));
            chain.doFilter(req, res);
            return;
        }
        HttpServletResponse response = (HttpServletResponse) res;
        RefusedBodies.keepConnection(http, response);
        FaultReplies.send(http, response, TOO_MANY_REQUESTS, Long.toString(excess.retryAfterSeconds()), true,
                excess.reason());
    }
}
