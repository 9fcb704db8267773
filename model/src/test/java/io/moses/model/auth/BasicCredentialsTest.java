package io.moses.model.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class BasicCredentialsTest {

    private static String basic(byte[] raw) {
        return "Basic " + Base64.getEncoder().encodeToString(raw);
    }

    private static String basic(String userColonPassword) {
        return basic(userColonPassword.getBytes(StandardCharsets.UTF_8));
    }

    private static String refusal(String header) {
        return assertThrows(IllegalArgumentException.class, () -> BasicCredentials.parse(header)).getMessage();
    }

    @Test
    void parsesUserAndPasswordWhateverTheSchemesCase() {
        assertEquals(new BasicCredentials("olga", "olga-secret"), BasicCredentials.parse(basic("olga:olga-secret")));
        assertEquals(new BasicCredentials("olga", "s"), BasicCredentials.parse("bASIC " + Base64.getEncoder().encodeToString("olga:s".getBytes())));
        assertEquals(new BasicCredentials("olga", "s"), BasicCredentials.parse("Basic   " + Base64.getEncoder().encodeToString("olga:s".getBytes()) + " "));
    }

    @Test
    void thePasswordMayHoldColonsAndBeEmptyAndNamesMayBeUnicode() {
        assertEquals(new BasicCredentials("u", "a:b:c"), BasicCredentials.parse(basic("u:a:b:c")));
        assertEquals(new BasicCredentials("u", ""), BasicCredentials.parse(basic("u:")));
        assertEquals(new BasicCredentials("jürgen", "pässwörd"), BasicCredentials.parse(basic("jürgen:pässwörd")));
    }

    @Test
    void headerRoundTrips() {
        BasicCredentials c = new BasicCredentials("jürgen", "p:w");
        assertEquals(c, BasicCredentials.parse(c.header()));
        assertEquals(basic("jürgen:p:w"), c.header());
    }

    @Test
    void anotherSchemeOrNoneIsUnsupported() {
        assertEquals(BasicCredentials.UNSUPPORTED_SCHEME, refusal("Bearer abc"));
        assertEquals(BasicCredentials.UNSUPPORTED_SCHEME, refusal(""));
        assertEquals(BasicCredentials.UNSUPPORTED_SCHEME, refusal("Basic"));
        assertEquals(BasicCredentials.UNSUPPORTED_SCHEME, refusal(null));
    }

    @Test
    void malformedHeadersAreRefusedWithTheirReason() {
        assertEquals("malformed HTTP Basic credentials: no ':' between user and password", refusal(basic("olga")));
        assertEquals("malformed HTTP Basic credentials: not base64", refusal("Basic not*base64!"));
        assertEquals("malformed HTTP Basic credentials: not base64", refusal("Basic b2xnYTpz=x"));
        assertEquals("malformed HTTP Basic credentials: empty user name", refusal(basic(":secret")));
        assertEquals("malformed HTTP Basic credentials: no ':' between user and password", refusal("Basic "));
        // ISO-8859-1 "jürgen:x" is not UTF-8: refused, not read as another name with U+FFFD in it
        assertEquals("malformed HTTP Basic credentials: not UTF-8", refusal(basic("jürgen:x".getBytes(StandardCharsets.ISO_8859_1))));
        assertEquals("malformed HTTP Basic credentials: not UTF-8", refusal(basic(new byte[] {'u', ':', (byte) 0xC3})));
    }

    @Test
    void neverShowsThePassword() {
        assertFalse(new BasicCredentials("olga", "olga-secret").toString().contains("secret"));
        assertThrows(IllegalArgumentException.class, () -> new BasicCredentials("a:b", "x"));
        assertThrows(IllegalArgumentException.class, () -> new BasicCredentials("", "x"));
    }
}
