package io.moses.monitor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class WsMonitorTest {
    @Test
    void aServiceGoesDownAfterTwoFailedProbesOrOneRefusalAndComesBackAfterTwoGoodOnes() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 10);
        int[] status = {200};
        server.createContext("/svc", ex -> {
            byte[] b = "<definitions/>".getBytes();
            ex.sendResponseHeaders(status[0], b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        server.start();
        try {
            List<String> changes = new CopyOnWriteArrayList<>();
            // a generous timeout: it only bounds a hang, and a busy machine must not turn a probe into a failure
            WsMonitor m = new WsMonitor(Duration.ofSeconds(10), 2, 2);
            m.onChange((s, isUp) -> changes.add(s + (isUp ? " up" : " down")));
            Map<String, URI> endpoints = Map.of("svc", URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/svc"),
                    "gone", URI.create("http://127.0.0.1:1/nothing"));
            m.probe(endpoints);
            assertEquals(java.util.Set.of("gone"), m.down(), "a refused connection is down at once");
            status[0] = 500; // a failure that a busy or confused server can give: hysteresis
            m.probe(endpoints);
            assertEquals(java.util.Set.of("gone"), m.down(), "one failed probe is not enough");
            m.probe(endpoints);
            assertEquals(java.util.Set.of("gone", "svc"), m.down());
            status[0] = 200;
            m.probe(endpoints);
            assertTrue(m.down().contains("svc"), "one good probe is not enough");
            assertTrue(m.answering().contains("svc"), "but it answered");
            m.probe(endpoints);
            assertEquals(java.util.Set.of("gone"), m.down());
            status[0] = 503; // refused outright: down at once
            m.probe(endpoints);
            assertEquals(java.util.Set.of("gone", "svc"), m.down());
            assertEquals(List.of("gone down", "svc down", "svc up", "svc down"), changes);
        } finally {
            server.stop(0);
        }
    }
}
