package io.moses.loadtest.driver;

import java.util.List;

/**
 * Gives the SOAP envelope of each request. Called concurrently by all clients, so an
 * implementation must be thread-safe; the sequence number makes that easy without locks.
 */
@FunctionalInterface
public interface BodySource {
    /**
     * @param sequence 0-based number of the request in the run (warm-up requests first)
     * @param user     the user sending it, or null when the run has no credentials
     */
    String body(long sequence, String user);

    static BodySource fixed(String body) {
        if (body == null || body.isBlank()) throw new IllegalArgumentException("body: must not be empty");
        return (sequence, user) -> body;
    }

    /** The bodies in turn: request k gets {@code bodies.get(k % size)}. */
    static BodySource roundRobin(List<String> bodies) {
        if (bodies == null || bodies.isEmpty()) throw new IllegalArgumentException("bodies: at least one request body is needed");
        List<String> copy = List.copyOf(bodies);
        for (int i = 0; i < copy.size(); i++)
            if (copy.get(i).isBlank()) throw new IllegalArgumentException("bodies: body #" + i + " is empty");
        return (sequence, user) -> copy.get((int) (sequence % copy.size()));
    }
}
