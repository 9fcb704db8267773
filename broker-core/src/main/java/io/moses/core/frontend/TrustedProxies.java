package io.moses.core.frontend;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * The proxies in front of the broker whose {@code X-Forwarded-For} is believed: IP addresses or
 * networks ({@code 127.0.0.1}, {@code 172.28.0.0/16}, {@code fd00::/8}). Literals only: a name
 * would be looked up in DNS, which an attacker may answer.
 */
public final class TrustedProxies {
    public static final TrustedProxies NONE = new TrustedProxies(List.of(), List.of());

    private record Network(byte[] address, int prefix) {}

    private final List<String> specs;
    private final List<Network> networks;

    private TrustedProxies(List<String> specs, List<Network> networks) {
        this.specs = List.copyOf(specs);
        this.networks = List.copyOf(networks);
    }

    /** @throws IllegalArgumentException naming the first entry that is no IP address or network */
    public static TrustedProxies parse(List<String> specs) {
        List<Network> networks = new ArrayList<>();
        for (String spec : specs) {
            String s = spec.strip();
            int slash = s.indexOf('/');
            byte[] address = literal(slash < 0 ? s : s.substring(0, slash), spec);
            int prefix = address.length * 8;
            if (slash >= 0) {
                try {
                    prefix = Integer.parseInt(s.substring(slash + 1));
                } catch (NumberFormatException e) {
                    prefix = -1;
                }
                if (prefix < 0 || prefix > address.length * 8)
                    throw new IllegalArgumentException("'" + spec + "' has no prefix length from 0 to " + address.length * 8);
            }
            networks.add(new Network(address, prefix));
        }
        return new TrustedProxies(specs, networks);
    }

    /** Whether {@code address} (an IP literal, as a servlet request's remote address) is one of them. */
    public boolean contains(String address) {
        if (networks.isEmpty() || address == null) return false;
        byte[] a;
        try {
            a = literal(address, address);
        } catch (IllegalArgumentException notAnAddress) {
            return false;
        }
        for (Network n : networks) if (within(a, n.address(), n.prefix())) return true;
        return false;
    }

    public List<String> specs() {
        return specs;
    }

    private static boolean within(byte[] a, byte[] network, int prefix) {
        if (a.length != network.length) return false;
        for (int bit = 0; bit < prefix; bit += 8) {
            int bits = Math.min(8, prefix - bit);
            int mask = (0xff << (8 - bits)) & 0xff;
            if ((a[bit / 8] & mask) != (network[bit / 8] & mask)) return false;
        }
        return true;
    }

    private static byte[] literal(String s, String spec) {
        // digits, dots and hex with colons only: never a name for DNS to answer
        if (s.isEmpty() || !s.matches("[0-9a-fA-F.:]+") || !(s.contains(".") || s.contains(":")))
            throw new IllegalArgumentException("'" + spec + "' is not an IP address or network");
        try {
            return InetAddress.getByName(s).getAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("'" + spec + "' is not an IP address or network");
        }
    }
}
