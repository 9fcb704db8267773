package io.moses.core.frontend;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.internal.HttpConnection;
import org.eclipse.jetty.util.NanoTime;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * Closes connections whose request headers do not arrive within the read deadline. Jetty reads
 * headers without a thread, but its idle timeout counts per read: a client sending a byte of
 * header every few seconds would keep its connection, and a file descriptor, for ever. Once a
 * second the connector's connections are looked at: one found in the middle of its headers is
 * timed from then, and closed once the deadline has passed (so it is closed between the deadline
 * and a second after it).
 */
final class HeaderDeadline implements Runnable {
    private static final long PERIOD_MS = 1000;

    private final ServerConnector connector;
    private final long deadlineNanos;
    /** Connections seen in the middle of their headers, and since when; touched by the sweep's thread only. */
    private Map<EndPoint, Long> partial = new HashMap<>();
    private final WholeBodies.Episode closed =
            new WholeBodies.Episode("connections closed with their request headers unfinished after the read deadline");
    private volatile boolean stopped;

    HeaderDeadline(ServerConnector connector, Duration deadline) {
        this.connector = connector;
        this.deadlineNanos = deadline.toNanos();
    }

    void start() {
        schedule();
    }

    void stop() {
        stopped = true;
    }

    private void schedule() {
        Scheduler scheduler = connector.getScheduler();
        if (!stopped && scheduler.isRunning()) scheduler.schedule(this, PERIOD_MS, TimeUnit.MILLISECONDS);
    }

    @Override
    public void run() {
        try {
            sweep(NanoTime.now());
        } finally {
            schedule();
        }
    }

    private void sweep(long now) {
        Map<EndPoint, Long> still = new HashMap<>();
        int closedNow = 0;
        for (EndPoint ep : connector.getConnectedEndPoints()) {
            org.eclipse.jetty.io.Connection connection = ep.getConnection();
            // over TLS the HTTP connection sits on the TLS one's decrypted side
            if (connection instanceof org.eclipse.jetty.io.ssl.SslConnection tls) connection = tls.getSslEndPoint().getConnection();
            if (!(connection instanceof HttpConnection c)) continue;
            HttpParser parser = c.getParser();
            if (parser.isStart() || !parser.inHeaderState()) continue; // idle between requests, or past its headers
            long since = partial.getOrDefault(ep, now);
            if (now - since >= deadlineNanos) {
                ep.close();
                closedNow++;
                closed.began();
            } else {
                still.put(ep, since);
            }
        }
        if (closedNow == 0 && still.isEmpty()) closed.ended();
        partial = still;
    }
}
