package io.moses.core.frontend;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;

/**
 * What a filter that refuses a request (413, 429, 503) does with the body it has not read. A
 * server that answers and closes with a body unread resets the connection, and the reset can
 * discard the answer before the client reads it ("header parser received no bytes"); one that
 * keeps the connection open with a body unread reads that body as the next request. So the body
 * is read and dropped, up to a bound; a larger one is left unread and the connection closed, the
 * answer saying so.
 */
final class RefusedBodies {
    /** A refused request's body read so that its connection stays open for the caller's next request. */
    static final long KEPT_MAX = 64 * 1024;

    private RefusedBodies() {}

    /** Reads and drops a body of up to {@code max} declared bytes; false (nothing read) for a larger or undeclared one. */
    static boolean drain(HttpServletRequest req, long max) throws IOException {
        long length = req.getContentLengthLong();
        if (length < 0 || length > max) return false;
        req.getInputStream().transferTo(OutputStream.nullOutputStream());
        return true;
    }

    /** A small body is read and dropped, so the caller's connection stays open for its next request; a large one closes it. */
    static void keepConnection(HttpServletRequest req, HttpServletResponse res) throws IOException {
        if (!drain(req, KEPT_MAX)) res.setHeader("Connection", "close");
    }
}
