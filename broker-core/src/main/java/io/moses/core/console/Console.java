package io.moses.core.console;

import io.moses.core.frontend.AuthenticationException;
import io.moses.core.frontend.Authenticator;
import io.moses.core.frontend.OperatorFilter;
import io.moses.mdal.KnowledgeBaseException;
import io.moses.mdal.OperatorSessions;
import io.moses.model.User;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin console at {@code /console/}: static pages (HTML, one script, one stylesheet and
 * the vendored uPlot) that read and act through the JSON admin API only. Operators log in with
 * a form ({@code /console/login}); the login gives a session cookie (HttpOnly, SameSite=Strict, and Secure over TLS)
 * that the console's calls of {@code /admin/*} carry instead of HTTP Basic. Nothing under
 * {@code /console/} but the login page is served without a session or an operator's HTTP Basic
 * credentials. The broker mounts {@link #servlet()} and {@link #guard()} at {@code /console/*},
 * and {@link #admin(Filter)} in front of the admin API.
 */
public final class Console {
    private static final Logger log = LoggerFactory.getLogger(Console.class);
    static final String COOKIE = "moses_console";
    /** Cookie-authenticated changes must carry this header: a form on another site cannot set it (CSRF). */
    static final String ACTION_HEADER = "X-Moses-Console";
    private static final Pattern RESOURCE = Pattern.compile("[A-Za-z0-9_-]+(/[A-Za-z0-9_.-]+)*\\.(html|js|css|txt|svg)");
    private static final Map<String, String> TYPES = Map.of("html", "text/html; charset=utf-8", "js", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8", "txt", "text/plain; charset=utf-8", "svg", "image/svg+xml");

    private final Authenticator authenticator;
    private final ConsoleSessions sessions;
    /** Changes an operator's own password ({@code /console/password}); null: not offered. */
    private final io.moses.sla.Accounts accounts;

    /**
     * @param authenticator checks an operator's name and password (as HTTP Basic would)
     * @param sessions      the knowledge base's console sessions: a login holds on every replica
     * @param wall          the broker's wall clock, which a session's idle time is measured on
     */
    public Console(Authenticator authenticator, OperatorSessions sessions, java.time.Clock wall) {
        this(authenticator, sessions, 8 * 3600_000L, wall, null);
    }

    /** @param accounts where {@code /console/password} changes the operator's own password */
    public Console(Authenticator authenticator, OperatorSessions sessions, java.time.Clock wall, io.moses.sla.Accounts accounts) {
        this(authenticator, sessions, 8 * 3600_000L, wall, accounts);
    }

    Console(Authenticator authenticator, OperatorSessions sessions, long idleMillis, java.time.Clock wall, io.moses.sla.Accounts accounts) {
        this.authenticator = authenticator;
        this.sessions = new ConsoleSessions(sessions, idleMillis, wall::millis);
        this.accounts = accounts;
    }

    /**
     * The operator a request's session cookie belongs to, if the session is open and its user
     * still exists and is an operator (read from the knowledge base at each use).
     *
     * @throws KnowledgeBaseException when the knowledge base cannot tell
     */
    User sessionUser(HttpServletRequest req) {
        return sessions.user(token(req));
    }

    /** 503 for a console session the knowledge base cannot check now (HTTP Basic still works). */
    private static void unavailable(HttpServletResponse res, KnowledgeBaseException e, boolean json) throws IOException {
        log.debug("console session not checked: {}", e.getMessage()); // the knowledge refresh reports the outage
        res.setStatus(503);
        res.setHeader("Retry-After", "2");
        String m = "the knowledge base is unavailable, so console sessions cannot be checked (HTTP Basic still works): " + e.getMessage();
        if (json) {
            res.setContentType("application/json");
            res.getWriter().write(new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(Map.of("error", m)));
        } else {
            res.setContentType("text/plain; charset=utf-8");
            res.getWriter().write(m + "\n");
        }
    }

    private static String token(HttpServletRequest req) {
        Cookie[] cookies = req.getCookies();
        if (cookies == null) return null;
        for (Cookie c : cookies) if (COOKIE.equals(c.getName())) return c.getValue();
        return null;
    }

    /** The operator of an HTTP Basic header, null without one or when wrong or not an operator. */
    private User basicOperator(HttpServletRequest req) {
        String header = req.getHeader("Authorization");
        if (header == null) return null;
        try {
            User u = authenticator.userOf(header);
            return u != null && u.isOperator() ? u : null;
        } catch (AuthenticationException e) {
            return null;
        }
    }

    /** Guards {@code /console/*}: the login page for everyone, the rest for operators only. */
    public Filter guard() {
        return new HttpFilter() {
            @Override
            protected void doFilter(HttpServletRequest req, HttpServletResponse res, FilterChain chain) throws IOException, ServletException {
                String path = path(req);
                if (path.equals("/login") || path.equals("/logout")) {
                    chain.doFilter(req, res);
                    return;
                }
                User u;
                try {
                    u = sessionUser(req);
                } catch (KnowledgeBaseException e) {
                    u = basicOperator(req);
                    if (u == null) {
                        unavailable(res, e, false);
                        return;
                    }
                }
                if (u == null) u = basicOperator(req);
                if (u != null) {
                    req.setAttribute(OperatorFilter.USER_ATTRIBUTE, u);
                    chain.doFilter(req, res);
                    return;
                }
                securityHeaders(res);
                res.setHeader("Cache-Control", "no-store");
                if (path.isEmpty() || path.equals("/") || path.endsWith(".html")) {
                    res.sendRedirect("/console/login");
                } else {
                    res.setStatus(401);
                    res.setContentType("text/plain; charset=utf-8");
                    res.getWriter().write("log in at /console/login first\n");
                }
            }
        };
    }

    /**
     * In front of the admin API: a request with a console session is let through as its
     * operator (a change only with the console's header); any other goes to the operator check.
     */
    public Filter admin(Filter operatorCheck) {
        return new HttpFilter() {
            @Override
            protected void doFilter(HttpServletRequest req, HttpServletResponse res, FilterChain chain) throws IOException, ServletException {
                User u;
                try {
                    u = req.getHeader("Authorization") == null ? sessionUser(req) : null;
                } catch (KnowledgeBaseException e) {
                    unavailable(res, e, true);
                    return;
                }
                if (u == null) {
                    operatorCheck.doFilter(req, res, chain);
                    return;
                }
                if (!req.getMethod().equals("GET") && !req.getMethod().equals("HEAD") && req.getHeader(ACTION_HEADER) == null) {
                    res.setStatus(403);
                    res.setContentType("application/json");
                    res.getWriter().write("{\"error\":\"a console session changes nothing without the " + ACTION_HEADER + " header\"}");
                    return;
                }
                req.setAttribute(OperatorFilter.USER_ATTRIBUTE, u);
                chain.doFilter(req, res);
            }
        };
    }

    /** Serves the console's pages and the login. */
    /**
     * {@code /favicon.ico}: no icon (204). Browsers ask the site's root for one whenever a page
     * names none (a script or JSON opened in a tab), and a 404 there is an error in every
     * operator's browser console.
     */
    public static HttpServlet noIcon() {
        return new HttpServlet() {
            @Override
            protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
                resp.setStatus(HttpServletResponse.SC_NO_CONTENT);
                resp.setHeader("Cache-Control", "max-age=86400");
            }
        };
    }

    public HttpServlet servlet() {
        return new HttpServlet() {
            @Override
            protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
                String path = path(req);
                if (path.isEmpty()) {
                    res.sendRedirect("/console/");
                    return;
                }
                if (path.equals("/login")) {
                    loginPage(res, 200, null);
                    return;
                }
                if (path.equals("/logout")) {
                    res.sendRedirect("/console/login");
                    return;
                }
                if (path.equals("/password") && accounts != null) {
                    passwordPage(res, 200, null);
                    return;
                }
                String name = path.equals("/") ? "index.html" : path.substring(1);
                if (!RESOURCE.matcher(name).matches()) {
                    notFound(res, path);
                    return;
                }
                try (InputStream in = Console.class.getResourceAsStream("/console/" + name)) {
                    if (in == null) {
                        notFound(res, path);
                        return;
                    }
                    securityHeaders(res);
                    res.setContentType(TYPES.get(name.substring(name.lastIndexOf('.') + 1)));
                    res.setHeader("Cache-Control", name.startsWith("vendor/") ? "private, max-age=86400" : "no-cache");
                    in.transferTo(res.getOutputStream());
                }
            }

            @Override
            protected void doPost(HttpServletRequest req, HttpServletResponse res) throws IOException {
                String path = path(req);
                if (!sameOrigin(req)) { // a form posted from another site: neither a login nor a logout of ours
                    log.info("console {} refused: posted from {}", path, printable(req.getHeader("Origin")));
                    res.sendError(403, "a console form is posted from the console's own origin");
                    return;
                }
                if (path.equals("/logout")) {
                    try {
                        sessions.close(token(req)); // on every replica
                    } catch (KnowledgeBaseException e) {
                        log.warn("console logout not stored: {}", e.getMessage());
                        loginPage(res, 503, "The knowledge base is unavailable: the session could not be ended. Try again.");
                        return;
                    }
                    res.addHeader("Set-Cookie", COOKIE + "=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict" + secure(req));
                    res.sendRedirect("/console/login");
                    return;
                }
                if (path.equals("/password") && accounts != null) {
                    changePassword(req, res);
                    return;
                }
                if (!path.equals("/login")) {
                    res.sendError(405);
                    return;
                }
                String user = req.getParameter("user");
                String password = req.getParameter("password");
                if (user == null || user.isBlank() || password == null || password.isEmpty()) {
                    loginPage(res, 401, "Enter an operator's name and password.");
                    return;
                }
                User u;
                try {
                    u = authenticator.userOf("Basic " + Base64.getEncoder().encodeToString(
                            (user + ":" + password).getBytes(StandardCharsets.UTF_8)));
                } catch (AuthenticationException e) {
                    log.info("console login refused for '{}': {}", printable(user), e.getMessage());
                    boolean delayed = e.getMessage().startsWith("too many");
                    loginPage(res, delayed ? 429 : 401, delayed ? "Too many failed logins" + e.getMessage().substring(e.getMessage().indexOf(':')) + "."
                            : "Unknown user or wrong password.");
                    return;
                }
                if (u == null || !u.isOperator()) {
                    log.info("console login refused for '{}': not an operator", printable(user));
                    loginPage(res, 403, "User '" + user + "' is not an operator.");
                    return;
                }
                String token;
                try {
                    token = sessions.open(u.name());
                } catch (KnowledgeBaseException e) {
                    log.warn("console login of {} not stored: {}", u.name(), e.getMessage());
                    boolean refused = e.kind() == KnowledgeBaseException.Kind.INVALID; // no operator any more, as stored now
                    loginPage(res, refused ? 403 : 503, refused ? "User '" + user + "' is not an operator."
                            : "The knowledge base is unavailable: no session can be opened now. Try again.");
                    return;
                }
                res.addHeader("Set-Cookie", COOKIE + "=" + token + "; Path=/; HttpOnly; SameSite=Strict" + secure(req));
                log.info("operator {} logged in to the console", u.name());
                res.sendRedirect("/console/");
            }
        };
    }

    /**
     * The operator's own new password, from the form at {@code /console/password}: the current
     * password is asked again (a session alone, perhaps left open on a shared screen, does not
     * change it). Every session of the operator ends, this one too: it logs in with the new one.
     */
    private void changePassword(HttpServletRequest req, HttpServletResponse res) throws IOException {
        User u = (User) req.getAttribute(OperatorFilter.USER_ATTRIBUTE); // the guard let only an operator through
        String current = req.getParameter("current");
        String password = req.getParameter("password");
        if (current == null || current.isEmpty() || password == null || !password.equals(req.getParameter("confirm"))) {
            passwordPage(res, 400, "Enter your current password, and the new one twice, the same.");
            return;
        }
        try {
            authenticator.userOf("Basic " + Base64.getEncoder().encodeToString((u.name() + ":" + current).getBytes(StandardCharsets.UTF_8)));
        } catch (AuthenticationException e) {
            log.info("console password change of {} refused: {}", u.name(), e.getMessage());
            passwordPage(res, e.getMessage().startsWith("too many") ? 429 : 403, "The current password is wrong.");
            return;
        }
        try {
            accounts.changePassword(u, u.name(), password);
        } catch (io.moses.sla.SlaException e) {
            passwordPage(res, e.code().httpStatus(), e.getMessage().substring(0, 1).toUpperCase(java.util.Locale.ROOT)
                    + e.getMessage().substring(1) + ".");
            return;
        }
        res.addHeader("Set-Cookie", COOKIE + "=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict" + secure(req));
        page(res, "/console/login.html", 200, "<p class=\"notice\" id=\"password-changed\">Password changed: log in with the new one.</p>");
    }

    private static void passwordPage(HttpServletResponse res, int status, String error) throws IOException {
        page(res, "/console/password.html", status, error == null ? "" : "<p class=\"error\" id=\"password-error\">" + escape(error) + "</p>");
    }

    /**
     * A browser names the origin of every form it posts; one from another site is refused (the
     * SameSite=Strict cookie already keeps a session out of it, this keeps the forms out too).
     * A client that sends no Origin (a script, curl) is not a browser on another site.
     */
    static boolean sameOrigin(HttpServletRequest req) {
        String origin = req.getHeader("Origin");
        if (origin == null) return true;
        String host = req.getHeader("Host");
        if (host == null) return false;
        try {
            java.net.URI o = new java.net.URI(origin);
            java.net.URI h = new java.net.URI("http://" + host); // Host is host[:port]
            if (o.getHost() == null || h.getHost() == null || !o.getHost().equalsIgnoreCase(h.getHost())) return false;
            int originPort = o.getPort() != -1 ? o.getPort() : "https".equalsIgnoreCase(o.getScheme()) ? 443 : 80;
            // a Host without a port is the scheme's default, whichever scheme a proxy in front speaks
            return h.getPort() == -1 ? originPort == 80 || originPort == 443 : originPort == h.getPort();
        } catch (java.net.URISyntaxException e) {
            return false;
        }
    }

    /**
     * Secure when the console is served over TLS (here or at the proxy in front): the browser
     * then never sends the session over plain HTTP. Not over plain HTTP, where a browser would
     * refuse to store it.
     */
    private static String secure(HttpServletRequest req) {
        return io.moses.core.frontend.TransportSecurity.secure(req) ? "; Secure" : "";
    }

    private static String path(HttpServletRequest req) {
        return req.getPathInfo() == null ? "" : req.getPathInfo();
    }

    private static void notFound(HttpServletResponse res, String path) throws IOException {
        res.setStatus(404);
        res.setContentType("text/plain; charset=utf-8");
        res.getWriter().write("no console page " + path + "\n");
    }

    private static void securityHeaders(HttpServletResponse res) {
        // uPlot sizes its canvases through style attributes: inline styles yes, inline scripts no
        res.setHeader("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'");
        res.setHeader("X-Content-Type-Options", "nosniff");
        // same-origin, not no-referrer: under no-referrer a browser sends "Origin: null" with the
        // console's own forms, and the origin check (sameOrigin) could not tell them from a sandboxed attacker's
        res.setHeader("Referrer-Policy", "same-origin");
    }

    private static void loginPage(HttpServletResponse res, int status, String error) throws IOException {
        page(res, "/console/login.html", status, error == null ? "" : "<p class=\"error\" id=\"login-error\">" + escape(error) + "</p>");
    }

    /** A form page with {@code message} (HTML, escaped by the caller) in place of its {@code <!--error-->}. */
    private static void page(HttpServletResponse res, String resource, int status, String message) throws IOException {
        securityHeaders(res);
        res.setStatus(status);
        res.setHeader("Cache-Control", "no-store");
        res.setContentType("text/html; charset=utf-8");
        String page;
        try (InputStream in = Console.class.getResourceAsStream(resource)) {
            page = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        res.getWriter().write(page.replace("<!--error-->", message));
    }

    /** A name from a form as it may appear in a log line: one line, not too long. */
    static String printable(String s) {
        String p = s.replaceAll("\\p{Cntrl}", "?");
        return p.length() > 64 ? p.substring(0, 64) + "..." : p;
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;").replace("'", "&#39;");
    }
}
