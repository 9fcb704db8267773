package io.moses.core.frontend;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.moses.model.User;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds the composite requests in the broker ({@link OverloadBound}): a POST to a composite service
 * takes a place for its whole run; without one it waits in a bounded line for a bounded time,
 * and past that it gets a 503 SOAP fault with the reason and {@code Retry-After} at once,
 * without its body being parsed (a small one is read and dropped to keep the connection).
 * GETs (WSDLs) are not counted.
 *
 * <p>The line is ordered by what the caller's class is worth ({@link EnginePlaces},
 * {@link ClassWorth}): under overload the class worth least is refused first. The class is the
 * one {@link PolicingFilter} resolved for the request, else the authenticator's (memory only);
 * it is looked up only when no place is free. A request {@link PolicingFilter} marked best-effort
 * (above its user's agreed rate) is worth least and takes a place only with spare capacity
 * ({@link EnginePlaces#bestEffortPlaces}); refused, it gets a 503 that says so. One log line
 * when refusals start and one with their count when they stop.
 */
final class OverloadFilter implements Filter {
    private static final Logger log = LoggerFactory.getLogger(OverloadFilter.class);
    /** Request attribute: the caller's class as resolved in front of this filter, "" for none. */
    static final String SERVICE_CLASS = "io.moses.frontend.serviceClass";
    /** The class label of callers with none (anonymous, failed authentication). */
    static final String NO_CLASS = "none";

    private final OverloadBound bound;
    private final EnginePlaces places;
    private final AtomicLong refused = new AtomicLong();
    private volatile boolean refusing;
    private volatile ClassWorth worth = new ClassWorth();
    private volatile Authenticator authenticator = Authenticator.ANONYMOUS;
    private volatile MeterRegistry registry;
    private final ConcurrentHashMap<String, Counter> shed = new ConcurrentHashMap<>();

    OverloadFilter(OverloadBound bound) {
        this.bound = bound;
        this.places = new EnginePlaces(bound, System::nanoTime);
    }

    /** Best-effort requests run only while fewer than {@code places} requests do. */
    void bestEffortPlaces(int places) {
        this.places.bestEffortPlaces(places);
    }

    /** Orders the line by class worth and counts refusals per class in {@code registry} (null: not counted). */
    void shedByClass(ClassWorth worth, Authenticator authenticator, MeterRegistry registry) {
        this.authenticator = authenticator;
        this.registry = registry;
        this.worth = worth;
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) req;
        if (!"POST".equals(http.getMethod())) {
            chain.doFilter(req, res);
            return;
        }
        if (http.getAttribute(PolicingFilter.CALLER) instanceof AuthenticationException) {
            chain.doFilter(req, res); // refused credentials: the endpoint faults at once, and takes no place for it
            return;
        }
        PolicingFilter.BestEffort bestEffort = (PolicingFilter.BestEffort) http.getAttribute(PolicingFilter.BEST_EFFORT);
        if (bestEffort != null) {
            EnginePlaces.Ticket t = places.enter(ClassWorth.BEST_EFFORT);
            EnginePlaces.Verdict v = t.verdict() == EnginePlaces.Verdict.WAITING ? awaited(http, t) : t.verdict();
            bestEffort.placed(v == EnginePlaces.Verdict.PLACED);
            if (v != EnginePlaces.Verdict.PLACED) {
                refuseBestEffort(http, (HttpServletResponse) res, bestEffort.excess(), v);
                return;
            }
        } else if (places.tryTake()) {
            if (refusing) recovered();
        } else {
            String serviceClass = classOf(http);
            EnginePlaces.Ticket t = places.enter(worth.of(serviceClass));
            EnginePlaces.Verdict v = t.verdict() == EnginePlaces.Verdict.WAITING ? awaited(http, t) : t.verdict();
            if (v != EnginePlaces.Verdict.PLACED) {
                refuse(http, (HttpServletResponse) res, serviceClass, v);
                return;
            }
        }
        PlaceHolder held = new PlaceHolder((HttpServletResponse) res, places);
        try {
            chain.doFilter(req, held);
        } finally {
            held.release();
        }
    }

    /** Waits for a place; the wait is an event of the request's span, when it is traced. */
    private EnginePlaces.Verdict awaited(HttpServletRequest http, EnginePlaces.Ticket t) {
        long start = System.nanoTime();
        EnginePlaces.Verdict v = places.await(t);
        io.moses.core.tracing.Tracing.waited(http, "engine place", v.name().toLowerCase(java.util.Locale.ROOT), System.nanoTime() - start);
        return v;
    }

    /**
     * The response of a request that holds a place, which it gives back when its body is
     * closed: closing it completes the response at the client, before the endpoint's servlet
     * returns, and a client that sends its next request on the answer must find the place free
     * (with no line, it was refused: OverloadTest, in CI). Given back at most once.
     */
    static final class PlaceHolder extends HttpServletResponseWrapper {
        private final EnginePlaces places;
        private final AtomicBoolean released = new AtomicBoolean();
        private ServletOutputStream body;

        PlaceHolder(HttpServletResponse response, EnginePlaces places) {
            super(response);
            this.places = places;
        }

        void release() {
            if (released.compareAndSet(false, true)) places.release();
        }

        @Override
        public ServletOutputStream getOutputStream() throws IOException {
            if (body == null) body = new ReleasingStream(super.getOutputStream());
            return body;
        }

        private final class ReleasingStream extends ServletOutputStream {
            private final ServletOutputStream out;

            ReleasingStream(ServletOutputStream out) {
                this.out = out;
            }

            @Override
            public void write(int b) throws IOException {
                out.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                out.write(b, off, len);
            }

            @Override
            public void flush() throws IOException {
                out.flush();
            }

            @Override
            public void close() throws IOException {
                release();
                out.close();
            }

            @Override
            public boolean isReady() {
                return out.isReady();
            }

            @Override
            public void setWriteListener(WriteListener listener) {
                out.setWriteListener(listener);
            }
        }
    }

    private String classOf(HttpServletRequest http) {
        Object resolved = http.getAttribute(SERVICE_CLASS);
        if (resolved instanceof String s) return s.isEmpty() ? null : s;
        try {
            User user = authenticator.userOf(http.getHeader("Authorization"));
            if (user != null) http.setAttribute(PolicingFilter.CALLER, user);
            return user == null ? null : user.serviceClass();
        } catch (AuthenticationException e) {
            http.setAttribute(PolicingFilter.CALLER, e);
            return null; // the least worth; the endpoint answers with the reason if it gets a place
        }
    }

    private void recovered() {
        refusing = false;
        long n = refused.getAndSet(0);
        if (n > 0) log.info("overload over: {} composite requests were refused with 503", n);
    }

    private void refuseBestEffort(HttpServletRequest req, HttpServletResponse res, RatePolicing.Excess excess, EnginePlaces.Verdict v)
            throws IOException {
        count(excess.user().serviceClass(), cause(v));
        String reason = "no spare capacity for requests above the agreed rate: user " + excess.user().name() + " (class "
                + excess.user().serviceClass() + ") agreed " + RatePolicing.fmt(excess.user().rate()) + " req/s, and requests above it run only while "
                + places.bestEffortPlaces() + " of the " + bound.maxInFlight() + " places are free of other work; "
                + switch (v) {
                    case DISPLACED -> "this one was shed for a conforming request; ";
                    case TIMED_OUT -> "this one waited " + bound.maxWait().toMillis() + " ms; ";
                    default -> "the wait line is full; ";
                }
                + "retry after 1 s";
        RefusedBodies.keepConnection(req, res);
        FaultReplies.send(req, res, HttpServletResponse.SC_SERVICE_UNAVAILABLE, "1", false, reason);
    }

    private static String cause(EnginePlaces.Verdict v) {
        return switch (v) {
            case DISPLACED -> "displaced";
            case TIMED_OUT -> "timeout";
            default -> "full";
        };
    }

    private void refuse(HttpServletRequest req, HttpServletResponse res, String serviceClass, EnginePlaces.Verdict v)
            throws IOException {
        refused.incrementAndGet();
        String label = serviceClass == null ? NO_CLASS : serviceClass;
        count(label, cause(v));
        if (!refusing) {
            refusing = true;
            log.warn("overloaded: {} composite requests running and {} waiting; refusing more with 503 (least class first) until one finishes",
                    bound.maxInFlight(), bound.maxQueued());
        }
        String reason = "the broker is overloaded: " + bound.maxInFlight() + " composite requests are running and "
                + bound.maxQueued() + " waiting; "
                + switch (v) {
                    case DISPLACED -> "this request of class " + label + " was shed for a request of a higher class; ";
                    case TIMED_OUT -> "this request of class " + label + " waited " + bound.maxWait().toMillis() + " ms; ";
                    default -> "none waiting is of a class below " + label + "; ";
                }
                + "retry after 1 s";
        RefusedBodies.keepConnection(req, res); // else the caller's next request may meet a connection closed under it
        FaultReplies.send(req, res, HttpServletResponse.SC_SERVICE_UNAVAILABLE, "1", false, reason);
    }

    private void count(String serviceClass, String cause) {
        MeterRegistry r = registry;
        if (r == null) return;
        // the metric keeps its published name (moses_admission_shed_total): it counts this bound's refusals
        shed.computeIfAbsent(serviceClass + '\0' + cause, k -> Counter.builder("moses.admission.shed").tags("class", serviceClass, "cause", cause)
                .description("composite requests refused with 503 under overload, by the caller's class and why").register(r))
                .increment();
    }
}
