package io.moses.core.frontend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Which address a request's failed logins count against, and which proxies say so. */
class ClientAddressFilterTest {
    static final TrustedProxies LOCAL = TrustedProxies.parse(List.of("127.0.0.1", "172.28.0.0/16", "fd00::/8"));

    @Test
    void aTrustedProxysForwardedForNamesTheClientAndAnyoneElsesIsIgnored() {
        assertEquals("198.51.100.9", ClientAddressFilter.clientOf("127.0.0.1", "198.51.100.9", LOCAL));
        // each proxy appends what it received from: the nearest untrusted hop is the client, whatever it wrote before
        assertEquals("198.51.100.9", ClientAddressFilter.clientOf("172.28.3.4", "10.9.9.9, 198.51.100.9, 172.28.0.7", LOCAL));
        assertEquals("203.0.113.5", ClientAddressFilter.clientOf("203.0.113.5", "10.1.1.1", LOCAL), "not a proxy: its header is its own");
        assertEquals("127.0.0.1", ClientAddressFilter.clientOf("127.0.0.1", null, LOCAL));
        assertEquals("127.0.0.1", ClientAddressFilter.clientOf("127.0.0.1", "127.0.0.1", LOCAL), "all trusted: the first");
        assertEquals("127.0.0.1", ClientAddressFilter.clientOf("127.0.0.1", " , ", LOCAL));
        assertEquals("127.0.0.1", ClientAddressFilter.clientOf("127.0.0.1", "198.51.100.9", TrustedProxies.NONE));
    }

    @Test
    void networksMatchByPrefixAndNamesAreRefused() {
        assertTrue(LOCAL.contains("172.28.255.1"));
        assertFalse(LOCAL.contains("172.29.0.1"));
        assertTrue(LOCAL.contains("fd12::1"));
        assertFalse(LOCAL.contains("fe80::1"));
        assertFalse(LOCAL.contains("127.0.0.2"));
        assertFalse(LOCAL.contains("not-an-address"));
        assertTrue(TrustedProxies.parse(List.of("10.0.0.0/0")).contains("192.0.2.1"));
        assertEquals("'haproxy' is not an IP address or network",
                assertThrows(IllegalArgumentException.class, () -> TrustedProxies.parse(List.of("haproxy"))).getMessage());
        assertEquals("'10.0.0.0/33' has no prefix length from 0 to 32",
                assertThrows(IllegalArgumentException.class, () -> TrustedProxies.parse(List.of("10.0.0.0/33"))).getMessage());
    }
}
