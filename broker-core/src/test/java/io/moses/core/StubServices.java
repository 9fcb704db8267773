package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The stub services ({@code io.moses.loadtest.stubs.StubServer}) as a real process on a free port,
 * and their admin API: how the end-to-end tests make a concrete service slow, hung, failing or
 * down, and count the calls that reached it.
 */
final class StubServices implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();
    final ChildProcess process;
    final int port;

    StubServices() throws Exception {
        process = new ChildProcess("io.moses.loadtest.stubs.StubServer", List.of("--port", "0"));
        try {
            port = Integer.parseInt(process.await(Pattern.compile("stubs listening on http://[^:]+:(\\d+)"), 60));
        } catch (Exception e) { // a stub server that never listens is not left running
            process.close();
            throw e;
        }
    }

    /** Where they listen: the broker's {@code --set STUBS=...}. */
    String url() {
        return "http://127.0.0.1:" + port;
    }

    /** A broker process ({@code io.moses.core.Main}) on a free port, its work directory {@code work}, calling these stubs; {@code args} besides. */
    ChildProcess broker(Path work, String... args) throws IOException {
        return broker(work, java.util.Map.of(), args);
    }

    /** @param env environment variables the broker gets besides this JVM's */
    ChildProcess broker(Path work, java.util.Map<String, String> env, String... args) throws IOException {
        List<String> all = new ArrayList<>(List.of("--port", "0", "--work", work.toString(), "--set", "STUBS=" + url()));
        all.addAll(List.of(args));
        return new ChildProcess("io.moses.core.Main", all, env);
    }

    /** Sets one service's behaviour (latency, distribution, failures, up), as JSON. */
    void set(String service, String json) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url() + "/admin/services/" + service))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
    }

    /** Every service back to its defaults. */
    void reset() throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url() + "/admin/reset"))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
    }

    /** One of a service's counters so far ({@code requests}: SOAP requests that reached it, replied, failed or still waiting out their latency; {@code wsdlRequests}). */
    long counter(String service, String counter) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url() + "/admin/services/" + service)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return JSON.readTree(r.body()).path(counter).asLong();
    }

    /** A service's admin JSON field as text, or null. */
    String field(String service, String field) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url() + "/admin/services/" + service)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        com.fasterxml.jackson.databind.JsonNode v = JSON.readTree(r.body()).path(field);
        return v.isTextual() ? v.asText() : null;
    }

    /** The W3C {@code traceparent} headers of the last SOAP requests that reached the service with one, oldest first. */
    List<String> traceparents(String service) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url() + "/admin/services/" + service)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        List<String> out = new ArrayList<>();
        for (com.fasterxml.jackson.databind.JsonNode t : JSON.readTree(r.body()).path("traceparents")) out.add(t.asText());
        return out;
    }

    /** SOAP requests that reached the service so far. */
    long requests(String service) throws Exception {
        return counter(service, "requests");
    }

    @Override
    public void close() throws InterruptedException {
        process.close();
    }
}
