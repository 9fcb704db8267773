package io.moses.core.frontend;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds the composite requests in the broker ({@link Admission}): a POST to a composite service
 * takes a permit for its whole run; without one it waits in a bounded queue for a bounded time,
 * and past that it gets a 503 SOAP fault with the reason and {@code Retry-After} at once,
 * without its body being read or parsed. GETs (WSDLs) are not counted.
 *
 * <p>Permits are a {@link Semaphore} (parks threads, no monitors); one log line when refusals
 * start and one with their count when they stop.
 */
final class AdmissionFilter implements Filter {
    private static final Logger log = LoggerFactory.getLogger(AdmissionFilter.class);

    private final Admission admission;
    private final Semaphore permits;
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicLong refused = new AtomicLong();
    private volatile boolean refusing;

    AdmissionFilter(Admission admission) {
        this.admission = admission;
        this.permits = new Semaphore(admission.maxInFlight(), true);
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) req;
        if (!"POST".equals(http.getMethod())) {
            chain.doFilter(req, res);
            return;
        }
        if (!admit()) {
            refuse(http, (HttpServletResponse) res);
            return;
        }
        try {
            chain.doFilter(req, res);
        } finally {
            permits.release();
        }
    }

    private boolean admit() {
        if (permits.tryAcquire()) {
            if (refusing) recovered();
            return true;
        }
        if (queued.incrementAndGet() > admission.maxQueued()) {
            queued.decrementAndGet();
            return false;
        }
        try {
            return permits.tryAcquire(admission.maxWait().toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            queued.decrementAndGet();
        }
    }

    private void recovered() {
        refusing = false;
        long n = refused.getAndSet(0);
        if (n > 0) log.info("overload over: {} composite requests were refused with 503", n);
    }

    private void refuse(HttpServletRequest req, HttpServletResponse res) throws IOException {
        refused.incrementAndGet();
        if (!refusing) {
            refusing = true;
            log.warn("overloaded: {} composite requests running and {} waiting; refusing more with 503 until one finishes",
                    admission.maxInFlight(), admission.maxQueued());
        }
        String reason = "the broker is overloaded: " + admission.maxInFlight() + " composite requests are running and "
                + admission.maxQueued() + " waiting; retry after 1 s";
        FaultReplies.send(req, res, HttpServletResponse.SC_SERVICE_UNAVAILABLE, "1", false, reason);
    }
}
