package io.moses.core;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The steady background load of the adaptation tests: each user sends one composite request after
 * another on its own thread until closed, the replies counted as successes (200) or errors
 * (anything else, or no reply).
 */
final class SteadyLoad implements AutoCloseable {
    /** One composite request of a user. */
    interface Request {
        HttpResponse<String> send(String user, String password) throws Exception;
    }

    final AtomicInteger errors = new AtomicInteger();
    final AtomicInteger successes = new AtomicInteger();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> clients = new ArrayList<>();

    /** @param users user name and password pairs */
    SteadyLoad(String[][] users, Request request) {
        for (String[] u : users) {
            Thread t = new Thread(() -> {
                while (running.get()) {
                    try {
                        HttpResponse<String> r = request.send(u[0], u[1]);
                        if (r.statusCode() != 200) errors.incrementAndGet();
                        else successes.incrementAndGet();
                    } catch (Exception e) {
                        errors.incrementAndGet();
                    }
                }
            });
            t.setDaemon(true);
            t.start();
            clients.add(t);
        }
    }

    /** Requests answered so far, every outcome. */
    int done() {
        return successes.get() + errors.get();
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        for (Thread t : clients) t.join(5000);
    }
}
