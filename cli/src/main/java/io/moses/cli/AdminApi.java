package io.moses.cli;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/** A running broker's admin API, as an operator (HTTP Basic) or with no credentials. */
final class AdminApi {
    final String broker;
    private final String authorization;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

    /** @param user null: no credentials (the broker answers 401, which the caller explains) */
    AdminApi(String broker, String user, String password) {
        this.broker = broker.replaceAll("/+$", "");
        this.authorization = user == null ? null
                : "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    HttpResponse<String> send(String method, String path, HttpRequest.BodyPublisher body, String contentType, Duration timeout)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(broker + path)).timeout(timeout)
                .method(method, body).header("Content-Type", contentType);
        if (authorization != null) request.header("Authorization", authorization);
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
