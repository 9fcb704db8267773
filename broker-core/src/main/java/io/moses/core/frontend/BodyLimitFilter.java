package io.moses.core.frontend;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** Refuses request bodies over a limit: 413 when declared, an I/O error when streamed. */
final class BodyLimitFilter implements Filter {
    private final long max;

    BodyLimitFilter(long max) {
        this.max = max;
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) req;
        if (http.getContentLengthLong() > max) {
            HttpServletResponse r = (HttpServletResponse) res;
            // The body is read (up to a bound) before the 413, so that closing the connection does
            // not reset it under the answer (BrokerInProcessTest once in CI); closed either way,
            // since a client sending this much is not one to keep a connection for.
            try {
                RefusedBodies.drain(http, DRAIN_MAX);
            } catch (IOException e) {
                // the client went away or stopped sending: the 413 is written if it still can be
            }
            r.setStatus(413);
            r.setHeader("Connection", "close");
            r.setContentType("text/plain; charset=utf-8");
            r.getWriter().println("request body of " + http.getContentLengthLong() + " bytes is larger than the limit of " + max + " bytes");
            return;
        }
        chain.doFilter(new HttpServletRequestWrapper(http) {
            @Override
            public ServletInputStream getInputStream() throws IOException {
                return new Limited(super.getInputStream(), max);
            }
        }, res);
    }

    /** The largest declared body read and dropped before a 413 (larger ones are left unread). */
    static final long DRAIN_MAX = 16L << 20;

    private static final class Limited extends ServletInputStream {
        private final ServletInputStream in;
        private final long max;
        private long read;

        Limited(ServletInputStream in, long max) {
            this.in = in;
            this.max = max;
        }

        private int count(int n) throws IOException {
            if (n > 0 && (read += n) > max)
                throw new IOException("request body is larger than the limit of " + max + " bytes");
            return n;
        }

        @Override public int read() throws IOException { int b = in.read(); if (b >= 0) count(1); return b; }
        @Override public int read(byte[] b, int off, int len) throws IOException { return count(in.read(b, off, len)); }
        @Override public boolean isFinished() { return in.isFinished(); }
        @Override public boolean isReady() { return in.isReady(); }
        @Override public void setReadListener(ReadListener l) { in.setReadListener(l); }
    }
}
