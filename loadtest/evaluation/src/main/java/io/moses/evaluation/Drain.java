package io.moses.evaluation;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Waiting for an overloaded target to work off its backlog: single requests until one is answered quickly. */
final class Drain {
    private Drain() {}

    /**
     * Sends one request at a time until one gets a 200 within {@code quickSeconds}, for at most
     * {@code maxSeconds}. Returns the milliseconds waited, or -1 if the target never answered
     * quickly.
     */
    static long await(Target target, Target.User user, double quickSeconds, long maxSeconds) throws InterruptedException {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        String body = target.bodies().get(0).replace("@USER@", user.name());
        long start = System.nanoTime();
        while (System.nanoTime() - start < maxSeconds * 1_000_000_000L) {
            long sent = System.nanoTime();
            try {
                HttpResponse<Void> r = client.send(HttpRequest.newBuilder(URI.create(target.url()))
                        .timeout(Duration.ofMillis((long) (maxSeconds * 1000)))
                        .header("Content-Type", "text/xml; charset=utf-8").header("SOAPAction", "\"" + target.soapAction() + "\"")
                        .header("Authorization", user.authorization()).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                        HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() == 200 && System.nanoTime() - sent < quickSeconds * 1e9) return (System.nanoTime() - start) / 1_000_000;
            } catch (java.io.IOException e) {
                Thread.sleep(500);
            }
        }
        return -1;
    }
}
