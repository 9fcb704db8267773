package io.moses.core.frontend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A composite request whose body is over the limit is refused with 413 before anything else
 * looks at it: it asks for no place in the engine (here the only one is taken and none may
 * wait, so asking would have got it a 503) while its body is read and dropped.
 */
class OversizedBodyTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final int LIMIT = 1024;

    @Test
    void anOversizedBodyIsRefusedWithoutAskingForAPlace() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        HttpFrontEnd http = new HttpFrontEnd("127.0.0.1", 0, 8, LIMIT, new OverloadBound(1, 0, Duration.ZERO), Clock.systemUTC());
        try {
            // under /services/, so behind the front-end's filters as a composite service is
            http.mount("/services/hold", new HttpServlet() {
                @Override
                protected void doPost(HttpServletRequest req, HttpServletResponse res) throws IOException {
                    running.countDown();
                    try {
                        finish.await(60, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    res.getWriter().write("done");
                }
            });
            http.start();
            URI hold = URI.create("http://127.0.0.1:" + http.port() + "/services/hold");
            CompletableFuture<HttpResponse<String>> holding = HTTP.sendAsync(
                    HttpRequest.newBuilder(hold).POST(HttpRequest.BodyPublishers.ofString("<small/>")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertTrue(running.await(60, TimeUnit.SECONDS), "the first request holds the only place");

            HttpResponse<String> oversized = HTTP.send(
                    HttpRequest.newBuilder(hold).POST(HttpRequest.BodyPublishers.ofByteArray(new byte[4 * LIMIT])).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(413, oversized.statusCode(), oversized.body());
            assertTrue(oversized.body().contains("larger than the limit of " + LIMIT + " bytes"), oversized.body());

            finish.countDown();
            HttpResponse<String> held = holding.get(60, TimeUnit.SECONDS);
            assertEquals(200, held.statusCode(), held.body());
        } finally {
            finish.countDown();
            http.close();
        }
    }
}
