package io.moses.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import org.junit.jupiter.api.Test;

/** {@code --public-url}: where partners reach the broker, a scheme, a host and perhaps a port; nothing after them. */
class PublicUrlOptionTest {
    static URI parsed(String... args) {
        return Main.parse(args).publicUrl();
    }

    @Test
    void noneUnlessToldThenTheFrontsUrl() {
        assertNull(parsed(), "the replica's own address, which only the running broker knows");
        assertEquals(URI.create("http://front.example:8080"), parsed("--public-url", "http://front.example:8080"));
        assertEquals(URI.create("https://front.example"), parsed("--public-url", "https://front.example"));
    }

    @Test
    void anythingElseIsRefusedWithWhatItTakes() {
        for (String bad : new String[] {"front:8080", "ftp://front", "http://front/services", "http://front:8080/", "http://front?x=1",
                "http://user:pw@front", "http://", ""}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parsed("--public-url", bad), bad);
            assertTrue(e.getMessage().contains("--public-url needs http://HOST[:PORT]"), e.getMessage());
        }
    }
}
