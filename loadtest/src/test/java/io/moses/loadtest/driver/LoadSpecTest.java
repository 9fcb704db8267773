package io.moses.loadtest.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class LoadSpecTest {
    private static final URI TARGET = URI.create("http://127.0.0.1:9/soap");
    private static final BodySource BODY = BodySource.fixed("<x/>");

    private static String error(LoadSpec.Builder b) {
        return assertThrows(IllegalArgumentException.class, b::build).getMessage();
    }

    @Test
    void rejectsBadSpecsNamingTheField() {
        assertTrue(error(LoadSpec.builder(TARGET, BODY)).startsWith("bounds:"));
        assertTrue(error(LoadSpec.builder(TARGET, BODY).maxRequests(1).clients(0)).startsWith("clients:"));
        assertTrue(error(LoadSpec.builder(URI.create("/relative"), BODY).maxRequests(1)).startsWith("target:"));
        assertTrue(error(LoadSpec.builder(URI.create("ftp://h/x"), BODY).maxRequests(1)).startsWith("target:"));
        assertTrue(error(LoadSpec.builder(TARGET, null).maxRequests(1)).startsWith("bodies:"));
        assertTrue(error(LoadSpec.builder(TARGET, BODY).maxRequests(-1)).startsWith("maxRequests:"));
        assertTrue(error(LoadSpec.builder(TARGET, BODY).maxDuration(Duration.ZERO)).startsWith("maxDuration:"));
        assertTrue(error(LoadSpec.builder(TARGET, BODY).maxRequests(1).tally("by [a-z]+")).startsWith("tally:"));
        assertTrue(error(LoadSpec.builder(TARGET, BODY).maxRequests(1).requestTimeout(Duration.ofMillis(-1)))
                .startsWith("requestTimeout:"));
        assertTrue(error(LoadSpec.builder(TARGET, BODY).maxRequests(1).warmupRequests(-5)).startsWith("warmupRequests:"));
    }

    @Test
    void defaultsAndBodySources() {
        LoadSpec s = LoadSpec.builder(TARGET, BODY).maxRequests(5).build();
        assertEquals(1, s.clients());
        assertEquals(Duration.ofSeconds(30), s.requestTimeout());
        assertEquals(Duration.ofSeconds(2), s.progressInterval());
        assertEquals(List.of(), s.credentials());
        BodySource rr = BodySource.roundRobin(List.of("a", "b", "c"));
        assertEquals("a", rr.body(0, null));
        assertEquals("c", rr.body(5, "u"));
        assertEquals("b", rr.body(7, null));
        assertThrows(IllegalArgumentException.class, () -> BodySource.roundRobin(List.of()));
        assertThrows(IllegalArgumentException.class, () -> BodySource.fixed(" "));
    }

    @Test
    void credentialsParseAndHideThePassword() {
        UserCredentials c = UserCredentials.parse("alice:pa:ss");
        assertEquals("alice", c.user());
        assertEquals("pa:ss", c.password());
        assertEquals("alice:***", c.toString());
        assertEquals("Basic YWxpY2U6cGE6c3M=", c.authorizationHeader());
        String msg = assertThrows(IllegalArgumentException.class, () -> UserCredentials.parse("nopassword")).getMessage();
        assertTrue(msg.contains("user:password"), msg);
        assertThrows(IllegalArgumentException.class, () -> UserCredentials.parse(":pw"));
    }
}
