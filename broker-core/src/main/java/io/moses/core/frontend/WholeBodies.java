package io.moses.core.frontend;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.NanoTime;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a request's whole body into memory before any servlet sees it, and holds no thread while
 * it arrives: a client that sends its body a byte at a time waits on a socket, not on a request
 * thread, an engine place or a parser. The body must arrive within the read deadline, counted
 * from the request's first byte (headers and body together); a late one is answered 408 and its
 * connection closed. A body over the limit is refused with 413: a declared one after it is read
 * and dropped (up to a bound, so the answer is not reset under the client), a streamed one as
 * soon as it passes the limit. Memory follows what has arrived, not what a request declares, and
 * all bodies being read share a budget: past it a body is refused with 503 (so clients that send
 * large bodies slowly on many connections cannot fill the heap). One log line when late bodies
 * begin, one with their count when they stop.
 */
final class WholeBodies extends Handler.Wrapper {
    private static final Logger log = LoggerFactory.getLogger(WholeBodies.class);
    /** The largest declared oversized body read and dropped before a 413 (larger ones are left unread). */
    static final long DRAIN_MAX = 16L << 20;
    static final int REQUEST_TIMEOUT = 408, TOO_LARGE = 413, BUSY = 503;
    /** A body's first buffer; it doubles as more arrives. */
    static final int FIRST_BUFFER = 8192;
    /** Request attribute: the whole body, read-only (what a {@link HopSeal} covers); absent for a request without one. */
    static final String BODY = "io.moses.frontend.body";

    private final long maxBytes;
    private final long deadlineNanos;
    /** Bytes of buffer all bodies being read and served hold together, at most {@link #budget}. */
    private final AtomicLong buffered = new AtomicLong();
    private final long budget;
    private final Episode late = new Episode("request bodies not received within the read deadline (answered 408, connection closed)");

    /** @param budget the bytes all bodies in memory may hold together (at least {@code maxBytes}) */
    WholeBodies(long maxBytes, Duration deadline, long budget) {
        this.maxBytes = maxBytes;
        this.deadlineNanos = deadline.toNanos();
        this.budget = Math.max(budget, maxBytes);
    }

    private boolean reserve(long n) {
        while (true) {
            long now = buffered.get();
            if (now + n > budget) return false;
            if (buffered.compareAndSet(now, now + n)) return true;
        }
    }

    private String busy() {
        return "the broker is receiving too many request bodies at once (" + (budget >> 20) + " MiB in memory): retry after 1 s";
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        HttpFields headers = request.getHeaders();
        long declared = headers.getLongField(HttpHeader.CONTENT_LENGTH);
        if (declared <= 0 && !headers.contains(HttpHeader.TRANSFER_ENCODING)) return super.handle(request, response, callback);
        if (declared > DRAIN_MAX) { // not worth reading to answer
            refuse(request, response, callback, TOO_LARGE, tooLarge(declared));
            return true;
        }
        new Body(request, response, callback, declared).run();
        return true;
    }

    private String tooLarge(long declared) {
        return declared >= 0
                ? "request body of " + declared + " bytes is larger than the limit of " + maxBytes + " bytes"
                : "request body is larger than the limit of " + maxBytes + " bytes";
    }

    private static void refuse(Request request, Response response, Callback callback, int status, String reason) {
        response.setStatus(status);
        if (status == BUSY) response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
        response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
        response.write(true, ByteBuffer.wrap((reason + "\n").getBytes(StandardCharsets.UTF_8)), callback);
    }

    /** One request's body on its way in: read as it arrives, then handed on whole, or refused. */
    private final class Body implements Runnable {
        private final Request request;
        private final Response response;
        private final Callback callback;
        private final long declared;
        private final boolean oversized;
        private final AtomicBoolean settled = new AtomicBoolean();
        private final Scheduler.Task deadline;
        private byte[] bytes;
        private int size;
        /** Bytes of the budget this body holds: its buffer's size, until its request is done. */
        private final AtomicLong held = new AtomicLong();

        Body(Request request, Response response, Callback callback, long declared) {
            this.request = request;
            this.response = response;
            this.callback = callback;
            this.declared = declared;
            this.oversized = declared > maxBytes;
            // what has arrived decides the memory, not what the request declares
            int first = oversized ? 0 : (int) Math.min(FIRST_BUFFER, declared > 0 ? declared : FIRST_BUFFER);
            this.bytes = new byte[reserve(first) ? first : 0];
            held.set(bytes.length);
            long left = deadlineNanos - NanoTime.since(request.getBeginNanoTime());
            this.deadline = request.getComponents().getScheduler().schedule(this::expire, Math.max(0, left), TimeUnit.NANOSECONDS);
        }

        /** Reads what has arrived; asks to be called again when more does. */
        @Override
        public void run() {
            while (!settled.get()) {
                Content.Chunk chunk = request.read();
                if (chunk == null) {
                    request.demand(this);
                    return;
                }
                if (Content.Chunk.isFailure(chunk)) {
                    if (settle()) {
                        release();
                        callback.failed(chunk.getFailure());
                    }
                    return;
                }
                ByteBuffer b = chunk.getByteBuffer();
                int n = b.remaining();
                boolean last = chunk.isLast();
                if (!oversized) {
                    if (size + (long) n > maxBytes) {
                        chunk.release();
                        if (settle()) {
                            release();
                            refuse(request, response, callback, TOO_LARGE, tooLarge(declared));
                        }
                        return;
                    }
                    if (size + n > bytes.length) {
                        int grown = (int) Math.min(maxBytes, Math.max(2L * bytes.length, size + n));
                        if (!reserve(grown - bytes.length)) {
                            chunk.release();
                            if (settle()) {
                                release();
                                refuse(request, response, callback, BUSY, busy());
                            }
                            return;
                        }
                        held.addAndGet(grown - bytes.length);
                        if (settled.get()) release(); // expired meanwhile: its share is not kept
                        bytes = java.util.Arrays.copyOf(bytes, grown);
                    }
                    b.get(bytes, size, n);
                    size += n;
                }
                chunk.release();
                if (last) {
                    complete();
                    return;
                }
            }
        }

        private boolean settle() {
            if (!settled.compareAndSet(false, true)) return false;
            deadline.cancel();
            return true;
        }

        /** Gives the body's share of the budget back (once). */
        private void release() {
            buffered.addAndGet(-held.getAndSet(0));
        }

        private void complete() {
            if (!settle()) return;
            late.ended();
            if (oversized) {
                refuse(request, response, callback, TOO_LARGE, tooLarge(declared));
                return;
            }
            ByteBuffer body = ByteBuffer.wrap(bytes, 0, size);
            Request whole = new Buffered(request, body);
            whole.setAttribute(BODY, body.asReadOnlyBuffer());
            // the body stays in memory while its request is served: its share goes back when it is done
            Callback done = new Callback.Nested(callback) {
                @Override
                public void succeeded() {
                    release();
                    super.succeeded();
                }

                @Override
                public void failed(Throwable x) {
                    release();
                    super.failed(x);
                }
            };
            try {
                if (!getHandler().handle(whole, response, done)) Response.writeError(whole, response, done, 404);
            } catch (Throwable t) {
                done.failed(t);
            }
        }

        private void expire() {
            if (!settle()) return;
            release();
            late.began();
            refuse(request, response, callback, REQUEST_TIMEOUT, "request body not received within "
                    + TimeUnit.NANOSECONDS.toMillis(deadlineNanos) + " ms (" + size + " bytes arrived)");
        }
    }

    /** The whole body of a request this handler read (a read-only view), empty for one without a body. */
    static ByteBuffer bodyOf(jakarta.servlet.ServletRequest request) {
        return request.getAttribute(BODY) instanceof ByteBuffer b ? b.duplicate() : ByteBuffer.allocate(0);
    }

    /** A request whose body is already in memory: every read has it at once. */
    private static final class Buffered extends Request.Wrapper {
        private Content.Chunk content;

        Buffered(Request request, ByteBuffer body) {
            super(request);
            this.content = Content.Chunk.from(body, true);
        }

        @Override
        public synchronized Content.Chunk read() {
            Content.Chunk c = content;
            content = Content.Chunk.EOF;
            return c;
        }

        @Override
        public void demand(Runnable demandCallback) {
            demandCallback.run(); // there is always something to read: the body, or its end
        }
    }

    /**
     * An episode of refusals: a line when it begins, one with its count when it ends (the next
     * body that arrives in time).
     */
    static final class Episode {
        private final String what;
        private final AtomicLong count = new AtomicLong();

        Episode(String what) {
            this.what = what;
        }

        void began() {
            if (count.getAndIncrement() == 0) log.warn("{}: first one now", what);
        }

        void ended() {
            if (count.get() == 0) return;
            long n = count.getAndSet(0);
            if (n > 0) log.warn("{}: {} in all, none now", what, n);
        }
    }
}
